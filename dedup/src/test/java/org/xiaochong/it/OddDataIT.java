package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.run.DedupRunner;

/** NULL and empty fields, a 1 MB content, 4-byte UTF-8 and mixed scripts in a utf8mb4 table. */
@Tag("db")
class OddDataIT extends DbTestSupport {
  private static final String TABLE = "odd_posts";
  private static final LocalDateTime T1 = LocalDateTime.of(2024, 1, 1, 0, 0);
  private static final LocalDateTime T2 = LocalDateTime.of(2024, 2, 1, 0, 0);

  @TempDir Path dir;

  @Test
  void run_oddRows_duplicatesAmongThemRemovedOthersKept() {
    createPostsTable(TABLE);
    String big =
        "红富士苹果🍎，个大皮薄。".repeat(60_000); // ~1.2 MB of UTF-8 (TEXT holds 64 KB: use MEDIUMTEXT)
    useHandle(h -> h.execute("ALTER TABLE " + TABLE + " MODIFY content MEDIUMTEXT"));
    // 1, 2: NULL vs '' in title, product and phone: the same after normalization.
    insert(TABLE, 1, null, null, null, "只有内容", T1);
    insert(TABLE, 2, "", "", "", "只有内容", T2);
    // 3, 4: every field NULL vs every field empty (category etc. are filled by insert()).
    insert(TABLE, 3, null, null, null, null, T1);
    insert(TABLE, 4, "", " ", "", "\u3000", T2);
    // 5, 6: 1 MB content, identical but for spacing.
    insert(TABLE, 5, "大文本", "苹果", "13800138000", big, T1);
    insert(TABLE, 6, "大文本", "苹果", "138 0013 8000", big.replace("，", ", "), T2);
    // 7, 8: emoji, CJK extension B (4 bytes), Arabic, Cyrillic, Thai; full-width variant.
    String mixed = "𠮷野家 🍜 مرحبا Привет สวัสดี Ｈｅｌｌｏ";
    insert(TABLE, 7, mixed, "面", "+86 13900139000", "😀😃😄 " + mixed, T1);
    insert(TABLE, 8, mixed.replace("Ｈｅｌｌｏ", "hello"), "面", "13900139000", "😀😃😄" + mixed, T2);
    // 9: a different emoji: not a duplicate of 7/8.
    insert(TABLE, 9, mixed, "面", "13900139000", "😀😃😅 " + mixed, T2);
    // 10: lone 1 MB row, no twin.
    insert(TABLE, 10, "另一个大文本", "梨", "", big, T1);

    // The table really holds the 4-byte characters (utf8mb4), not '?'.
    String stored =
        withHandle(
            h ->
                h.createQuery("SELECT title FROM " + TABLE + " WHERE id = 7")
                    .mapTo(String.class)
                    .one());
    assertThat(stored).isEqualTo(mixed);
    long bigLength =
        withHandle(
            h ->
                h.createQuery("SELECT LENGTH(content) FROM " + TABLE + " WHERE id = 5")
                    .mapTo(Long.class)
                    .one());
    assertThat(bigLength).isGreaterThan(1_000_000);

    DedupRunner.Outcome outcome = runExact(TABLE, dir.resolve("index"), null, null, true);

    assertThat(outcome.summary().removed("exact")).isEqualTo(4);
    assertThat(ids(TABLE)).containsExactly(2L, 4L, 6L, 8L, 9L, 10L);
    List<Map<String, Object>> archived =
        withHandle(
            h ->
                h.createQuery("SELECT id, dedup_kept_id FROM " + TABLE + "_removed ORDER BY id")
                    .mapToMap()
                    .list());
    assertThat(archived)
        .extracting(m -> m.get("id"), m -> m.get("dedup_kept_id"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 2L),
                org.assertj.core.groups.Tuple.tuple(3L, 4L),
            org.assertj.core.groups.Tuple.tuple(5L, 6L),
                org.assertj.core.groups.Tuple.tuple(7L, 8L));
    // The archive kept the 4-byte characters and the 1 MB value intact.
    String archivedTitle =
        withHandle(
            h ->
                h.createQuery("SELECT title FROM " + TABLE + "_removed WHERE id = 7")
                    .mapTo(String.class)
                    .one());
    assertThat(archivedTitle).isEqualTo(mixed);
    String archivedBig =
        withHandle(
            h ->
                h.createQuery("SELECT content FROM " + TABLE + "_removed WHERE id = 5")
                    .mapTo(String.class)
                    .one());
    assertThat(archivedBig).isEqualTo(big);
  }

  @Test
  void run_cliOnOddRows_exitCode0() {
    createPostsTable(TABLE);
    insert(TABLE, 1, "🍎", null, "", "\uD83C\uDF4E𠮷", T1);
    insert(TABLE, 2, "🍎", "", null, "🍎𠮷", T2);
    insert(TABLE, 3, null, null, null, null, null);
    Path config = writeConfig(dir, TABLE, dir.resolve("index"), Map.of());

    CliRun run = cli("run", "--config", config.toString(), "--apply");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("1 duplicates removed");
    assertThat(ids(TABLE)).containsExactly(2L, 3L);
  }
}
