package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ArchiveStore;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.demo.PostLoader;
import org.xiaochong.source.Database;
import org.xiaochong.source.DbSettings;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * The plan is written with LOAD DATA LOCAL INFILE on the embedded server and with batched INSERTs on
 * any other: both give the same dedup_plan rows, in removed-id order.
 */
@Tag("db")
class PlanWriteIT extends DbTestSupport {
  @TempDir Path dir;

  @Test
  void writePlan_loadDataAndInsert_sameRows() {
    PostLoader.recreateTable(database());
    TableSpec spec = TableSpec.sample();
    List<String> columns = new RecordSource(database(), spec).checkSchema();
    DeletionPlan plan = new DeletionPlan();
    // More rows than one LOAD DATA chunk (50,000), ids out of order, both rules, fractional scores.
    for (int i = 0; i < 120_003; i++) {
      long removed = (i * 7919L) % 1_000_003 + 1;
      plan.add(removed, removed + 2_000_000, i % 3 == 0 ? DeletionPlan.Rule.NEAR : DeletionPlan.Rule.EXACT,
          i % 3 == 0 ? 0.6 + (i % 97) / 250.0 : 1.0);
    }

    ArchiveStore embedded = new ArchiveStore(database(), spec);
    embedded.ensureTables(columns);
    long loadedRun = embedded.startRun("both", true, "0".repeat(32), null, null);
    embedded.writePlan(loadedRun, plan);
    List<List<Object>> loaded = planRows(loadedRun);

    long insertedRun;
    try (Database external = Database.open(new DbSettings(jdbcUrl(), "root", null, dir))) {
      assertThat(external.isEmbedded()).isFalse();
      ArchiveStore viaJdbcUrl = new ArchiveStore(external, spec);
      viaJdbcUrl.ensureTables(columns);
      insertedRun = viaJdbcUrl.startRun("both", true, "0".repeat(32), null, null);
      viaJdbcUrl.writePlan(insertedRun, plan);
    }
    List<List<Object>> inserted = planRows(insertedRun);

    assertThat(loaded).hasSize(plan.size()).isEqualTo(inserted);
    int[] order = plan.orderByRemovedId();
    for (int seq : new int[] {0, 49_999, 50_000, 120_002}) {
      int i = order[seq];
      assertThat(loaded.get(seq)).containsExactly(seq, plan.removedId(i), plan.keptId(i), plan.rule(i).label, plan.score(i));
    }
  }

  private static List<List<Object>> planRows(long runId) {
    return withHandle(h -> h.createQuery(
            "SELECT seq, removed_id, kept_id, rule, score FROM dedup_plan WHERE run_id = ? ORDER BY seq")
        .bind(0, runId)
        .map((rs, ctx) -> List.<Object>of(rs.getInt(1), rs.getLong(2), rs.getLong(3), rs.getString(4), rs.getDouble(5)))
        .list());
  }
}
