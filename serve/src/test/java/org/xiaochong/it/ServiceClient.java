package org.xiaochong.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A small client of {@code dedup serve} for the tests: raw bytes in, status and body out. */
final class ServiceClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  ServiceClient(int port, String token) {
    this.base = "http://127.0.0.1:" + port;
    this.token = token;
  }

  /** A reply: its status, body and headers. */
  record Reply(int status, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }
  }

  Reply post(String path, String body) {
    return post(path, body.getBytes(StandardCharsets.UTF_8));
  }

  Reply post(String path, byte[] body) {
    return post(path, body, "application/json");
  }

  /** A POST with this Content-Type (null: none). */
  Reply post(String path, byte[] body, String contentType) {
    HttpRequest.Builder builder = request(path).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      builder.header("Content-Type", contentType);
    }
    return send(builder.build());
  }

  /** A JSON POST whose body is streamed (chunked, no Content-Length). */
  Reply postStreamed(String path, java.util.function.Supplier<java.io.InputStream> body) {
    return send(
        request(path)
            .POST(HttpRequest.BodyPublishers.ofInputStream(body))
            .header("Content-Type", "application/json")
            .build());
  }

  /**
   * A raw HTTP/1.x exchange on its own connection: {@code head} (request line and headers, CRLF
   * separated, without the blank line), then {@code body}; returns the status code of the answer.
   */
  static int raw(int port, String head, String body) throws IOException {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write((head + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      return status(socket);
    }
  }

  /**
   * Like {@link #raw}, but returns the whole answer (status line, headers, body) as read until the
   * service closes the connection.
   */
  static String rawAnswer(int port, String head, String body) throws IOException {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write((head + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The status code of the answer read from {@code socket} (-1 when it closed without one). */
  static int status(java.net.Socket socket) throws IOException {
    java.io.BufferedReader in =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
    String statusLine = in.readLine();
    return statusLine == null ? -1 : Integer.parseInt(statusLine.split(" ")[1]);
  }

  Reply get(String path) {
    return send(request(path).GET().build());
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder;
  }

  private Reply send(HttpRequest request) {
    try {
      HttpResponse<String> response =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Reply(response.statusCode(), response.body(), response.headers());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
