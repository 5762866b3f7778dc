package org.xiaochong.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.source.TableSpec;

/**
 * The HTTP/JSON face of a {@link Deduplicator}: {@code POST /v1/check} (one record or an array;
 * with {@code ?add=true} answered once the added records are committed), {@code POST /v1/explain},
 * {@code GET /v1/health} and {@code GET /metrics}. The verdicts are the Deduplicator's, so they
 * equal {@code dedup check}'s.
 *
 * <p>Before a handler, a request passes the safeguards, each refusal a problem (RFC 9457: {@code
 * type}, {@code title}, {@code status}, {@code detail}) naming what to change: on a loopback
 * address the {@code Host} header must name the loopback ({@link Safeguards}: 421, or 400 without
 * one); with an access token every endpoint but {@code /v1/health} asks for {@code Authorization:
 * Bearer <token>}, compared in constant time ({@link AccessToken}: 401); at most {@link
 * Settings#maxConcurrentRequests} requests are served at once (503 {@code overloaded} with {@code
 * Retry-After}; health is not counted, so probes get answers under load); a body must be {@code
 * application/json} (415); adds need the token unless {@link Settings#allowAnonymousAdds} (403).
 *
 * <p>A body is parsed as it arrives ({@link RequestReader}, {@link RequestBody}): the body, record
 * and record-count limits apply while reading, and a body that stops (Jetty's idle timeout) or
 * trickles below the minimum rate is a 408. Every record is validated before any is checked, so
 * nothing of a refused request is added. Our own failures are a 500 (a busy index a 503) with a
 * fixed text and an incident id; the cause is logged under that id only.
 *
 * <p>{@link #stop} drains: new requests get 503, those in flight finish, then the server stops.
 *
 * <p>Thread-safe; one instance per port.
 */
public final class DedupService implements AutoCloseable {
  /**
   * The service's limits and safeguards.
   *
   * @param host the address to listen on
   * @param port the port (0: any free one, see {@link #port})
   * @param token the access token, or null for none (only on a loopback address)
   * @param allowAnonymousAdds whether {@code ?add=true} is taken without a token (with no token
   *     set)
   * @param maxBodyBytes the largest request body
   * @param maxRecordBytes the largest record (its JSON)
   * @param maxRecords the most records in one request
   * @param maxConcurrentRequests requests served at once; more are answered 503 with Retry-After
   *     ({@code /v1/health} is not counted)
   * @param minBodyBytesPerSecond the slowest body taken, on average from its first read ({@link
   *     RequestBody})
   * @param idleTimeoutMillis how long a connection may stay quiet, in a body or between requests
   * @param maintenanceMillis how often to commit the indexes (adds are durable before, in the add
   *     log), to reopen the index after another process committed, and to give back the write lock
   *     when adds have stopped (a run can start then)
   */
  public record Settings(
      String host,
      int port,
      AccessToken token,
      boolean allowAnonymousAdds,
      long maxBodyBytes,
      long maxRecordBytes,
      int maxRecords,
      int maxConcurrentRequests,
      long minBodyBytesPerSecond,
      long idleTimeoutMillis,
      long maintenanceMillis) {
    public Settings {
      if (maxBodyBytes < 1) {
        throw new IllegalArgumentException(
            "--max-body-bytes (" + maxBodyBytes + ") must be at least 1");
      }
      if (maxRecordBytes < 1) {
        throw new IllegalArgumentException(
            "--max-record-bytes (" + maxRecordBytes + ") must be at least 1");
      }
      if (maxRecords < 1) {
        throw new IllegalArgumentException("--max-records (" + maxRecords + ") must be at least 1");
      }
      if (maxConcurrentRequests < 1) {
        throw new IllegalArgumentException(
            "--max-concurrent-requests (" + maxConcurrentRequests + ") must be at least 1");
      }
      if (minBodyBytesPerSecond < 0 || idleTimeoutMillis < 1) {
        throw new IllegalArgumentException(
            "--min-body-rate must be at least 0 and --idle-timeout at least 1");
      }
    }

    /**
     * The defaults of {@code dedup serve}: 16 MiB bodies, 1 MiB records, 1,000 records a request,
     * 64 requests at once, bodies at 4 KiB/s or faster, 30 s idle, maintenance every second.
     */
    public static Settings defaults(String host, int port, AccessToken token) {
      return new Settings(
          host, port, token, false, 16 << 20, 1 << 20, 1000, 64, 4096, 30_000, 1000);
    }

    public Settings withAnonymousAdds(boolean allow) {
      return new Settings(
          host,
          port,
          token,
          allow,
          maxBodyBytes,
          maxRecordBytes,
          maxRecords,
          maxConcurrentRequests,
          minBodyBytesPerSecond,
          idleTimeoutMillis,
          maintenanceMillis);
    }

    public Settings withSizes(long maxBodyBytes, long maxRecordBytes, int maxRecords) {
      return new Settings(
          host,
          port,
          token,
          allowAnonymousAdds,
          maxBodyBytes,
          maxRecordBytes,
          maxRecords,
          maxConcurrentRequests,
          minBodyBytesPerSecond,
          idleTimeoutMillis,
          maintenanceMillis);
    }

    public Settings withConnections(
        int maxConcurrentRequests, long minBodyBytesPerSecond, long idleTimeoutMillis) {
      return new Settings(
          host,
          port,
          token,
          allowAnonymousAdds,
          maxBodyBytes,
          maxRecordBytes,
          maxRecords,
          maxConcurrentRequests,
          minBodyBytesPerSecond,
          idleTimeoutMillis,
          maintenanceMillis);
    }

    public Settings withMaintenanceMillis(long maintenanceMillis) {
      return new Settings(
          host,
          port,
          token,
          allowAnonymousAdds,
          maxBodyBytes,
          maxRecordBytes,
          maxRecords,
          maxConcurrentRequests,
          minBodyBytesPerSecond,
          idleTimeoutMillis,
          maintenanceMillis);
    }
  }

