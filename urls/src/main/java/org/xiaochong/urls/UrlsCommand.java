package org.xiaochong.urls;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.xiaochong.command.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code urls}: reads URLs one per line (a file, or stdin), canonicalizes them and prints the ones
 * not seen before, in canonical form; {@code --tag} prints every line as {@code new<TAB>url} or
 * {@code seen<TAB>url}. {@code --state FILE} loads the seen-set before and saves it after, so runs
 * add up. {@code --forget} removes the given URLs from a counting state instead (for recrawls) and
 * prints the ones that were there ({@code forgotten}/{@code absent} with {@code --tag}).
 *
 * <p>Exit codes: 0 ok; 1 internal or I/O error (also a corrupt state file); 2 usage; 3 finished,
 * but some lines were not URLs (each reported on stderr). Errors are one line on stderr; the stack
 * trace only with {@code --verbose}.
 *
 * <p>Tests: {@code new CommandLine(new UrlsCommand(stdin)).setOut(out).setErr(err).execute(args)}.
 * {@link UrlsCommands} adds it to the main CLI. Not thread-safe; one instance per run.
 */
@Command(
    name = "urls",
    mixinStandardHelpOptions = true,
    description = "Print the URLs not seen before (canonicalized, Bloom filter over their MD5).")
final class UrlsCommand implements Callable<Integer> {
  @Mixin ExitCodes.SkipsInput exitCodes;

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "FILE",
      description = "URLs, one per line (UTF-8). Default or '-': stdin.")
  String input;

  @Option(
      names = "--state",
      paramLabel = "FILE",
      description = "Seen-set file: loaded if it exists, saved after the run.")
  Path state;

  @Option(
      names = "--expected",
      paramLabel = "N",
      defaultValue = "1000000",
      description = "URLs the new filter is sized for (default: ${DEFAULT-VALUE}).")
  long expected;

  @Option(
      names = "--bits-per-key",
      paramLabel = "B",
      defaultValue = "20",
      description = "Bits (counters) per expected URL (default: ${DEFAULT-VALUE}).")
  double bitsPerKey;

  @Option(
      names = "--hashes",
      paramLabel = "K",
      defaultValue = "10",
      description = "Probes per URL (default: ${DEFAULT-VALUE}).")
  int hashes;

  @Option(
      names = "--counting",
      description =
          "Create a counting filter (4-bit counters, 4x memory) so URLs can be forgotten.")
  boolean counting;

  @Option(names = "--sort-query", description = "Sort query parameters by name, then value.")
  boolean sortQuery;

  @Option(names = "--tag", description = "Print every URL, tagged new/seen (or forgotten/absent).")
  boolean tag;

  @Option(
      names = "--forget",
      description = "Remove the given URLs from the counting filter in --state (recrawl).")
  boolean forget;

  @Option(names = "--verbose", description = "Stack traces with errors.")
  boolean verbose;

  private final InputStream stdin;

  UrlsCommand() {
    this(System.in);
  }

  /** With another standard input (tests). */
  UrlsCommand(InputStream stdin) {
    this.stdin = stdin;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return run(out, err);
    } catch (UsageException e) {
      err.println("urls: " + e.getMessage());
      return ExitCodes.USAGE;
    } catch (IllegalArgumentException e) {
      err.println("urls: " + e.getMessage());
      return ExitCodes.USAGE;
    } catch (IOException | RuntimeException e) {
      err.println("urls: " + describe(e));
      if (verbose) {
        e.printStackTrace(err);
      }
      return ExitCodes.INTERNAL;
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int run(PrintWriter out, PrintWriter err) throws IOException {
    if (forget && state == null) {
      throw new UsageException("--forget needs --state FILE holding a counting filter");
    }
    UrlSeenFilter seen = openFilter();
    if (counting && !seen.isCounting()) {
      throw new UsageException(
          "--counting applies to a new state, but " + state + " is a plain Bloom filter");
    }
    if (forget && !seen.isCounting()) {
      throw new UsageException(
          "--forget needs a counting filter, but "
              + state
              + " is a plain Bloom filter"
              + " (create the state with --counting)");
    }
    UrlCanonicalizer canonicalizer = new UrlCanonicalizer(sortQuery);
    int rejects = 0;
    try (BufferedReader reader = openInput()) {
      String line;
      long lineNumber = 0;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        Optional<String> canonical = canonicalizer.canonicalize(line);
        if (canonical.isEmpty()) {
          err.println("urls: line " + lineNumber + ": not a URL: " + line.strip());
          rejects++;
          continue;
        }
        String url = canonical.get();
        if (forget) {
          boolean removed = seen.forget(url);
          print(out, removed, "forgotten", "absent", url);
        } else {
          boolean isNew = seen.markSeen(url);
          print(out, isNew, "new", "seen", url);
        }
      }
    }
    if (state != null) {
      seen.save(state);
    }
    return rejects > 0 ? ExitCodes.SKIPPED_INPUT : ExitCodes.OK;
  }

  private void print(PrintWriter out, boolean hit, String yes, String no, String url) {
    if (tag) {
      out.println((hit ? yes : no) + "\t" + url);
    } else if (hit) {
      out.println(url);
    }
  }

  private UrlSeenFilter openFilter() throws IOException {
    if (state != null && Files.exists(state)) {
      return UrlSeenFilter.load(
          state); // the saved shape wins over --expected/--bits-per-key/--hashes
    }
    if (forget) {
      throw new UsageException("state file " + state + " does not exist: nothing to forget");
    }
    return counting
        ? UrlSeenFilter.counting(expected, bitsPerKey, hashes)
        : UrlSeenFilter.plain(expected, bitsPerKey, hashes);
  }

  private BufferedReader openInput() throws IOException {
    InputStream in;
    if (input == null || input.equals("-")) {
      in = stdin;
    } else {
      try {
        in = Files.newInputStream(Path.of(input));
      } catch (NoSuchFileException e) {
        throw new UsageException("input file " + input + " does not exist");
      }
    }
    return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
  }

  private static String describe(Exception e) {
    String message = e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message;
  }

  /** A usage error found after parsing: exit 2. */
  private static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
