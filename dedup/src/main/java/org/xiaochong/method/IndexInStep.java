package org.xiaochong.method;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.apache.lucene.index.DirectoryReader;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IdSet;
import org.xiaochong.index.IndexSync;
import org.xiaochong.index.RecordIndexer;
import org.xiaochong.prefilter.FilterFile;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.RecordSource;

/**
 * Keeps a fingerprint index and the counting filter of its keys in step: the filter follows the
 * index's syncs and deletes instead of being rebuilt, and is saved under the index's commit
 * generation (a filter saved under another generation is rebuilt when opened). Stateless.
 */
public final class IndexInStep {
  private IndexInStep() {}

  /**
   * The filter of {@code kind} for {@code keyIndex} at its current generation (loaded from {@code
   * <record index>/prefilter}, or rebuilt); null when the prefilter is off.
   */
  public static <F extends IndexKeyFilter> F openFilter(
      IndexKeyFilter.Kind<F> kind,
      FingerprintIndex keyIndex,
      FingerprintIndex recordIndex,
      PrefilterSettings settings,
      java.util.function.Consumer<String> notes) {
    if (!settings.enabled()) {
      return null;
    }
    try (DirectoryReader reader = keyIndex.openReader()) {
      return kind.openOrRebuild(
          filterDir(recordIndex),
          keyIndex.commitGeneration(),
          reader,
          settings.countersPerKey(),
          settings.hashes(),
          notes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Saves {@code filter} (when not null) under {@code keyIndex}'s current generation. */
  public static void saveFilter(
      IndexKeyFilter filter, FingerprintIndex keyIndex, FingerprintIndex recordIndex) {
    if (filter != null) {
      filter.save(filterDir(recordIndex), keyIndex.commitGeneration());
    }
  }

  /** Where every filter of a run is saved: {@code <index.dir>/prefilter}. */
  private static Path filterDir(FingerprintIndex recordIndex) {
    return recordIndex.path().resolve(FilterFile.DIR);
  }

  /**
   * Runs {@code sync} on {@code keyIndex} and keeps {@code filter} in step with it: the keys of the
   * records the sync took out (rows gone, and the old documents of edited rows) are taken out,
   * those of the records it indexed put in. The sync says which they are, so the ids of the two
   * readers need not be compared.
   */
  public static IndexSync.Result sync(
      FingerprintIndex keyIndex, IndexKeyFilter filter, Supplier<IndexSync.Result> sync) {
    if (filter == null) {
      return sync.get();
    }
    try (DirectoryReader before = keyIndex.openReader()) {
      IndexSync.Result result = sync.get();
      try (DirectoryReader after = keyIndex.openReader()) {
        filter.follow(before, after, result.leftIds(), result.cameIds());
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Id slices per thread of a full read for document indexes: the near index's rows cost more or
   * less to segment and the exact pass's removals are left out, so with one slice per thread one
   * thread finished about a second before the other in the 1M bench; with four the last slice is
   * short.
   */
  static final int DOCUMENT_SLICES_PER_THREAD = 4;

  /**
   * {@link #sync} of an index whose documents are made per row by {@code makers} (one maker per
   * worker thread): rows not yet in {@code keyIndex}, or changed since, are indexed, rows gone
   * taken out, and the rows in {@code skipSorted} left out; progress is shown as the stage {@code
   * stage}.
   */
  static IndexSync.Result syncDocuments(
      FingerprintIndex keyIndex,
      IndexKeyFilter filter,
      MethodContext context,
      RecordSource source,
      long[] skipSorted,
      String stage,
      Supplier<DocumentMaker> makers) {
    return sync(
        keyIndex,
        filter,
        () -> {
          long rows = context.progress() == Progress.NONE ? -1 : source.count();
          try (Progress.Stage progress = context.progress().start(stage, rows)) {
            return new IndexSync(
                    source,
                    keyIndex,
                    () -> RecordIndexer.documents(keyIndex, makers.get()),
                    context.threads())
                .skipping(IdSet.of(skipSorted))
                .slicesPerThread(DOCUMENT_SLICES_PER_THREAD)
                .withUpdatedColumn(context.updatedColumn())
                .run(progress);
          }
        });
  }

  /**
   * Deletes the records with these ids from {@code keyIndex}, commits, and takes their keys out of
   * {@code filter}.
   */
  public static void delete(FingerprintIndex keyIndex, IndexKeyFilter filter, long[] idsSorted) {
    try (DirectoryReader before = filter == null ? null : keyIndex.openReader()) {
      keyIndex.deleteIds(idsSorted, 0, idsSorted.length);
      keyIndex.commit();
      if (filter != null) {
        try (DirectoryReader after = keyIndex.openReader()) {
          filter.followDeletes(before, after, idsSorted);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
