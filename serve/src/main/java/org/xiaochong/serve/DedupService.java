package org.xiaochong.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.check.OnlineChecker;
import org.xiaochong.check.RecordJson;
import org.xiaochong.method.MethodCheck;
import org.xiaochong.source.TableSpec;

/**
 * The HTTP/JSON face of a {@link Deduplicator}: {@code POST /v1/check} (one record or an array;
 * with {@code ?add=true} answered once the added records are committed), {@code POST /v1/explain},
 * {@code GET /v1/health} and {@code GET /metrics}. The verdicts are the Deduplicator's, so they
 * equal {@code dedup check}'s.
 *
 * <p>A request is read whole (at most {@link Settings#maxBodyBytes}), decoded as strict UTF-8 and
 * parsed, and every record of it is validated before any is checked: a bad request is answered with
 * a 4xx problem (RFC 9457: {@code type}, {@code title}, {@code status}, {@code detail}) and nothing
 * of it is added. Our own failures are a 500 problem with one line, never a stack trace.
 *
 * <p>With an access token every endpoint but {@code /v1/health} asks for {@code Authorization:
 * Bearer <token>}, compared in constant time ({@link AccessToken}). {@link #stop} drains: new
 * requests get 503, those in flight finish, then the server stops.
 *
 * <p>Thread-safe; one instance per port.
 */
