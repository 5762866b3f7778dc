package org.xiaochong.tools;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.simhash.Simhash64;
import org.xiaochong.simhash.Simhash64.Features;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code similarity}: seed 004's likeness of two texts, (64 - Hamming distance) / 64 of their
 * 64-bit simhashes, once per tokenizer (smartcn words, 4-grams with overlap 3, 5-character chunks).
 * Not thread-safe.
 */
@Command(
    name = "similarity",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the simhash likeness (64 - Hamming distance) / 64 of two texts, one",
      "line per tokenizer: smartcn words, overlapping 4-grams (overlap 3), fixed",
      "5-character chunks. For long pages: on short posts one edit moves the",
      "fingerprint by several bits (see docs/simhash.md)."
    })
public final class SimilarityCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;

  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..2",
      paramLabel = "TEXT",
      description = "The two texts (or two files with --files).")
  List<String> texts;

  @Option(names = "--files", description = "TEXT_A and TEXT_B name UTF-8 files.")
  boolean files;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (texts == null || texts.size() != 2) {
      err.println(
          "similarity: need two texts (or --files A B), got " + (texts == null ? 0 : texts.size()));
      return ExitCodes.USAGE;
    }
    String a;
    String b;
    try {
      a = files ? read(texts.get(0)) : texts.get(0);
      b = files ? read(texts.get(1)) : texts.get(1);
    } catch (NoSuchFileException e) {
      err.println("similarity: file " + e.getFile() + " does not exist");
      return ExitCodes.USAGE;
    } catch (IOException e) {
      err.println("similarity: " + e.getMessage());
      return ExitCodes.INTERNAL;
    }
    for (Features features : Features.values()) {
      try (Simhash64 simhash = Simhash64.withTf(features)) {
        long fa = simhash.fingerprint(a);
        long fb = simhash.fingerprint(b);
        out.printf(
            Locale.ROOT,
            "%-12s likeness %.4f  distance %2d  %016x %016x%n",
            name(features),
            Simhash64.likeness(fa, fb),
            Simhash64.distance(fa, fb),
            fa,
            fb);
      }
    }
    out.flush();
    return ExitCodes.OK;
  }

  static String name(Features features) {
    return switch (features) {
      case WORDS -> "words";
      case SHINGLES_4_3 -> "shingles-4/3";
      case CHUNKS_5 -> "chunks-5";
    };
  }

  private static String read(String file) throws IOException {
    return Files.readString(Path.of(file), StandardCharsets.UTF_8);
  }
}
