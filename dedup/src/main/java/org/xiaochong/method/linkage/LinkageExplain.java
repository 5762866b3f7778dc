package org.xiaochong.method.linkage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.source.TableSpec;

/**
 * Why the linkage method did not join two records of its index, for {@code eval}'s report of the
 * true pairs a run lost: the first reason in this order.
 *
 * <ul>
 *   <li>{@code not indexed}: a record is not in the linkage index;
 *   <li>{@code not a candidate}: neither record is among the other's candidates ({@link
 *       CandidateFinder}), so the pass never compares them;
 *   <li>{@code probability below the threshold, most against: C}: compared, and the model weighs
 *       them below {@code linkage.threshold}; C is the column whose level weighs most against the
 *       pair (or {@code none} when no column does);
 *   <li>{@code linked, grouped apart}: the pair reaches the threshold, but its records ended in
 *       different groups, or one stayed as too far from its group's kept record ({@link
 *       LinkageGroups}).
 * </ul>
 *
 * Reads the index as the run left it; not thread-safe.
 */
public final class LinkageExplain implements AutoCloseable {
  private final DirectoryReader reader;
  private final LinkageModel model;
  private final double threshold;
  private final LinkagePass pass;
  private final CandidateFinder finder;
  private final int[] found;
  private final Map<Long, Integer> docOfId = new HashMap<>();

  private LinkageExplain(
      DirectoryReader reader, ColumnSet columns, LinkageModel model, LinkageSettings settings) {
    this.reader = reader;
    this.model = model;
    this.threshold = settings.threshold();
    IndexSnapshot snapshot = new IndexSnapshot(reader);
    this.pass = new LinkagePass(snapshot, settings, columns.kinds(), ApartPairs.NONE);
    this.finder = pass.finder();
    this.found = new int[settings.candidates()];
    for (int doc = 0; doc < reader.maxDoc(); doc++) {
      if (pass.isLive(doc)) {
        docOfId.put(snapshot.id(doc), doc);
      }
    }
  }

  /**
   * The explainer of the linkage index in {@code methodIndexDir} with the kinds and model saved
   * there, or empty when no run built them.
   */
  public static Optional<LinkageExplain> open(
      Path methodIndexDir, TableSpec spec, Map<String, String> settings) {
    if (!ColumnSet.exists(methodIndexDir) || !LinkageModel.exists(methodIndexDir)) {
      return Optional.empty();
    }
    try {
      DirectoryReader reader = DirectoryReader.open(FSDirectory.open(methodIndexDir));
      return Optional.of(
          new LinkageExplain(
              reader,
              ColumnSet.load(methodIndexDir),
              LinkageModel.load(methodIndexDir),
              LinkageSettings.of(settings, spec)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The pairs (record ids) counted by their first reason. */
  public Map<String, Long> reasons(List<long[]> pairs) {
    Map<String, Long> counts = new TreeMap<>();
    for (long[] pair : pairs) {
      counts.merge(reason(pair[0], pair[1]), 1L, Long::sum);
    }
    return counts;
  }

  /** The first reason the pass left the records {@code a} and {@code b} apart. */
  public String reason(long a, long b) {
    Integer docA = docOfId.get(a);
    Integer docB = docOfId.get(b);
    if (docA == null || docB == null) {
      return "not indexed";
    }
    if (!finds(docA, docB) && !finds(docB, docA)) {
      return "not a candidate";
    }
    int[] levels = pass.levels(docA, docB);
    if (model.probability(levels) >= threshold) {
      return "linked, grouped apart";
    }
    String against = "none";
    double least = 0;
    for (PairEvidence.Column column : model.chart(levels).columns()) {
      if (column.weight() < least) {
        least = column.weight();
        against = column.column();
      }
    }
    return "probability below the threshold, most against: " + against;
  }

  private boolean finds(int self, int other) {
    int n = pass.candidates(finder, self, found);
    for (int i = 0; i < n; i++) {
      if (found[i] == other) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