public final class DedupService implements AutoCloseable {
  /**
   * The service's limits.
   *
   * @param host the address to listen on
   * @param port the port (0: any free one, see {@link #port})
   * @param token the access token, or null for none (only on a loopback address)
   * @param maxBodyBytes the largest request body
   * @param maxRecordBytes the largest record (its JSON)
   * @param maxRecords the most records in one request
   * @param maintenanceMillis how often to reopen the index after another process committed, and to
   *     give back the write lock when adds have stopped (a run can start then)
   */
  public record Settings(
      String host,
      int port,
      AccessToken token,
      long maxBodyBytes,
      long maxRecordBytes,
      int maxRecords,
      long maintenanceMillis) {
    public Settings {
      if (maxBodyBytes < 1 || maxBodyBytes > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            "--max-body-bytes (" + maxBodyBytes + ") must be in [1, 2^31 - 9]");
      }
      if (maxRecordBytes < 1) {
        throw new IllegalArgumentException(
            "--max-record-bytes (" + maxRecordBytes + ") must be at least 1");
      }
      if (maxRecords < 1) {
        throw new IllegalArgumentException("--max-records (" + maxRecords + ") must be at least 1");
      }
    }
  }

  /** How long {@link #stop} waits for requests in flight. */
  private static final long DRAIN_MILLIS = 30_000;

  /** Candidates listed per method by {@code /v1/explain} unless {@code ?limit=} says otherwise. */
  private static final int EXPLAIN_LIMIT = 5;

  private final Deduplicator dedup;
  private final TableSpec table;
  private final Settings settings;
  private final Consumer<String> log;
  private final ObjectMapper json =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final ServiceMetrics metrics;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ScheduledExecutorService maintenance =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "dedup-serve-maintenance");
            thread.setDaemon(true);
            return thread;
          });
  private volatile boolean stopping;
  private Javalin app;

  /**
   * @param log one line per event worth a note (start, reopen, a 500's cause); never a token or a
   *     body
   */
  public DedupService(
      Deduplicator dedup, TableSpec table, Settings settings, Consumer<String> log) {
    this.dedup = dedup;
    this.table = table;
    this.settings = settings;
    this.log = log;
    this.metrics = new ServiceMetrics(dedup::indexedRecords, dedup::commits);
  }

  /** Starts listening; returns the port. */
  public int start() {
    app =
        Javalin.create(
            config -> {
              config.showJavalinBanner = false;
              // The body is read by readBody, with its own limit and error.
              config.http.maxRequestSize = settings.maxBodyBytes();
            });
    app.post("/v1/check", ctx -> handle(ctx, "check", true, this::check));
    app.post("/v1/explain", ctx -> handle(ctx, "explain", true, this::explain));
    app.get("/v1/health", ctx -> handle(ctx, "health", false, this::health));
    app.get("/metrics", ctx -> handle(ctx, "metrics", true, this::metrics));
    app.error(
        404,
        ctx ->
            problem(
                ctx,
                new Problem(
                    404,
                    "not-found",
                    "No such endpoint",
                    ctx.method()
                        + " "
                        + ctx.path()
                        + ": the endpoints are POST /v1/check, POST /v1/explain,"
                        + " GET /v1/health, GET /metrics")));
    app.start(settings.host(), settings.port());
    maintenance.scheduleWithFixedDelay(
        this::maintain,
        settings.maintenanceMillis(),
        settings.maintenanceMillis(),
        TimeUnit.MILLISECONDS);
    return app.port();
  }

  /** The port listened on. */
  public int port() {
    return app.port();
  }

  /** Gives the write lock back once adds stopped, then reopens the index if a run committed. */
  private void maintain() {
    try {
      if (dedup.releaseWriter(settings.maintenanceMillis())) {
        log.accept("serve: adds stopped: write lock of the index given back");
      }
      if (dedup.refreshIfChanged()) {
        log.accept(
            "serve: the index changed (a run committed): reopened, "
                + dedup.indexedRecords()
                + " records");
      }
    } catch (RuntimeException e) {
      log.accept(
          "serve: reopening the index failed, answering from the one open: "
              + oneLine(e.getMessage()));
    }
  }

  /** What a handler does with a request; a {@link Problem} thrown is answered as one. */
  private interface Handler {
    void handle(Context ctx) throws IOException;
  }

  private void handle(Context ctx, String endpoint, boolean tokenNeeded, Handler handler) {
    long start = System.nanoTime();
    inFlight.incrementAndGet();
    try {
      if (stopping) {
        throw new Problem(
            503,
            "stopping",
            "The service is stopping",
            "the service is stopping: send it elsewhere");
      }
      if (tokenNeeded
          && settings.token() != null
          && !settings.token().matches(ctx.header("Authorization"))) {
        ctx.header("WWW-Authenticate", "Bearer");
        throw new Problem(
            401,
            "unauthorized",
            "Access token missing or wrong",
            "send the header 'Authorization: Bearer <token>' with the service's token");
      }
      handler.handle(ctx);
    } catch (Problem problem) {
      problem(ctx, problem);
    } catch (Deduplicator.IndexBusyException busy) {
      ctx.header("Retry-After", "30");
      problem(
          ctx,
          new Problem(
              503,
              "index-busy",
              "The index is being written by a run",
              oneLine(busy.getMessage())));
    } catch (IOException | RuntimeException e) {
      log.accept(
          "serve: "
              + endpoint
              + " failed: "
              + e.getClass().getSimpleName()
              + ": "
              + oneLine(e.getMessage()));
      problem(
          ctx,
          new Problem(
              500,
              "internal",
              "Internal error",
              "the service failed on this request: "
                  + e.getClass().getSimpleName()
                  + ": "
                  + oneLine(e.getMessage())));
    } finally {
      inFlight.decrementAndGet();
      metrics.request(endpoint, ctx.statusCode(), start);
    }
  }

  private void check(Context ctx) throws IOException {
    boolean add = flag(ctx, "add");
    JsonNode body = readJson(ctx);
    List<Deduplicator.Record> records = records(body, true);
    List<Deduplicator.Verdict> verdicts = add ? dedup.add(records) : dedup.check(records);
    ArrayNode answers = json.createArrayNode();
    for (Deduplicator.Verdict verdict : verdicts) {
      metrics.verdict(verdict.verdict(), verdict.keep(), verdict.added());
      answers.add(RecordJson.toJson(json.createObjectNode(), verdict, add));
    }
    answer(ctx, 200, body.isArray() ? answers : answers.get(0));
  }

  private void explain(Context ctx) throws IOException {
    String limitParam = ctx.queryParam("limit");
    int limit = EXPLAIN_LIMIT;
    if (limitParam != null) {
      try {
        limit = Integer.parseInt(limitParam);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > 100) {
        throw new Problem(
            400,
            "invalid-parameter",
            "Invalid query parameter",
            "limit must be an integer in [1, 100], not '" + limitParam + "'");
      }
    }
    JsonNode body = readJson(ctx);
    if (!body.isObject()) {
      throw new Problem(
          400, "invalid-record", "Invalid record", "explain takes one record (a JSON object)");
    }
    Deduplicator.Explanation explanation = dedup.explain(records(body, false).get(0), limit);
    ObjectNode answer = RecordJson.toJson(json.createObjectNode(), explanation.verdict(), false);
    ArrayNode methods = answer.putArray("methods");
    for (OnlineChecker.MethodExplanation method : explanation.methods()) {
      ObjectNode m = methods.addObject().put("method", method.method());
      ArrayNode candidates = m.putArray("candidates");
      for (MethodCheck.Candidate c : method.candidates()) {
        candidates
            .addObject()
            .put("id", c.id())
            .put("score", c.score())
            .put("shared_keys", c.sharedKeys())
            .put("outcome", c.outcome());
      }
    }
    answer(ctx, 200, answer);
  }

  private void health(Context ctx) throws IOException {
    ObjectNode answer = json.createObjectNode().put("status", "ok");
    ArrayNode methods = answer.putArray("methods");
    dedup.methods().forEach(methods::add);
    answer.put("indexed_records", dedup.indexedRecords());
    answer.put("writing", dedup.writing());
    answer(ctx, 200, answer);
  }

  private void metrics(Context ctx) throws IOException {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    metrics.write(text);
    ctx.status(200).contentType(metrics.contentType()).result(text.toByteArray());
  }

  /** A query flag: absent or {@code false} is false, {@code true} true, anything else a 400. */
  private static boolean flag(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw new Problem(
        400,
        "invalid-parameter",
        "Invalid query parameter",
        name + " must be true or false, not '" + value + "'");
  }

  /** The body as JSON: at most maxBodyBytes, strict UTF-8, one JSON value. */
  private JsonNode readJson(Context ctx) throws IOException {
    String text = decodeUtf8(readBody(ctx));
    if (text.isBlank()) {
      throw new Problem(
          400,
          "invalid-json",
          "Invalid JSON",
          "the body is empty: send one record or an array of them");
    }
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null
              ? ""
              : " at line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr();
      throw new Problem(
          400, "invalid-json", "Invalid JSON", oneLine(e.getOriginalMessage()) + where);
    }
  }

  private byte[] readBody(Context ctx) throws IOException {
    long max = settings.maxBodyBytes();
    long declared = ctx.req().getContentLengthLong();
    if (declared > max) {
      throw tooLarge(declared + " bytes");
    }
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] body = in.readNBytes((int) max + 1);
      if (body.length > max) {
        throw tooLarge("more than " + max + " bytes");
      }
      return body;
    }
  }

  private Problem tooLarge(String size) {
    return new Problem(
        413,
        "body-too-large",
        "Request body too large",
        "the body has "
            + size
            + "; at most "
            + settings.maxBodyBytes()
            + " are read (serve --max-body-bytes): send fewer records per request");
  }

  /**
   * Strict UTF-8: a malformed byte is a 400 naming its offset, never a replacement character in a
   * post.
   */
  private static String decodeUtf8(byte[] body) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    CharBuffer out = CharBuffer.allocate(body.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw new Problem(
          400,
          "invalid-utf8",
          "Body is not UTF-8",
          "the body is not valid UTF-8 at byte offset " + in.position() + ": send JSON in UTF-8");
    }
    return out.flip().toString();
  }

  /**
   * The records of a body (one object or an array of them), every one validated before any is
   * checked: a bad one fails the whole request, naming its place in the array and the problem.
   */
  private List<Deduplicator.Record> records(JsonNode body, boolean idRequired) {
    List<JsonNode> nodes = new ArrayList<>();
    if (body.isArray()) {
      if (body.size() > settings.maxRecords()) {
        throw new Problem(
            413,
            "too-many-records",
            "Too many records",
            "the array has "
                + body.size()
                + " records; at most "
                + settings.maxRecords()
                + " per request (serve --max-records)");
      }
      body.forEach(nodes::add);
    } else {
      nodes.add(body);
    }
    long now = System.currentTimeMillis();
    List<Deduplicator.Record> records = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      JsonNode node = nodes.get(i);
      String where = body.isArray() ? "record " + i + ": " : "";
      long bytes = node.toString().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > settings.maxRecordBytes()) {
        throw new Problem(
            413,
            "record-too-large",
            "Record too large",
            where
                + "the record has "
                + bytes
                + " bytes of JSON; at most "
                + settings.maxRecordBytes()
                + " (serve --max-record-bytes)");
      }
      try {
        records.add(RecordJson.parse(node, table, idRequired, now));
      } catch (IllegalArgumentException e) {
        String type =
            node.isObject() && node.get(table.idColumn()) == null ? "missing-id" : "invalid-record";
        throw new Problem(
            400,
            type,
            type.equals("missing-id") ? "Record without an id" : "Invalid record",
            where + oneLine(e.getMessage()));
      }
    }
    return records;
  }

  private void answer(Context ctx, int status, JsonNode body) throws IOException {
    ctx.status(status).contentType("application/json").result(json.writeValueAsBytes(body));
  }

  private void problem(Context ctx, Problem problem) {
    ObjectNode body =
        json.createObjectNode()
            .put("type", problem.type)
            .put("title", problem.title)
            .put("status", problem.status)
            .put("detail", problem.getMessage());
    try {
      ctx.status(problem.status)
          .contentType("application/problem+json")
          .result(json.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      ctx.status(500).result("internal error");
    }
  }

  /** A request answered with an RFC 9457 problem. */
  static final class Problem extends RuntimeException {
    final int status;
    final String type;
    final String title;

    Problem(int status, String type, String title, String detail) {
      super(detail, null, false, false);
      this.status = status;
      this.type = type;
      this.title = title;
    }
  }

  /**
   * Stops taking requests (new ones get 503), waits up to 30 s for those in flight, then stops the
   * server. The Deduplicator stays open: its owner closes it (committing what was added).
   */
  public void stop() {
    stopping = true;
    maintenance.shutdown();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
    while (inFlight.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    try {
      maintenance.awaitTermination(DRAIN_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (app != null) {
      app.stop();
    }
  }

  @Override
  public void close() {
    stop();
  }

  private static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
