package org.xiaochong.method.near;

import java.util.Map;
import org.xiaochong.method.near.fingerprint.NearKeyTimes;

/**
 * The near pass's work in one run.
 *
 * @param examined live records of the window
 * @param removed records the near pass planned for removal
 * @param skippedExact records of the window an earlier method had removed
 * @param lookups key lookups (top-pre keys of the examined records)
 * @param candidates kept records compared with an examined record
 * @param empty records of the window without fingerprints, per reason (exact pass only)
 * @param truncated records of the window cut to near.max-chars (fingerprinted on their start)
 * @param repointed earlier removals re-pointed to the near survivor of their kept record
 * @param indexAdded near index documents added by the sync
 * @param keyTimes where the sync's fingerprinting time went, per key family ({@link
 *     NearKeyTimes.Snapshot#NONE} when nothing was fingerprinted)
 */
public record NearStats(
    long examined,
    long removed,
    long skippedExact,
    long lookups,
    long candidates,
    Map<String, Long> empty,
    long truncated,
    long repointed,
    long indexAdded,
    NearKeyTimes.Snapshot keyTimes) {
  public long emptyTotal() {
    return empty.values().stream().mapToLong(Long::longValue).sum();
  }
}
