package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `dedup eval` on a small generated data set, against the shared embedded server. */
@Tag("db")
class EvalIT extends DbTestSupport {
  @TempDir Path dir;

  @Test
  void generated_printsFourMethodRows_exactOnlyIsFullyPrecise() {
    Path config = writeConfig(dir, "unused", dir.resolve("index"), Map.of());

    CliRun run =
        cli(
            "eval",
            "--dataset",
            "generated",
            "--records",
            "3000",
            "--data-dir",
            dir.resolve("eval").toString(),
            "--config",
            config.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> rows = run.out().lines().filter(l -> l.matches("\\| [1234] .*")).toList();
    assertThat(rows).hasSize(4);
    for (String row : rows) {
      String[] cells = row.split("\\|");
      double precision = Double.parseDouble(cells[2].strip());
      double recall = Double.parseDouble(cells[3].strip());
      assertThat(precision).as(row).isBetween(0.0, 1.0);
      assertThat(recall).as(row).isBetween(0.0, 1.0);
    }
    assertThat(rows.get(0)).startsWith("| 1 exact then near |");
    assertThat(rows.get(1)).startsWith("| 2 exact only | 1.0000 |");
    assertThat(rows.get(2)).startsWith("| 3 near only |");
    assertThat(rows.get(3)).startsWith("| 4 simhash only |").endsWith("| - | - |");
    assertThat(tableExists("eval_generated")).isFalse();
  }

  @Test
  void realDataSet_withoutTheSharedData_isSkippedWithOneLine() {
    CliRun run =
        cli(
            "eval",
            "--dataset",
            "restaurants",
            "--shared-data",
            dir.resolve("absent").toString(),
            "--data-dir",
            dir.resolve("eval").toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out().lines().toList())
        .singleElement()
        .asString()
        .startsWith("dataset restaurants: skipped, no labelled data at");
  }
}
