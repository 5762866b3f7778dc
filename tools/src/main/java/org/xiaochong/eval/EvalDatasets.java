package org.xiaochong.eval;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.xiaochong.load.TableLoader;
import org.xiaochong.posts.PostGenerator;
import org.xiaochong.source.Database;
import org.xiaochong.source.TableSpec;

/**
 * The labelled data sets of {@code eval}, each loaded into a table of its own with its truth
 * (clusters or pairs) kept apart: label columns are never loaded, so the matcher cannot see them.
 * Generated posts come from {@link PostGenerator}; the real sets ({@link RealDatasets}) from the
 * shared data folder (restaurants, cora and freedb with their pair files, febrl's rec_id clusters,
 * childcare's True Id, PATSTAT's leuven_id, PAWS-X zh sentence pairs). Not thread-safe.
 */
public final class EvalDatasets {
  /**
   * A loaded data set: its table, truth, fields, (pawsx) pairs with their labels and (generated)
   * the generator's kind of each record.
   */
  public record Loaded(
      String table,
      Truth truth,
      List<String> exact,
      List<String> near,
      List<long[]> pairs,
      List<Boolean> pairLabels,
      String note,
      java.util.Map<Long, PostGenerator.Kind> kinds) {
    Loaded(
        String table,
        Truth truth,
        List<String> exact,
        List<String> near,
        List<long[]> pairs,
        List<Boolean> pairLabels,
        String note) {
      this(table, truth, exact, near, pairs, pairLabels, note, null);
    }
  }

  private final long seed;
  private final long records;
  private final double exactShare;
  private final PostGenerator.Vocabulary vocabulary;
  private final long maxRecords;
  private final RealDatasets real;

  /**
   * @param seed seed of the generated posts
   * @param records generated posts
   * @param exactShare chance that a generated duplicate is an exact copy
   * @param maxRecords cap on the records loaded from a real set (0: all)
   */
  public EvalDatasets(long seed, long records, double exactShare, long maxRecords) {
    this(seed, records, exactShare, PostGenerator.Vocabulary.LEGACY, maxRecords);
  }

  /**
   * @param vocabulary words of the generated posts
   */
  public EvalDatasets(
      long seed,
      long records,
      double exactShare,
      PostGenerator.Vocabulary vocabulary,
      long maxRecords) {
    this.seed = seed;
    this.records = records;
    this.exactShare = exactShare;
    this.vocabulary = vocabulary;
    this.maxRecords = maxRecords;
    this.real = new RealDatasets(maxRecords);
  }

  public Loaded load(Database database, String name, Path shared) throws IOException {
    String table = "eval_" + name;
    drop(database, table);
    return switch (name) {
      case "generated" -> loadGenerated(database, table);
      default -> real.load(database, table, name, shared);
    };
  }

  public Loaded loadGenerated(Database database, String table) {
    List<String> columns = TableSpec.SAMPLE_TEXT_COLUMNS;
    Truth truth = new Truth();
    java.util.Map<Long, PostGenerator.Kind> kinds = new java.util.HashMap<>();
    try (TableLoader loader = new TableLoader(database, table, "id", "reg_time", columns)) {
      new PostGenerator(seed, records, exactShare, vocabulary)
          .generate(
              records,
              p -> {
                kinds.put(p.id(), p.kind());
                loader.add(
                    p.id(),
                    p.regTime(),
                    new String[] {
                      p.title(),
                      p.category(),
                      p.product(),
                      p.region(),
                      p.price(),
                      p.contact(),
                      p.phone(),
                      p.content()
                    });
                truth.add(p.id(), "g" + p.cluster());
              });
      loader.finish();
    }
    return new Loaded(
        table,
        truth,
        columns,
        List.of("title", "product", "content"),
        null,
        null,
        " (seed "
            + seed
            + ", exact share "
            + exactShare
            + ", "
            + vocabulary.label()
            + " vocabulary)",
        kinds);
  }

  public static void drop(Database database, String table) {
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(table));
              h.execute("DROP TABLE IF EXISTS " + TableSpec.quote(table + "_removed"));
            });
  }
}