  /** How long {@link #stop} waits for requests in flight. */
  private static final long DRAIN_MILLIS = 30_000;

  /** Seconds a client refused for load or a busy index is asked to wait. */
  private static final String RETRY_OVERLOADED = "1";

  private static final String RETRY_INDEX_BUSY = "30";

  private final Deduplicator dedup;
  private final Settings settings;
  private final Consumer<String> log;
  private final ObjectMapper json = new ObjectMapper();
  private final ServiceMetrics metrics;
  private final Endpoints endpoints;
  private final Safeguards safeguards;
  private final Semaphore permits;
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
   * @param log one line per event worth a note (start, reopen, an incident's cause); never a token
   *     or a body
   */
  public DedupService(
      Deduplicator dedup, TableSpec table, Settings settings, Consumer<String> log) {
    this.dedup = dedup;
    this.settings = settings;
    this.log = log;
    this.metrics = new ServiceMetrics(dedup::indexedRecords, dedup::commits);
    this.endpoints =
        new Endpoints(
            dedup,
            new RequestReader(table, settings, json),
            json,
            metrics,
            settings.token() == null && !settings.allowAnonymousAdds());
    this.safeguards = Safeguards.forHost(settings.host());
    this.permits = new Semaphore(settings.maxConcurrentRequests());
  }

  /** Starts listening; returns the port. */
  public int start() {
    app =
        Javalin.create(
            config -> {
              config.startup.showJavalinBanner = false;
              // A virtual thread per request: a request mostly waits (for the add log's fsync,
              // for the checker's turn), and parking a virtual thread costs less CPU than Jetty's
              // hand-offs between pooled threads. The cap on requests in flight is ours (permits).
              config.concurrency.useVirtualThreads = true;
              // The body is read by RequestBody, with its own limit and error.
              config.http.maxRequestSize = settings.maxBodyBytes();
              config.routes.post(
                  "/v1/check", ctx -> handle(ctx, "check", Guard.POST, endpoints::check));
              config.routes.post(
                  "/v1/explain", ctx -> handle(ctx, "explain", Guard.POST, endpoints::explain));
              config.routes.get(
                  "/v1/health", ctx -> handle(ctx, "health", Guard.HEALTH, endpoints::health));
              config.routes.get(
                  "/metrics", ctx -> handle(ctx, "metrics", Guard.GET, endpoints::metrics));
              config.routes.error(
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
                                  + Problem.clipped(ctx.path())
                                  + ": the endpoints are POST /v1/check, POST /v1/explain,"
                                  + " GET /v1/health, GET /metrics")));
            });
    app.start(settings.host(), settings.port());
    for (Connector connector : app.jettyServer().server().getConnectors()) {
      if (connector instanceof AbstractConnector c) {
        c.setIdleTimeout(settings.idleTimeoutMillis());
      }
    }
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

  /** The requests being served now, each holding one of the permits (health is not counted). */
  public int requestsBeingServed() {
    return settings.maxConcurrentRequests() - permits.availablePermits();
  }

