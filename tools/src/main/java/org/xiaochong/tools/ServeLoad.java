package org.xiaochong.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The load of {@code dedup bench serve}: concurrent clients posting records to a running service
 * over loopback HTTP, timing each request. Any answer but a 200 fails the pass. Not thread-safe:
 * one pass at a time.
 */
final class ServeLoad {
  private static final ObjectMapper JSON = new ObjectMapper();

  // HTTP/1.1, as the service speaks: the JDK client's default offers an h2c upgrade on each new
  // connection.
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final int clients;

  /**
   * The {@code p}th percentile of {@code values} by nearest rank (p 100: the largest); NaN when
   * there are none.
   */
  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int at = (int) Math.ceil(p / 100 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, at))];
  }

  ServeLoad(int clients) {
    this.clients = clients;
  }

  /** The verdicts of one pass and each request's latency. */
  record Timing(
      List<JsonNode> verdicts,
      double seconds,
      double cpuSeconds,
      double load,
      double[] latencyMillis) {
    double percentile(double p) {
      return ServeLoad.percentile(latencyMillis, p);
    }

    /** Prints and counts the records whose verdict differs from the CLI's (every field). */
    int mismatches(PrintWriter out, String pass, List<JsonNode> expected) {
      int differ = 0;
      for (int i = 0; i < expected.size(); i++) {
        if (!expected.get(i).equals(verdicts.get(i))) {
          if (differ++ < 5) {
            out.printf(
                "  %s: record %d: check %s, service %s%n",
                pass, i, expected.get(i), verdicts.get(i));
          }
        }
      }
      return differ;
    }

    Map<String, Object> toJson(int records) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("seconds", seconds);
      json.put("cpu_seconds", cpuSeconds);
      json.put("load_average", load);
      json.put("records_per_second", records / seconds);
      json.put("requests", latencyMillis.length);
      json.put("latency_ms_p50", percentile(50));
      json.put("latency_ms_p90", percentile(90));
      json.put("latency_ms_p99", percentile(99));
      json.put("latency_ms_max", percentile(100));
      return json;
    }
  }

  /**
   * {@code clients} threads send the records in requests of {@code perRequest}, taking the next
   * request in turn. The answers are parsed once the clock and the CPU count stop: checking them is
   * the bench's work, not the service's.
   */
  Timing run(URI uri, List<ObjectNode> input, int perRequest) throws Exception {
    int requests = (input.size() + perRequest - 1) / perRequest;
    String[] bodies = new String[requests];
    for (int r = 0; r < requests; r++) {
      List<ObjectNode> part =
          input.subList(r * perRequest, Math.min(input.size(), (r + 1) * perRequest));
      bodies[r] =
          perRequest == 1 ? part.get(0).toString() : JSON.createArrayNode().addAll(part).toString();
    }
    String[] answers = new String[requests];
    double[] latency = new double[requests];
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long cpuStart = os.getProcessCpuTime();
    long start = System.nanoTime();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        done.add(
            pool.submit(
                () -> {
                  for (int r = next.getAndIncrement(); r < requests; r = next.getAndIncrement()) {
                    long sent = System.nanoTime();
                    HttpResponse<String> response = send(uri, bodies[r]);
                    latency[r] = (System.nanoTime() - sent) / 1e6;
                    if (response.statusCode() != 200) {
                      throw new IllegalStateException(
                          "request " + r + ": " + response.statusCode() + " " + response.body());
                    }
                    answers[r] = response.body(); // read after the clock stops
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (os.getProcessCpuTime() - cpuStart) / 1e9;
    JsonNode[] verdicts = new JsonNode[input.size()];
    for (int r = 0; r < requests; r++) {
      JsonNode answer = JSON.readTree(answers[r]);
      if (perRequest == 1) {
        verdicts[r] = answer;
      } else {
        for (int i = 0; i < answer.size(); i++) {
          verdicts[r * perRequest + i] = answer.get(i);
        }
      }
    }
    return new Timing(
        Arrays.asList(verdicts), seconds, cpuSeconds, os.getSystemLoadAverage(), latency);
  }

  /**
   * Sends one request; sent again once when the connection broke before an answer (the JDK client
   * does not retry a POST on a kept-alive connection the server closed meanwhile). A check or an
   * add answers the same when sent twice (adds are idempotent by id).
   */
  private HttpResponse<String> send(URI uri, String body) {
    try {
      return sendOnce(uri, body);
    } catch (UncheckedIOException brokenConnection) {
      return sendOnce(uri, body);
    }
  }

  private HttpResponse<String> sendOnce(URI uri, String body) {
    try {
      return http.send(
          HttpRequest.newBuilder(uri)
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .header("Content-Type", "application/json")
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
