package org.xiaochong.serve;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.io.OutputStream;
import java.util.function.LongSupplier;

/**
 * The service's metrics, in the Prometheus text format ({@code GET /metrics}) by the official
 * Prometheus Java client: requests by endpoint and status, verdicts by kind and keep decision,
 * request latency and group-commit duration as histograms, and the records of the index.
 * Thread-safe (the client's metrics are).
 */
final class ServiceMetrics {
  /**
   * Latency buckets, in seconds: a single-record check answers in about a millisecond, a batch of
   * 100 in tens of milliseconds, an add waits for a commit (an fsync, a few to tens of
   * milliseconds).
   */
  private static final double[] LATENCY_BUCKETS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final Counter requests;
  private final Counter verdicts;
  private final Counter records;
  private final Histogram latency;

  /**
   * @param indexedRecords the records of the index now (read at each scrape)
   * @param commits the group commits made so far
   */
  ServiceMetrics(LongSupplier indexedRecords, LongSupplier commits) {
    requests =
        Counter.builder()
            .name("xiaochong_http_requests_total")
            .help("HTTP requests answered, by endpoint and status code")
            .labelNames("endpoint", "status")
            .register(registry);
    verdicts =
        Counter.builder()
            .name("xiaochong_verdicts_total")
            .help(
                "Verdicts given, by verdict (new, exact, near, simhash) and by what the keep policy keeps (new, existing)")
            .labelNames("verdict", "keep")
            .register(registry);
    records =
        Counter.builder()
            .name("xiaochong_records_added_total")
            .help(
                "Records added to the index (new ones and duplicates kept over their twin), committed")
            .register(registry);
    latency =
        Histogram.builder()
            .name("xiaochong_request_seconds")
            .unit(Unit.SECONDS)
            .help("Time from a request's arrival to its answer, by endpoint")
            .labelNames("endpoint")
            .classicOnly()
            .classicUpperBounds(LATENCY_BUCKETS)
            .register(registry);
    io.prometheus.metrics.core.metrics.CounterWithCallback.builder()
        .name("xiaochong_commits_total")
        .help(
            "Index commits made for adds; one covers the adds of every request waiting for it (group commit)")
        .callback(callback -> callback.call(commits.getAsLong()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("xiaochong_index_records")
        .help("Live records of the record index (at its last open, plus those added since)")
        .callback(callback -> callback.call(indexedRecords.getAsLong()))
        .register(registry);
  }

  void request(String endpoint, int status, long startNanos) {
    requests.labelValues(endpoint, Integer.toString(status)).inc();
    latency.labelValues(endpoint).observe((System.nanoTime() - startNanos) / 1e9);
  }

  void verdict(String verdict, String keep, boolean added) {
    verdicts.labelValues(verdict, keep).inc();
    if (added) {
      records.inc();
    }
  }

  String contentType() {
    return PrometheusTextFormatWriter.CONTENT_TYPE;
  }

  void write(OutputStream out) throws IOException {
    writer.write(out, registry.scrape());
  }
}
