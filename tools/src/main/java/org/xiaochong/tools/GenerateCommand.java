package org.xiaochong.tools;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Callable;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.source.BadInputException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dedup generate}: the demo's generated posts as JSON lines, for {@code dedup load --format
 * jsonl} into any server. Streams: the generator keeps one block of posts, this command none.
 */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = {
      "Writes N generated supply/demand posts (the demo's, with known duplicates) as JSON lines with the",
      "sample table's columns: id (1..N), title, category, product, region, price, contact, phone, content,",
      "reg_time (yyyy-MM-dd HH:mm:ss, or null). The same seed gives the same bytes. Load them with",
      "`dedup load FILE --table T --format jsonl`."
    })
final class GenerateCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  @Option(
      names = "--records",
      required = true,
      paramLabel = "N",
      description = "Number of posts (ids 1..N).")
  long records;

  @Option(
      names = "--seed",
      defaultValue = "20081118",
      paramLabel = "S",
      description = "Random seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--exact-share",
      defaultValue = "0.6",
      paramLabel = "X",
      description =
          "Chance that a duplicate is an exact one rather than a near one, 0..1 (default ${DEFAULT-VALUE}).")
  double exactShare;

  @Option(
      names = "--vocabulary",
      defaultValue = "legacy",
      paramLabel = "legacy|realistic",
      description = {
        "The words of the posts (default ${DEFAULT-VALUE}): legacy keeps a rare stock quantity in every",
        "post; realistic has the bounded vocabulary of real posts (30 products, 12 provinces, template sentences,",
        "narrow price and quantity ranges, a few posts per seller) and hard negatives by place, quantity and price."
      })
  String vocabulary;

  @Option(names = "--out", paramLabel = "FILE", description = "Write to FILE instead of stdout.")
  Path outFile;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  private final OutputStream stdout;

  GenerateCommand() {
    this(System.out);
  }

  /** With the stream standard output goes to (the tests pass their own). */
  GenerateCommand(OutputStream stdout) {
    this.stdout = stdout;
  }

  /**
   * The generator's vocabulary named by a {@code --vocabulary} option; a usage error for another
   * name.
   */
  static PostGenerator.Vocabulary vocabulary(String name) {
    try {
      return PostGenerator.Vocabulary.parse(name);
    } catch (IllegalArgumentException e) {
      throw new BadInputException("--vocabulary must be legacy or realistic, not '" + name + "'");
    }
  }

  @Override
  public Integer call() {
    if (records < 0) {
      throw new BadInputException("--records must be at least 0, not " + records);
    }
    if (!(exactShare >= 0 && exactShare <= 1)) {
      throw new BadInputException("--exact-share must be in [0, 1], not " + exactShare);
    }
    PostGenerator.Vocabulary words = vocabulary(vocabulary);
    try (OutputStream target =
            outFile != null
                ? Files.newOutputStream(outFile)
                : new FilterOutputStream(stdout) {
                  @Override
                  public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                  }

                  @Override
                  public void close() throws IOException {
                    flush(); // stdout stays open
                  }
                };
        OutputStream buffered = new BufferedOutputStream(target, 1 << 16);
        JsonGenerator json = new JsonFactory().createGenerator(buffered, JsonEncoding.UTF8)) {
      // One object per line: the generator's root separator is the line break.
      json.setRootValueSeparator(null);
      long[] written = {0};
      new PostGenerator(seed, records, exactShare, words)
          .generate(
              records,
              post -> {
                if (written[0] == records) {
                  return; // the generator never cuts a cluster, so it may draw a few more
                }
                written[0]++;
                try {
                  json.writeStartObject();
                  json.writeNumberField("id", post.id());
                  json.writeStringField("title", post.title());
                  json.writeStringField("category", post.category());
                  json.writeStringField("product", post.product());
                  json.writeStringField("region", post.region());
                  json.writeStringField("price", post.price());
                  json.writeStringField("contact", post.contact());
                  json.writeStringField("phone", post.phone());
                  json.writeStringField("content", post.content());
                  if (post.regTime() == null) {
                    json.writeNullField("reg_time");
                  } else {
                    json.writeStringField("reg_time", TIME.format(post.regTime()));
                  }
                  json.writeEndObject();
                  json.writeRaw('\n');
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ExitCodes.OK;
  }
}
