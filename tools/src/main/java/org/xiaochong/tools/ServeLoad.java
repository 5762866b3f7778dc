package org.xiaochong.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * The load of {@code dedup bench serve}: concurrent clients posting records to a running service
 * over loopback HTTP, timing each request. Any answer but a 200 fails the pass. Not thread-safe:
 * one pass at a time.
 */
final class ServeLoad {
  private static final ObjectMapper JSON = new ObjectMapper();

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
    long cpuStart;
    long start;
    try (CloseableHttpClient http = client()) {
      cpuStart = os.getProcessCpuTime();
      start = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        done.add(
            pool.submit(
                () -> {
                  for (int r = next.getAndIncrement(); r < requests; r = next.getAndIncrement()) {
                    long sent = System.nanoTime();
                    answers[r] = send(http, uri, bodies[r], r); // parsed after the clock stops
                    latency[r] = (System.nanoTime() - sent) / 1e6;
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
   * One blocking HTTP/1.1 connection per client, kept alive: each request is written and its answer
   * read on the client's own thread, so the clients' CPU is the requests' and little else (the JDK
   * client hands every exchange to a selector thread and back).
   */
  private CloseableHttpClient client() {
    return HttpClients.custom()
        .setConnectionManager(
            PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(clients)
                .setMaxConnPerRoute(clients)
                .build())
        .disableAutomaticRetries()
        .disableCookieManagement()
        .disableRedirectHandling()
        .build();
  }

  /**
   * Sends request {@code r} and returns the answer's body; sent again once when the connection
   * broke before an answer (a kept-alive connection the server closed meanwhile). A check or an add
   * answers the same when sent twice (adds are idempotent by id). Any answer but a 200 fails the
   * pass.
   */
  private static String send(CloseableHttpClient http, URI uri, String body, int r) {
    try {
      return sendOnce(http, uri, body, r);
    } catch (UncheckedIOException brokenConnection) {
      return sendOnce(http, uri, body, r);
    }
  }

  private static String sendOnce(CloseableHttpClient http, URI uri, String body, int r) {
    HttpPost post = new HttpPost(uri);
    post.setEntity(new StringEntity(body, ContentType.APPLICATION_JSON));
    try {
      return http.execute(
          post,
          response -> {
            String answer = EntityUtils.toString(response.getEntity());
            if (response.getCode() != 200) {
              throw new IllegalStateException(
                  "request " + r + ": " + response.getCode() + " " + answer);
            }
            return answer;
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
