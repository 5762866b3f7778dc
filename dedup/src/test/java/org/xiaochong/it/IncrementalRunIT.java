package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.xiaochong.it.ChangedRowsIT.pairs;
import static org.xiaochong.it.ChangedRowsIT.run;

import java.nio.file.Path;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.run.DedupRunner;

/**
 * Nightly runs: a run without a time window examines the records indexed since the last applied run
 * (its watermark in dedup_run), and decides as a full run on the same data would.
 */
@Tag("db")
class IncrementalRunIT extends DbTestSupport {
  private static final String TABLE = "nightly_posts";
  private static final LocalDateTime START = LocalDateTime.of(2024, 1, 1, 8, 0);

  @TempDir Path dir;

  private static final String[] PRODUCTS = {
    "红富士苹果", "赣南脐橙", "荷兰土豆", "金乡大蒜", "莱芜生姜", "麒麟西瓜", "巨峰葡萄", "甜糯玉米", "优质小麦", "四粒红花生", "东北大豆"
  };
  private static final String[] REGIONS = {
    "山东烟台", "江西赣州", "甘肃定西", "山东金乡", "山东莱芜", "河南开封", "辽宁大连", "吉林四平", "河北邢台", "河南正阳", "黑龙江绥化"
  };
  private static final String[] DETAILS = {
    "果面光洁无病斑单果八十五毫米以上",
    "皮薄多汁甜度高可以现场品尝",
    "个头均匀表皮光滑无青头",
    "蒜头饱满外皮洁白无霉变",
    "姜块肥大纤维少辣味足",
    "瓜瓤鲜红皮薄沙甜",
    "穗大粒满着色均匀",
    "颗粒饱满当季新货",
    "水分十三以下无杂质",
    "果仁饱满出仁率高",
    "蛋白含量高非转基因"
  };
  private static final String[] TERMS = {
    "冷库储存", "产地直供", "电商一件代发", "批发零售", "代办托运", "基地采摘", "包装可定制", "全国发货", "合作社统一收购", "烘干入库", "常年供应"
  };

  /**
   * Post variant {@code v} (0-10, each about another product from another place): posts of one
   * variant are exact copies; with an {@code extra} phrase, near copies.
   */
  private static void insertPost(String table, long id, int v, LocalDateTime time, String extra) {
    insert(
        table,
        id,
        "供应" + REGIONS[v] + PRODUCTS[v],
        PRODUCTS[v],
        String.format("1380013%04d", v),
        "本人有"
            + PRODUCTS[v]
            + "约"
            + (1000 + 37 * v)
            + "斤，产地"
            + REGIONS[v]
            + "，"
            + DETAILS[v]
            + "，"
            + TERMS[v]
            + "，联系人"
            + "张王李赵刘陈杨黄周吴郑".charAt(v)
            + "先生。"
            + extra,
        time);
  }

  /**
   * Ten variants: 0-4 three copies each (ids 1-15), 5-9 one post each (ids 16-20); later ids are
   * newer.
   */
  private static void load() {
    createPostsTable(TABLE);
    long id = 1;
    for (int v = 0; v < 10; v++) {
      for (int copy = 0; copy < (v < 5 ? 3 : 1); copy++, id++) {
        insertPost(TABLE, id, v, START.plusDays(id), "");
      }
    }
  }

  /**
   * Changes 1 in 4 of the survivors' worth of rows: new rows and UPDATEs, as a site does during a
   * day.
   */
  private static void changeRows() {
    insertPost(TABLE, 101, 5, START.plusDays(200), ""); // a newer copy of post 16
    insertPost(TABLE, 102, 10, START.plusDays(200), ""); // a new post
    insertPost(TABLE, 103, 6, START, ""); // an older copy of post 17
    // Post 18 (variant 7) is rewritten into a copy of post 19 (variant 8), and post 20 is re-dated.
    useHandle(
        h ->
            h.execute(
                "UPDATE "
                    + TABLE
                    + " t JOIN "
                    + TABLE
                    + " s ON s.id = 19 SET t.title = s.title, t.product = s.product,"
                    + " t.phone = s.phone, t.content = s.content WHERE t.id = 18"));
    useHandle(h -> h.execute("UPDATE " + TABLE + " SET reg_time = NOW() WHERE id = 20"));
  }

