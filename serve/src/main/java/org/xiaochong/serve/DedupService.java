package org.xiaochong.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.xiaochong.check.Deduplicator;
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

  private final Deduplicator dedup;
  private final Settings settings;
  private final Consumer<String> log;
  private final ObjectMapper json =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final ServiceMetrics metrics;
  private final Endpoints endpoints;
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
    this.settings = settings;
    this.log = log;
    this.metrics = new ServiceMetrics(dedup::indexedRecords, dedup::commits);
    this.endpoints = new Endpoints(dedup, new RequestReader(table, settings, json), json, metrics);
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
    app.post("/v1/check", ctx -> handle(ctx, "check", true, endpoints::check));
    app.post("/v1/explain", ctx -> handle(ctx, "explain", true, endpoints::explain));
    app.get("/v1/health", ctx -> handle(ctx, "health", false, endpoints::health));
    app.get("/metrics", ctx -> handle(ctx, "metrics", true, endpoints::metrics));
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
              + Problem.oneLine(e.getMessage()));
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
              Problem.oneLine(busy.getMessage())));
    } catch (IOException | RuntimeException e) {
      log.accept(
          "serve: "
              + endpoint
              + " failed: "
              + e.getClass().getSimpleName()
              + ": "
              + Problem.oneLine(e.getMessage()));
      problem(
          ctx,
          new Problem(
              500,
              "internal",
              "Internal error",
              "the service failed on this request: "
                  + e.getClass().getSimpleName()
                  + ": "
                  + Problem.oneLine(e.getMessage())));
    } finally {
      inFlight.decrementAndGet();
      metrics.request(endpoint, ctx.statusCode(), start);
    }
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
}
