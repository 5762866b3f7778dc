package org.xiaochong.report;

import java.util.Map;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.method.PairEvidence;
import org.xiaochong.run.RunSummary;
import org.xiaochong.source.TableSpec;

/**
 * The run a report describes, as each of its sections reads it.
 *
 * @param summary what the run did
 * @param plan its decisions
 * @param spec the table it ran on
 * @param thresholds the threshold of each method that decides by a similarity ({@link
 *     HtmlReport#thresholds})
 * @param evidence the pair charts of each method that weighs columns, by method name
 */
record ReportedRun(
    RunSummary summary,
    DeletionPlan plan,
    TableSpec spec,
    Map<String, Double> thresholds,
    Map<String, PairEvidence> evidence) {}
