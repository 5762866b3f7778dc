package org.xiaochong.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.cli.DedupConfig;
import org.xiaochong.index.FingerprintIndex;

class DeduplicatorTest {
  private static DedupConfig config(Path index, String nearFields) {
    Properties props = new Properties();
    props.setProperty("index.dir", index.toString());
    props.setProperty("fields.near", nearFields);
    return DedupConfig.fromProperties(props, Map.of());
  }

  /** A record index only (as a first exact run leaves it): no method has an index of its own. */
  private static DedupConfig recordIndexOnly(Path dir, String nearFields) {
    DedupConfig config = config(dir.resolve("index"), nearFields);
    FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), false).close();
    return config;
  }

  @Test
  void open_methodsWithNothingBuilt_eachSaysWhatIsMissingOnce(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "title,content");
    List<String> notes = new ArrayList<>();
    try (Deduplicator dedup =
        Deduplicator.open(config, new Deduplicator.Options(null, false, notes::add))) {
      assertThat(dedup.methods()).containsExactly("exact");
      // Each method that applies to the table words its own absence: near (built in) and the
      // tests' minhash (found on the class path), asked through the method, not by name.
      assertThat(notes)
          .contains(
              "check: no near index yet (`dedup run --method near|both` builds it):"
                  + " exact verdicts only",
              "check: no minhash index yet (`dedup run --method minhash` builds it)");
      int before = notes.size();
      dedup.check(new Deduplicator.Record(1L, Map.of("title", "供应红富士苹果"), 0L));
      assertThat(notes).as("a check does not repeat the notes").hasSize(before);
    }
  }

  @Test
  void open_methodsThatDoNotApplyToTheTable_sayNothing(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    List<String> notes = new ArrayList<>();
    try (Deduplicator dedup =
        Deduplicator.open(config, new Deduplicator.Options(null, false, notes::add))) {
      assertThat(dedup.methods()).containsExactly("exact");
      assertThat(notes).noneMatch(note -> note.contains("index yet"));
    }
  }
}
