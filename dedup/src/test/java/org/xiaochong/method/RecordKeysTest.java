package org.xiaochong.method;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import org.apache.commons.codec.digest.DigestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.pass.Window;
import org.xiaochong.prefilter.GroupPrefilter;

/**
 * The record index a pass gets names no method's types: its key filter is any {@link
 * GroupPrefilter}, and the exact pass asks that one before each lookup.
 */
class RecordKeysTest {
  private static final byte[] KEY_A = DigestUtils.md5("a");
  private static final byte[] KEY_B = DigestUtils.md5("b");

  @TempDir Path dir;

  /** Twins 1, 2 (key a) and 3, 4 (key b); the exact pass over them with {@code keyFilter}. */
  private DeletionPlan exactPass(GroupPrefilter keyFilter) {
    DedupConfig config = DedupConfig.fromProperties(new Properties(), Map.of());
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("index"), "test", true)) {
      index.add(1, 1000, KEY_A);
      index.add(2, 2000, KEY_A);
      index.add(3, 1000, KEY_B);
      index.add(4, 2000, KEY_B);
      index.commit();
      MethodContext context = config.methodContext(index, note -> {});
      DeletionPlan plan = new DeletionPlan();
      try (MethodRun run = FingerprintMethods.parse("exact").get(0).open(context)) {
        run.pass(new RecordKeys(index, keyFilter), plan, Window.ALL);
      }
      return plan;
    }
  }

  @Test
  void exactPass_noKeyFilter_removesEveryOlderTwin() {
    assertThat(exactPass(GroupPrefilter.NONE).removedIdsSorted()).containsExactly(1, 3);
    assertThat(exactPass(null).removedIdsSorted()).as("null is no filter").containsExactly(1, 3);
  }

  @Test
  void exactPass_keyFilterOfAnyKind_skipsTheKeysItRulesOut() {
    GroupPrefilter notA = md5 -> !Arrays.equals(md5, KEY_A);

    assertThat(exactPass(notA).removedIdsSorted()).containsExactly(3);
  }
}
