package org.xiaochong.run;

import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSync;
import org.xiaochong.index.RecordSegmentIndexer;
import org.xiaochong.method.IndexInStep;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.prefilter.RecordKeyFilter;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.TableSpec;

/**
 * The run's record index: every row's id, time, checksum and exact key, which every run brings up
 * to date with the table first (its sync numbers give the incremental window), and the counting
 * filter of its keys, kept in step with it. Not thread-safe: one instance per run.
 */
final class RecordIndex {
  /**
   * A sync of the index and the filter that is in step with it (null when the prefilter is off).
   */
  record Synced(IndexSync.Result sync, RecordKeyFilter filter) {}

  private final FingerprintIndex index;
  private final TableSpec spec;
  private final int threads;
  private final String updatedColumn;
  private final Progress progress;
  private final PrefilterSettings settings;
  private final java.util.function.Consumer<String> notes;

  RecordIndex(
      FingerprintIndex index,
      TableSpec spec,
      int threads,
      String updatedColumn,
      Progress progress,
      PrefilterSettings settings,
      java.util.function.Consumer<String> notes) {
    this.index = index;
    this.spec = spec;
    this.threads = threads;
    this.updatedColumn = updatedColumn;
    this.progress = progress;
    this.settings = settings;
    this.notes = notes;
  }

  FingerprintIndex index() {
    return index;
  }

  /**
   * The filter of the index's keys at its current generation (loaded or rebuilt); null when
   * disabled.
   */
  RecordKeyFilter openFilter() {
    return IndexInStep.openFilter(RecordKeyFilter.KIND, index, index, settings, notes);
  }

  /**
   * Brings the index up to date with the table, telling {@code segmentKeys} the keys of the
   * segments it adds.
   */
  IndexSync.Result sync(RecordSource source, RecordSegmentIndexer.SegmentKeys segmentKeys) {
    if (updatedColumn != null) {
      source.checkUpdatedColumn(updatedColumn);
    }
    long rows = progress == Progress.NONE ? -1 : source.count();
    try (Progress.Stage stage = progress.start("index", rows)) {
      return new IndexSync(
              source, index, () -> new RecordSegmentIndexer(index, spec, segmentKeys), threads)
          .withUpdatedColumn(updatedColumn)
          .run(stage);
    }
  }

  /**
   * Brings the index up to date and {@code filter} with it ({@link IndexInStep#sync}), except on a
   * first build, where the filter is made from the keys as they are indexed rather than rebuilt
   * from the finished index.
   */
  Synced syncWithFilter(RecordSource source, RecordKeyFilter filter) {
    boolean firstBuild =
        filter != null && index.writer().getDocStats().numDocs == 0; // no reader needed
    if (!firstBuild) {
      return new Synced(
          IndexInStep.sync(
              index, filter, () -> sync(source, RecordSegmentIndexer.SegmentKeys.NONE)),
          filter);
    }
    RecordKeyFilter.Collector keys = new RecordKeyFilter.Collector();
    IndexSync.Result sync = sync(source, keys);
    return new Synced(sync, keys.filter(settings.countersPerKey(), settings.hashes()));
  }

  /** Deletes these ids from the index, commits, and takes their keys out of {@code filter}. */
  void delete(RecordKeyFilter filter, long[] idsSorted) {
    IndexInStep.delete(index, filter, idsSorted);
  }

  void save(RecordKeyFilter filter) {
    IndexInStep.saveFilter(filter, index, index);
  }
}
