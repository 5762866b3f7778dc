package org.xiaochong.method;

import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.prefilter.ExactKeyFilter;

/**
 * The run's record index, up to date with the table when a pass starts: every row's id, time,
 * checksum and exact key ({@code fields.exact}), and the counting filter of those keys.
 *
 * @param index the record index (the pass only reads it)
 * @param filter the filter of its keys, in step with it; null when the prefilter is off
 */
public record RecordKeys(FingerprintIndex index, ExactKeyFilter filter) {}
