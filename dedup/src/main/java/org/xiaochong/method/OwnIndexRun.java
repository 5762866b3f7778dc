package org.xiaochong.method;

import java.util.OptionalLong;
import java.util.function.Supplier;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSync;
import org.xiaochong.prefilter.IndexKeyFilter;
import org.xiaochong.source.RecordSource;

/**
 * The run of a method that keeps an index of its own ({@code <index.dir>/<name>}) and, optionally,
 * a counting filter of its keys: whether the index was empty when opened, the sync of its
 * documents, the deletes of an applied run and the filter's save, all kept in step by {@link
 * IndexInStep}. A method adds its {@link #sync} (which document maker, under what resources) and
 * its {@link #pass}. Not thread-safe: one instance per run.
 *
 * @param <F> the type of its filter
 */
public abstract class OwnIndexRun<F extends IndexKeyFilter> implements MethodRun {
  protected final MethodContext context;
  protected final FingerprintIndex index;
  private final F filter;
  private final boolean indexIsNew;
  private long indexAdded;

  /**
   * Takes over {@code index}: {@link #close} closes it, and so does this constructor when it fails.
   *
   * @param filterKind the kind of its key filter, or null for none (the filter is also null when
   *     the prefilter is off)
   */
  protected OwnIndexRun(
      MethodContext context, FingerprintIndex index, IndexKeyFilter.Kind<F> filterKind) {
    this.context = context;
    this.index = index;
    try {
      this.indexIsNew = index.writer().getDocStats().numDocs == 0;
      this.filter =
          filterKind == null
              ? null
              : IndexInStep.openFilter(
                  filterKind, index, context.recordIndex(), context.prefilter(), context.notes());
    } catch (RuntimeException e) {
      index.close();
      throw e;
    }
  }

  /** Its key filter; null when it has none or the prefilter is off. */
  protected final F filter() {
    return filter;
  }

  /** Documents the last {@link #syncDocuments} added (0 before it). */
  protected final long indexAdded() {
    return indexAdded;
  }

  /**
   * Brings the index and its filter up to date with the table ({@link IndexInStep#syncDocuments}),
   * documents made by {@code makers} (one maker per worker thread), progress shown as {@code
   * stage}.
   */
  protected final OptionalLong syncDocuments(
      RecordSource source, long[] skipSorted, String stage, Supplier<DocumentMaker> makers) {
    IndexSync.Result result =
        IndexInStep.syncDocuments(index, filter, context, source, skipSorted, stage, makers);
    indexAdded = result.added();
    return OptionalLong.of(result.added());
  }

  @Override
  public final boolean ownsIndex() {
    return true;
  }

  @Override
  public final boolean indexIsNew() {
    return indexIsNew;
  }

  @Override
  public final void delete(long[] idsSorted) {
    IndexInStep.delete(index, filter, idsSorted);
  }

  @Override
  public final void save() {
    IndexInStep.saveFilter(filter, index, context.recordIndex());
  }

  @Override
  public void close() {
    index.close();
  }
}
