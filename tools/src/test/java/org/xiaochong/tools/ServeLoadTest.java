package org.xiaochong.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bench's load clients against a small JDK HTTP server that answers each record with it. */
class ServeLoadTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private HttpServer server;

  /** A server at /v1/check answering {"echo": body} with {@code status}, on an ephemeral port. */
  private URI serve(int status) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext(
        "/v1/check",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          ObjectNode answer = JSON.createObjectNode();
          answer.set("echo", JSON.readTree(body));
          answer.put("type", exchange.getRequestHeaders().getFirst("Content-Type"));
          byte[] bytes = answer.toString().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/check");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private static List<ObjectNode> records(int n) {
    List<ObjectNode> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(JSON.createObjectNode().put("id", i).put("title", "供应红富士苹果 " + i));
    }
    return records;
  }

  @Test
  void eachRecordGetsItsOwnAnswer_inOrder_oneRecordPerRequest() throws Exception {
    URI uri = serve(200);

    ServeLoad.Timing timing = new ServeLoad(4).run(uri, records(50), 1);

    assertThat(timing.verdicts()).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(timing.verdicts().get(i).get("echo").get("id").asInt()).isEqualTo(i);
      assertThat(timing.verdicts().get(i).get("type").asText()).startsWith("application/json");
    }
    assertThat(timing.latencyMillis()).hasSize(50);
    assertThat(java.util.Arrays.stream(timing.latencyMillis()).min().orElseThrow()).isPositive();
    assertThat(timing.seconds()).isPositive();
  }

  @Test
  void arraysAreSplitPerRecord() throws Exception {
    URI uri = serve(200);
    server.removeContext("/v1/check");
    server.createContext(
        "/v1/check",
        exchange -> {
          byte[] bytes = exchange.getRequestBody().readAllBytes(); // an array answers as sent
          exchange.sendResponseHeaders(200, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });

    ServeLoad.Timing timing = new ServeLoad(2).run(uri, records(25), 10);

    assertThat(timing.latencyMillis()).hasSize(3);
    for (int i = 0; i < 25; i++) {
      assertThat(timing.verdicts().get(i).get("id").asInt()).isEqualTo(i);
    }
  }

  @Test
  void anAnswerOtherThan200_failsThePass() throws Exception {
    URI uri = serve(503);

    assertThatThrownBy(() -> new ServeLoad(2).run(uri, records(3), 1))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("503");
  }
}
