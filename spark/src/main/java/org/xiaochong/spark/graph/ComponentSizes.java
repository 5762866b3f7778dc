package org.xiaochong.spark.graph;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The connected components of a stage, as its report gives them: how many, the largest, and those
 * decided on the driver because they hold more records than one task should (a template shared by a
 * large part of the table joins all its posts into one component). Filled on the driver; read by
 * the report. Not thread-safe.
 */
public final class ComponentSizes implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The records {@link #decideOnDriver} collects in one job, unless one component has more. */
  private static final long BATCH_RECORDS = 100_000;

  private long components;
  private long largest;
  private int onDriver;
  private long onDriverRecords;
  private double driverSeconds;
  private final transient Map<Long, Long> giantSizes = new HashMap<>(); // on the driver

  /**
   * Counts the components of {@code component} (rows id, component) and returns, sorted, those of
   * more than {@code driverSize} records: the ones to decide on the driver.
   */
  public long[] measure(JavaPairRDD<Long, Long> component, long driverSize) {
    JavaPairRDD<Long, Long> sizes =
        component
            .mapToPair(entry -> new Tuple2<>(entry._2(), 1L))
            .reduceByKey(Long::sum)
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long[] countAndLargest =
          sizes
              .values()
              .aggregate(
                  new long[2],
                  (acc, size) -> new long[] {acc[0] + 1, Math.max(acc[1], size)},
                  (a, b) -> new long[] {a[0] + b[0], Math.max(a[1], b[1])});
      components = countAndLargest[0];
      largest = countAndLargest[1];
      List<Tuple2<Long, Long>> giants =
          countAndLargest[1] > driverSize
              ? sizes.filter(entry -> entry._2() > driverSize).collect()
              : List.of();
      onDriver = giants.size();
      onDriverRecords = giants.stream().mapToLong(Tuple2::_2).sum();
      giants.forEach(giant -> giantSizes.put(giant._1(), giant._2()));
      return giants.stream().mapToLong(Tuple2::_1).sorted().toArray();
    } finally {
      sizes.unpersist();
    }
  }

  /** Decides one component from its rows, collected on the driver. */
  @FunctionalInterface
  public interface DriverDecision<A, B> {
    void decide(List<A> members, List<B> links) throws java.io.IOException;
  }

  /**
   * Decides the components of {@code giants} (from {@link #measure}) on the driver, one at a time:
   * each component's rows of {@code members} and {@code links} (keyed by component), collected
   * whole and handed to {@code decision}, in the order of {@code giants} and of the rows. Both
   * inputs are cached while it runs; the time counts in the report.
   *
   * <p>Components are collected together, a batch of them per job, as long as a batch holds no more
   * records than the largest component or {@value #BATCH_RECORDS} (about 100 MB): the driver needs
   * little more memory than for the largest, and many small giants do not cost two Spark jobs each.
   */
  public <A, B> void decideOnDriver(
      long[] giants,
      JavaPairRDD<Long, A> members,
      JavaPairRDD<Long, B> links,
      DriverDecision<A, B> decision) {
    long start = System.nanoTime();
    members.persist(StorageLevel.MEMORY_AND_DISK());
    links.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long budget = Math.max(largest, BATCH_RECORDS);
      for (int from = 0; from < giants.length; ) {
        int to = from + 1;
        long records = records(giants[from]);
        while (to < giants.length && records + records(giants[to]) <= budget) {
          records += records(giants[to]);
          to++;
        }
        long[] batch = Arrays.copyOfRange(giants, from, to);
        Arrays.sort(batch);
        Map<Long, List<A>> batchMembers = byComponent(members, batch);
        Map<Long, List<B>> batchLinks = byComponent(links, batch);
        for (int giant = from; giant < to; giant++) {
          decision.decide(
              batchMembers.getOrDefault(giants[giant], List.of()),
              batchLinks.getOrDefault(giants[giant], List.of()));
        }
        from = to;
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      members.unpersist();
      links.unpersist();
    }
    driverSeconds += (System.nanoTime() - start) / 1e9;
  }

  /** The records of a component {@link #measure} found over the driver size (1 if none). */
  private long records(long giant) {
    return giantSizes.getOrDefault(giant, 1L);
  }

  /** The rows of the components of {@code batch} (sorted), collected, by component. */
  private static <T> Map<Long, List<T>> byComponent(JavaPairRDD<Long, T> rows, long[] batch) {
    Map<Long, List<T>> grouped = new HashMap<>();
    for (Tuple2<Long, T> row :
        rows.filter(entry -> Arrays.binarySearch(batch, entry._1()) >= 0).collect()) {
      grouped.computeIfAbsent(row._1(), component -> new ArrayList<>()).add(row._2());
    }
    return grouped;
  }

  public long components() {
    return components;
  }

  public int onDriver() {
    return onDriver;
  }

  /** The report's {@code components} object. */
  public Map<String, Object> json() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("count", components);
    json.put("largest", largest);
    json.put("on_driver", onDriver);
    json.put("on_driver_records", onDriverRecords);
    json.put("driver_seconds", Math.round(driverSeconds * 1000) / 1000.0);
    return json;
  }

  /** The console's words for them, e.g. {@code 1,234 components (largest 56 records)}. */
  public String consoleText() {
    return String.format("%,d components (largest %,d records)", components, largest)
        + (onDriver == 0
            ? ""
            : String.format(
                ", %,d of them (%,d records) decided on the driver in %.1f s",
                onDriver, onDriverRecords, driverSeconds));
  }
}
