package org.xiaochong.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.archive.RunWatermark;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.pass.Window;

/**
 * The window of a run, how to describe it, and the applied run whose watermark it starts from (0:
 * none).
 */
record ChosenWindow(Window window, String description, long sinceRun) {

  /**
   * The records the passes examine. A time window (--since/--until) as given; otherwise, when the
   * options ask for it, the records indexed (added or changed) since the last applied run of this
   * table with this index covering each of the run's methods (from the oldest of those runs, so
   * each pass sees all it has not seen), against the whole index; all records without such a run (a
   * first run, another or rebuilt index, a method's new index) or when not incremental (--full).
   * Rows an applied run planned but did not move were dropped from the index with the rest of its
   * plan, so the next sync indexes them again with a new sync number: they are examined again.
   *
   * @param index the record index
   * @param newIndexOf the selected method whose own index is new, or null
   */
  static ChosenWindow choose(
      DedupRunner.Options options,
      RunWatermark watermark,
      FingerprintIndex index,
      String newIndexOf) {
    if (!options.fromWatermark()) {
      if (options.since() == null && options.until() == null) {
        return new ChosenWindow(
            Window.ALL, "all records" + (options.incremental() ? "" : " (--full)"), 0);
      }
      return new ChosenWindow(
          options.window(),
          "records with time "
              + (options.since() == null
                  ? ""
                  : "from " + options.since().toString().replace('T', ' ') + " ")
              + (options.until() == null
                  ? ""
                  : "until " + options.until().toString().replace('T', ' ')),
          0);
    }
    Optional<RunWatermark.Mark> mark = Optional.empty();
    for (FingerprintMethod method : options.methods()) {
      Optional<RunWatermark.Mark> last =
          watermark.last(
              index.indexId(), label -> FingerprintMethods.namesOf(label).contains(method.name()));
      if (last.isEmpty()) {
        mark = Optional.empty();
        break;
      }
      if (mark.isEmpty() || last.get().syncSeq() < mark.get().syncSeq()) {
        mark = last;
      }
    }
    if (mark.isEmpty()) {
      return new ChosenWindow(
          Window.ALL,
          "all records (no earlier applied " + options.label() + " run with this index)",
          0);
    }
    if (newIndexOf != null) {
      return new ChosenWindow(Window.ALL, "all records (the " + newIndexOf + " index is new)", 0);
    }
    long seq = mark.get().syncSeq();
    try (DirectoryReader reader = index.openReader()) {
      return new ChosenWindow(
          Window.ofIds(FingerprintIndex.liveIdsIndexedAfter(reader, seq)),
          "records indexed since run " + mark.get().runId(),
          mark.get().runId());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
