package org.xiaochong.method;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.util.FixedBitSet;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PairCheck;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.policy.KeepPolicy;

/**
 * A fingerprint method for tests only, registered through {@code META-INF/services} as a new method
 * would be: the records with ids 10k+1 and 10k+2 count as duplicates when both are live, and the
 * less preferred of the two ({@link KeepPolicy}) is removed. It reads only the record index, so it
 * shows what the seam asks of a method and nothing else.
 */
public final class NeighbourPairsMethod implements FingerprintMethod {
  /** The method's name, its rule label and its summary section. */
  public static final String NAME = "pairs";

  /** Whether {@code id} is the first of a pair this method looks at. */
  public static boolean firstOfPair(long id) {
    return id % 10 == 1;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String formatVersion() {
    return "pairs/1";
  }

  /** Its rule for two rows: the ids of a pair, whatever the rows hold. */
  @Override
  public PairCheck openPairCheck(MethodContext context) {
    return (removed, kept) ->
        Math.min(removed.id(), kept.id()) + 1 == Math.max(removed.id(), kept.id())
            && firstOfPair(Math.min(removed.id(), kept.id()));
  }

  @Override
  public MethodRun open(MethodContext context) {
    return (RecordIndexRun) NeighbourPairsMethod::pass;
  }

  private static MethodReport pass(RecordKeys records, DeletionPlan plan, Window window) {
    try (DirectoryReader reader = records.index().openReader()) {
      IndexSnapshot snapshot = new IndexSnapshot(reader);
      FixedBitSet live = snapshot.windowDocs(Window.ALL);
      FixedBitSet examined = snapshot.windowDocs(window);
      Map<Long, Integer> docOf = new HashMap<>();
      for (int doc = live.nextSetBit(0);
          doc != -1;
          doc = doc + 1 < live.length() ? live.nextSetBit(doc + 1) : -1) {
        docOf.put(snapshot.id(doc), doc);
      }
      long[] planned = plan.removedIdsSorted();
      long pairs = 0;
      for (int doc = examined.nextSetBit(0);
          doc != -1;
          doc = doc + 1 < examined.length() ? examined.nextSetBit(doc + 1) : -1) {
        long id = snapshot.id(doc);
        long first = firstOfPair(id) ? id : firstOfPair(id - 1) ? id - 1 : 0;
        Integer a = docOf.get(first);
        Integer b = docOf.get(first + 1);
        if (first == 0 || a == null || b == null || (first != id && examined.get(a))) {
          continue; // not a pair, or its first record handles it
        }
        if (Arrays.binarySearch(planned, first) >= 0
            || Arrays.binarySearch(planned, first + 1) >= 0) {
          continue;
        }
        boolean keepA =
            KeepPolicy.isPreferred(snapshot.rank(a), first, snapshot.rank(b), first + 1);
        int kept = keepA ? a : b;
        int removed = keepA ? b : a;
        plan.add(
            snapshot.id(removed),
            snapshot.id(kept),
            DeletionPlan.Rule.of(NAME),
            1.0,
            snapshot.state(removed),
            snapshot.state(kept));
        pairs++;
      }
      return new Report(examined.cardinality(), pairs);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Report(long examined, long pairs) implements MethodReport {
    @Override
    public Map<String, Object> json(long removed) {
      return Map.of("removed", removed, "pairs", pairs);
    }

    @Override
    public String consoleLine(long removed, boolean applied) {
      return String.format(
          "pairs: %,d pairs, %,d %s", pairs, removed, applied ? "removed" : "to remove");
    }
  }
}
