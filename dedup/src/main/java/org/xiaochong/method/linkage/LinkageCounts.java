package org.xiaochong.method.linkage;

/**
 * What a linkage pass did, for its report: the single machine's pass and the Spark job's count the
 * same things.
 *
 * @param examined live records of the window
 * @param removed removals this pass added
 * @param skipped records of the window an earlier method of the run had removed
 * @param candidates candidate pairs scored
 * @param links pairs at or above the threshold
 * @param groups groups of two or more records
 * @param indirect group members kept because their own match probability with the kept record is
 *     below the threshold, and so is their probability with every record kept when those left were
 *     regrouped ({@value LinkageGroups#REGROUP_ROUNDS} rounds)
 * @param postings postings read by the candidate lookups
 */
public record LinkageCounts(
    long examined,
    long removed,
    long skipped,
    long candidates,
    long links,
    long groups,
    long indirect,
    long postings) {}
