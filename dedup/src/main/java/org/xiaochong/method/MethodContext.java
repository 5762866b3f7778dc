package org.xiaochong.method;

import java.nio.file.Path;
import java.util.function.Consumer;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.progress.Progress;
import org.xiaochong.source.TableSpec;

/**
 * What a method needs to open its part of a run.
 *
 * @param spec the source table and its fingerprint columns
 * @param recordIndex the run's record index; a method's own index lives in {@code <its
 *     folder>/<name>}
 * @param recordDigest the record index's fields digest, the base of a method's own index digest
 * @param prefilter the prefilter settings
 * @param rebuild whether to rebuild the method's own index from the table
 * @param threads indexing threads
 * @param updatedColumn source.updated-column, or null
 * @param progress progress bars
 * @param notes one-line notes for the user (e.g. a prefilter rebuilt, and why)
 * @param settings the effective values of the config keys of methods with settings of their own
 *     ({@code near.*}, {@code simhash.*}), for each method to read its own
 * @param apart the pairs marked as not duplicates ({@code dedup_apart}): no pass or check removes
 *     one of a pair in favour of the other
 */
public record MethodContext(
    TableSpec spec,
    FingerprintIndex recordIndex,
    String recordDigest,
    PrefilterSettings prefilter,
    boolean rebuild,
    int threads,
    String updatedColumn,
    Progress progress,
    Consumer<String> notes,
    java.util.Map<String, String> settings,
    ApartPairs apart) {
  /** A context without marks ({@link ApartPairs#NONE}). */
  public MethodContext(
      TableSpec spec,
      FingerprintIndex recordIndex,
      String recordDigest,
      PrefilterSettings prefilter,
      boolean rebuild,
      int threads,
      String updatedColumn,
      Progress progress,
      Consumer<String> notes,
      java.util.Map<String, String> settings) {
    this(
        spec,
        recordIndex,
        recordDigest,
        prefilter,
        rebuild,
        threads,
        updatedColumn,
        progress,
        notes,
        settings,
        ApartPairs.NONE);
  }

  /** This context with these marks. */
  public MethodContext withApart(ApartPairs marks) {
    return new MethodContext(
        spec,
        recordIndex,
        recordDigest,
        prefilter,
        rebuild,
        threads,
        updatedColumn,
        progress,
        notes,
        settings,
        marks);
  }

  /** The folder of {@code method}'s own index: {@code <index.dir>/<name>}. */
  public Path indexDir(FingerprintMethod method) {
    return recordIndex.path().resolve(method.name());
  }
}