  /**
   * Commits what was added (the add log made it durable already); hands the write lock over when a
   * run asks for it, or gives it back once adds stopped; reopens the index when a run committed;
   * and adds what was logged meanwhile once the lock is free again.
   */
  private void maintain() {
    try {
      dedup.commitIndex();
      if (dedup.handOverIfAsked()) {
        log.accept(
            "serve: another dedup process (a run, check --add) asked for the index: write lock"
                + " handed over, adds are logged until it is done");
      } else if (dedup.releaseWriter(settings.maintenanceMillis())) {
        log.accept("serve: adds stopped: write lock of the index given back");
      }
      if (dedup.refreshIfChanged()) {
        log.accept(
            "serve: the index or its marks changed (a run committed, marks saved): reopened, "
                + dedup.indexedRecords()
                + " records");
      }
      if (dedup.addLogged()) {
        log.accept("serve: the index is free again: the adds logged meanwhile are in it");
      }
    } catch (RuntimeException e) {
      log.accept(
          "serve: index maintenance failed, answering from the index open: "
              + Problem.oneLine(e.getMessage()));
    }
  }

  /** What a handler does with a request; a {@link Problem} thrown is answered as one. */
  private interface Handler {
    void handle(Context ctx) throws IOException;
  }

  /** Which checks a request passes before its handler. */
  private enum Guard {
    /** A JSON body, the token, a permit. */
    POST,
    /** The token, a permit. */
    GET,
    /** Nothing but the Host: load balancers and probes ask it, also under load. */
    HEALTH
  }

  private void handle(Context ctx, String endpoint, Guard guard, Handler handler) {
    long start = System.nanoTime();
    inFlight.incrementAndGet();
    boolean permitted = false;
    try {
      safeguards.checkHost(ctx.header("Host"));
      if (stopping) {
        throw new Problem(
            503,
            "stopping",
            "The service is stopping",
            "the service is stopping: send it elsewhere");
      }
      if (guard != Guard.HEALTH) {
        if (settings.token() != null && !settings.token().matches(ctx.header("Authorization"))) {
          ctx.header("WWW-Authenticate", "Bearer");
          throw new Problem(
              401,
              "unauthorized",
              "Access token missing or wrong",
              "send the header 'Authorization: Bearer <token>' with the service's token");
        }
        permitted = permits.tryAcquire();
        if (!permitted) {
          ctx.header("Retry-After", RETRY_OVERLOADED);
          throw new Problem(
              503,
              "overloaded",
              "Too many requests at once",
              "the service serves at most "
                  + settings.maxConcurrentRequests()
                  + " requests at once (serve --max-concurrent-requests): send it again after"
                  + " Retry-After");
        }
      }
      if (guard == Guard.POST) {
        Safeguards.checkJson(ctx.header("Content-Type"));
      }
      handler.handle(ctx);
    } catch (Problem problem) {
      problem(ctx, problem);
    } catch (Deduplicator.IndexBusyException busy) {
      ctx.header("Retry-After", RETRY_INDEX_BUSY);
      problem(
          ctx,
          incident(
              endpoint,
              busy,
              503,
              "index-busy",
              "The index is being written by a run",
              "another dedup process (a run) holds the index's write lock: send the add again after"
                  + " Retry-After"));
    } catch (IOException | RuntimeException e) {
      problem(
          ctx,
          incident(
              endpoint,
              e,
              500,
              "internal",
              "Internal error",
              "the service failed on this request"));
    } finally {
      if (permitted) {
        permits.release();
      }
      inFlight.decrementAndGet();
      metrics.request(endpoint, ctx.statusCode(), start);
    }
  }

  /**
   * A problem of ours with a fixed text and a new incident id, its cause logged under that id only
   * (exception types, paths and messages stay out of the answer).
   */
  private Problem incident(
      String endpoint, Exception cause, int status, String type, String title, String detail) {
    String id = UUID.randomUUID().toString();
    log.accept(
        "serve: incident "
            + id
            + ": "
            + endpoint
            + " answered "
            + status
            + ": "
            + cause.getClass().getSimpleName()
            + ": "
            + Problem.oneLine(cause.getMessage()));
    return new Problem(status, type, title, detail + " (incident " + id + " in its log)", id);
  }

  private void problem(Context ctx, Problem problem) {
    ObjectNode body =
        json.createObjectNode()
            .put("type", problem.type)
            .put("title", problem.title)
            .put("status", problem.status)
            .put("detail", problem.getMessage());
    if (problem.incident != null) {
      body.put("incident", problem.incident);
    }
    try {
      ctx.status(problem.status)
          .contentType("application/problem+json")
          .result(json.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      ctx.status(500).result("internal error");
    }
  }

  /** The 413 problem of a body over {@code max} bytes, {@code size} saying how large it is. */
  static Problem bodyTooLarge(String size, long max) {
    return new Problem(
        413,
        "body-too-large",
        "Request body too large",
        "the body has "
            + size
            + "; at most "
            + max
            + " are read (serve --max-body-bytes): send fewer records per request");
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