  private static void copyTable(String from, String to) {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS " + to);
          h.execute("DROP TABLE IF EXISTS " + to + "_removed");
          h.execute("CREATE TABLE " + to + " LIKE " + from);
          h.execute("INSERT INTO " + to + " SELECT * FROM " + from);
        });
  }

  @Test
  void nightlyRun_examinesOnlyNewAndChangedRows_andDecidesAsAFullRun() {
    load();
    DedupRunner.Outcome first = run(TABLE, dir, "exact", true, true);
    assertThat(first.summary().window()).startsWith("all records (no earlier applied");
    assertThat(first.summary().recordsExamined()).isEqualTo(20);
    assertThat(first.summary().removed("exact")).isEqualTo(10);

    changeRows();
    copyTable(TABLE, "nightly_copy");
    DedupRunner.Outcome full = run("nightly_copy", dir.resolve("copy"), "exact", false, false);

    DedupRunner.Outcome dry = run(TABLE, dir, "exact", false, true);
    assertThat(dry.summary().windowSinceRun()).isEqualTo(first.summary().runId());
    assertThat(dry.summary().window())
        .isEqualTo("records indexed since run " + first.summary().runId());
    assertThat(dry.summary().recordsExamined()).isEqualTo(5); // 3 new rows, 2 changed
    assertThat(dry.summary().indexAdded()).isEqualTo(3);
    assertThat(dry.summary().indexChanged()).isEqualTo(2);
    assertThat(pairs(dry.plan()))
        .isEqualTo(pairs(full.plan()))
        .containsExactly("103->17 EXACT", "16->101 EXACT", "18->19 EXACT");

    DedupRunner.Outcome all = run(TABLE, dir, "exact", false, false);
    assertThat(all.summary().window()).isEqualTo("all records (--full)");
    assertThat(all.summary().recordsExamined()).isEqualTo(ids(TABLE).size());
    assertThat(pairs(all.plan())).isEqualTo(pairs(full.plan()));

    DedupRunner.Outcome nightly = run(TABLE, dir, "exact", true, true);
    assertThat(nightly.summary().recordsExamined()).isEqualTo(5);
    assertThat(pairs(nightly.plan())).isEqualTo(pairs(full.plan()));

    DedupRunner.Outcome next = run(TABLE, dir, "exact", true, true);
    assertThat(next.summary().windowSinceRun()).isEqualTo(nightly.summary().runId());
    assertThat(next.summary().recordsExamined()).isZero();
    assertThat(next.plan().size()).isZero();
  }

  @Test
  void nightlyRun_withTheNearPass_decidesAsAFullRun() {
    load();
    DedupRunner.Outcome first = run(TABLE, dir, "both", true, true);
    assertThat(first.summary().removed("exact")).isEqualTo(10);
    assertThat(first.summary().removed("near")).isZero();

    // Near copies: a newer one of post 16 (which must now go) and an older one of post 17.
    insertPost(TABLE, 101, 5, START.plusDays(200), "量大从优。");
    insertPost(TABLE, 103, 6, START, "量大从优。");
    insertPost(TABLE, 102, 10, START.plusDays(200), "");
    copyTable(TABLE, "nightly_copy");
    DedupRunner.Outcome full = run("nightly_copy", dir.resolve("copy"), "both", false, false);
    assertThat(pairs(full.plan())).containsExactly("103->17 NEAR", "16->101 NEAR");

    DedupRunner.Outcome nightly = run(TABLE, dir, "both", true, true);
    assertThat(nightly.summary().windowSinceRun()).isEqualTo(first.summary().runId());
    assertThat(nightly.summary().recordsExamined()).isEqualTo(3);
    assertThat(pairs(nightly.plan())).isEqualTo(pairs(full.plan()));
  }

  @Test
  void dedupRunWithoutTheWatermarkColumns_getsThemOnTheFirstAppliedRun() {
    // dedup_run as made before watermarks (other ITs re-create it as they need it).
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS dedup_run");
          h.execute(OLD_DEDUP_RUN);
          h.execute(
              "INSERT INTO dedup_run (source_table, method, applied, status, config_digest, started_at)"
                  + " VALUES ('"
                  + TABLE
                  + "', 'exact', TRUE, 'applied', '0123456789abcdef0123456789abcdef', NOW())");
        });
    load();

    DedupRunner.Outcome dry =
        run(TABLE, dir, "exact", false, true); // reads no watermark, adds no column
    assertThat(dry.summary().windowSinceRun()).isZero();
    assertThat(columnCount()).isZero();

    DedupRunner.Outcome applied = run(TABLE, dir, "exact", true, true);
    assertThat(applied.summary().windowSinceRun()).isZero();
    assertThat(columnCount()).isEqualTo(2);
    DedupRunner.Outcome next = run(TABLE, dir, "exact", false, true);
    assertThat(next.summary().windowSinceRun()).isEqualTo(applied.summary().runId());
    assertThat(next.summary().recordsExamined()).isZero();
  }

  private static long columnCount() {
    return withHandle(
        h ->
            h.createQuery(
                    "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()"
                        + " AND table_name = 'dedup_run' AND column_name IN ('index_id', 'sync_seq')")
                .mapTo(Long.class)
                .one());
  }
}
