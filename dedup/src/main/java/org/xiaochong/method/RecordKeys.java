package org.xiaochong.method;

import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.prefilter.GroupPrefilter;

/**
 * The run's record index, up to date with the table when a pass starts: every row's id, time, keep
 * rank, checksum and key (the md5 of its normalized {@code fields.exact}), and a filter of those
 * keys that the runner keeps in step with it. A pass reads what it needs of them; a method whose
 * keys are its own reads only the ids and times.
 *
 * @param index the record index (the pass only reads it)
 * @param keyFilter asked before a lookup of a record's key: {@code false} promises the key has no
 *     other record; {@link GroupPrefilter#NONE} (also for null) when the prefilter is off
 */
public record RecordKeys(FingerprintIndex index, GroupPrefilter keyFilter) {
  public RecordKeys {
    keyFilter = keyFilter == null ? GroupPrefilter.NONE : keyFilter;
  }
}
