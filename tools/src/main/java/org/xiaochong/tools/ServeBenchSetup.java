package org.xiaochong.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.cli.ConsoleProgress;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.source.Database;

/**
 * The table, index and records to check of {@code dedup bench serve}, in its data folder: the
 * records to check are the last rows generated, taken out of the table as JSON lines (ids and times
 * kept), and the index is built on the rest. Not thread-safe.
 */
final class ServeBenchSetup {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ServeBenchSetup() {}

  /**
   * Generates the posts, takes the last {@code checks} out as the records, builds the index on the
   * rest.
   */
  static void prepare(
      PrintWriter out, DedupConfig config, Path checkFile, long records, int checks, long seed)
      throws IOException {
    EvalCommand.deleteTree(config.indexDir());
    Files.createDirectories(checkFile.getParent());
    try (Database database = Database.open(config.db())) {
      Progress progress = ConsoleProgress.forThisProcess();
      try (Progress.Stage stage = progress.start("load", records + checks)) {
        PostLoader.reload(
            database,
            seed,
            records + checks,
            GenerateCommand.vocabulary("realistic"),
            null,
            stage,
            post -> {});
      }
      String id = config.table().idColumn();
      List<String> lines =
          recordLines(database, config, "ORDER BY " + id + " DESC LIMIT " + checks);
      List<String> ordered = new ArrayList<>(lines);
      java.util.Collections.reverse(ordered);
      Files.write(checkFile, ordered, StandardCharsets.UTF_8);
      long firstCheck = JSON.readTree(ordered.get(0)).get(id).asLong();
      database
          .jdbi()
          .useHandle(
              h ->
                  h.execute(
                      "DELETE FROM " + config.table().table() + " WHERE " + id + " >= ?",
                      firstCheck));
      long start = System.nanoTime();
      try (FingerprintIndex index = ConfiguredIndex.open(config, true)) {
        ConfigOptions.runner(config, database, index, progress, out::println)
            .run(new DedupRunner.Options("exact,near", null, null, false, true, false));
      }
      out.printf(
          "index: %,d rows by run --method exact,near in %.1f s; %,d records to check in %s%n",
          records, (System.nanoTime() - start) / 1e9, ordered.size(), checkFile);
    }
  }

  /**
   * Rows of the table as the records a client sends (JSON: the id, the fingerprint columns, the
   * time), in the order of {@code clause} (what follows {@code SELECT * FROM table}).
   */
  static List<String> recordLines(Database database, DedupConfig config, String clause) {
    List<String> columns = config.table().fingerprintColumns();
    String id = config.table().idColumn();
    String time = config.table().timeColumn();
    return database
        .jdbi()
        .withHandle(
            h ->
                h.createQuery("SELECT * FROM " + config.table().table() + " " + clause)
                    .map(
                        (rs, ctx) -> {
                          ObjectNode record = JSON.createObjectNode();
                          record.put(id, rs.getLong(id));
                          for (String column : columns) {
                            record.put(column, rs.getString(column));
                          }
                          LocalDateTime at = rs.getObject(time, LocalDateTime.class);
                          record.put(time, at == null ? null : at.toString());
                          return record.toString();
                        })
                    .list());
  }
}
