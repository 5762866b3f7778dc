package org.xiaochong.eval;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.NearExplain;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.posts.PostGenerator;

/** Why the near pass left true pairs apart, for eval: the next step of recall work made visible. */
public final class LostPairs {
  private LostPairs() {}

  /**
   * The lines eval prints under a data set's table: the true pairs the near run did not join,
   * counted by first reason ({@link NearExplain}), the {@code topReasons} most frequent; for
   * generated data, per kind of record, the share joined with its cluster and the wrong removals.
   *
   * @param nearIndex the near index the run built (its keys explain each lost pair)
   */
  public static List<String> explain(
      EvalDatasets.Loaded loaded,
      DeletionPlan plan,
      FingerprintIndex nearIndex,
      NearConfig near,
      int topReasons) {
    List<String> extra = new ArrayList<>();
    Truth.UnionFind merged = Truth.UnionFind.of(plan);
    List<long[]> lost = lost(loaded, plan);
    try (DirectoryReader reader = nearIndex.openReader()) {
      extra.add(
          line(
              "method 3",
              lost.size(),
              loaded,
              new NearExplain(reader, near).reasons(lost),
              topReasons));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (loaded.kinds() == null) {
      return extra;
    }
    Map<PostGenerator.Kind, long[]> perKind = new EnumMap<>(PostGenerator.Kind.class);
    for (List<Long> cluster : loaded.truth().clusters()) {
      for (long id : cluster) {
        boolean joined = false;
        for (long other : cluster) {
          if (other != id && merged.same(id, other)) {
            joined = true;
            break;
          }
        }
        perKind.computeIfAbsent(loaded.kinds().get(id), k -> new long[3])[0]++;
        perKind.get(loaded.kinds().get(id))[1] += joined ? 1 : 0;
      }
    }
    for (int i = 0; i < plan.size(); i++) {
      long removed = plan.removedId(i);
      if (!loaded.truth().sameCluster(removed, plan.keptId(i))) {
        perKind.computeIfAbsent(loaded.kinds().get(removed), k -> new long[3])[2]++;
      }
    }
    StringBuilder line =
        new StringBuilder(
            "method 3 per kind (records in clusters of 2+: joined with their cluster / all,"
                + " wrong removals):");
    perKind.forEach(
        (kind, c) ->
            line.append(
                String.format(
                    " %s %,d/%,d (%.4f) %,d wrong;",
                    kind, c[1], c[0], c[0] == 0 ? 0.0 : (double) c[1] / c[0], c[2])));
    extra.add(line.toString());
    return extra;
  }

  /** The true pairs (record ids) a plan's groups do not join. */
  public static List<long[]> lost(EvalDatasets.Loaded loaded, DeletionPlan plan) {
    Truth.UnionFind merged = Truth.UnionFind.of(plan);
    List<long[]> lost = new ArrayList<>();
    for (List<Long> cluster : loaded.truth().clusters()) {
      for (int i = 0; i < cluster.size(); i++) {
        for (int j = i + 1; j < cluster.size(); j++) {
          if (!merged.same(cluster.get(i), cluster.get(j))) {
            lost.add(new long[] {cluster.get(i), cluster.get(j)});
          }
        }
      }
    }
    return lost;
  }

  /**
   * The line eval prints for a method's lost pairs: how many of the true pairs, then the {@code
   * topReasons} most frequent first reasons with their counts.
   */
  public static String line(
      String method,
      int lost,
      EvalDatasets.Loaded loaded,
      Map<String, Long> reasons,
      int topReasons) {
    long pairs = 0;
    for (List<Long> cluster : loaded.truth().clusters()) {
      pairs += (long) cluster.size() * (cluster.size() - 1) / 2;
    }
    StringBuilder line =
        new StringBuilder(String.format("true pairs %s lost: %,d of %,d", method, lost, pairs));
    reasons.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(topReasons)
        .forEach(e -> line.append(String.format("; %s %,d", e.getKey(), e.getValue())));
    return line.toString();
  }
}
