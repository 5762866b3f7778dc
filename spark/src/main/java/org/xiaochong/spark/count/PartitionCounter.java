package org.xiaochong.spark.count;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.util.CollectionAccumulator;

/**
 * A count over the partitions of one RDD that a recomputed partition does not inflate. Spark's
 * {@code LongAccumulator}, updated in a transformation, adds a partition's count again each time
 * the partition is computed again: a retried or speculative task, a lost cached block, a stage
 * re-run after a fetch failure. Here each task sums its own adds and reports them once, tagged with
 * its partition, when it completes; the driver keeps one report per partition. A partition's
 * computation is deterministic in this job (the same input, the same code), so any of its reports
 * is the right one.
 *
 * <p>Use one counter per RDD whose partitions add to it (two RDDs' partition 0 would collide). Adds
 * on the driver (outside any task) are summed as they come. Thread-safe.
 */
public final class PartitionCounter implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The open sums of the tasks running in this JVM, by (counter, task attempt). */
  private static final Map<String, long[]> OPEN = new ConcurrentHashMap<>();

  private final String name;
  private final CollectionAccumulator<long[]> reports;
  private final transient AtomicLong onDriver = new AtomicLong();

  private PartitionCounter(String name, CollectionAccumulator<long[]> reports) {
    this.name = name;
    this.reports = reports;
  }

  /** A new counter named {@code name} (shown in Spark's UI). */
  public static PartitionCounter create(SparkContext context, String name) {
    return new PartitionCounter(
        name + "#" + java.util.UUID.randomUUID(), context.collectionAccumulator(name));
  }

  /** Adds {@code n} to the count of the running task's partition (or of the driver). */
  public void add(long n) {
    TaskContext task = TaskContext.get();
    if (task == null) {
      onDriver.addAndGet(n);
      return;
    }
    String key = name + "@" + task.taskAttemptId();
    long[] sum =
        OPEN.computeIfAbsent(
            key,
            k -> {
              long[] open = new long[1];
              task.addTaskCompletionListener(
                  (TaskContext done) -> {
                    OPEN.remove(k);
                    if (!done.isFailed() && !done.isInterrupted()) {
                      reports.add(new long[] {done.partitionId(), open[0]});
                    }
                  });
              return open;
            });
    sum[0] += n;
  }

  /** The count: one report per partition, plus the driver's adds. Call on the driver. */
  public long value() {
    Map<Long, Long> byPartition = new HashMap<>();
    List<long[]> all = reports.value();
    for (long[] report : all) {
      byPartition.putIfAbsent(report[0], report[1]);
    }
    long sum = onDriver == null ? 0 : onDriver.get();
    for (long count : byPartition.values()) {
      sum += count;
    }
    return sum;
  }
}
