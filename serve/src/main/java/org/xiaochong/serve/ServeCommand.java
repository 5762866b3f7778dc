package org.xiaochong.serve;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.cli.ConfigOptions;
import org.xiaochong.command.ExitCodes;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.source.BadInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dedup serve}: the online check as an HTTP/JSON service, for ingestion pipelines. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serves the verdicts of `check` over HTTP/JSON until stopped (SIGTERM or Ctrl-C: requests in flight finish,",
      "what was added is committed). POST /v1/check takes one record or an array (the table's columns, with the",
      "id) and answers {\"id\", \"verdict\", \"kept_id\", \"score\", \"keep\": \"new|existing\", \"supersedes\": [ids]};",
      "POST /v1/check?add=true also adds the new records and the duplicates the keep policy keeps, and answers once",
      "they are committed. POST /v1/explain says why a verdict; GET /v1/health; GET /metrics (Prometheus).",
      "Listens on 127.0.0.1 unless --host names another address, which needs an access token (DEDUP_SERVE_TOKEN",
      "or serve.token). Adds need the token too, unless --allow-anonymous-adds. Bodies must be",
      "Content-Type: application/json; on loopback the Host header must name the loopback. An add sent again",
      "(same id) answers what the first did. Reads take no lock on the index and follow what a run commits;",
      "adds take the index's write lock while they flow and give it back when they stop."
    })
public final class ServeCommand implements Callable<Integer> {
  @Mixin ExitCodes.Help exitCodes;

  /** The environment variable of the access token; it wins over {@code serve.token}. */
  public static final String TOKEN_ENV = "DEDUP_SERVE_TOKEN";

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description =
          "Java properties file (keys: see config/dedup.properties). Default: built-in defaults.")
  Path config;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      paramLabel = "ADDRESS",
      description =
          "Address to listen on (default ${DEFAULT-VALUE}); a non-loopback one needs an access token.")
  String host;

  @Option(
      names = "--port",
      defaultValue = "8080",
      paramLabel = "P",
      description = "Port (default ${DEFAULT-VALUE}; 0: any free one).")
  int port;

  @Option(
      names = "--method",
      paramLabel = "METHOD[,METHOD…]",
      description =
          "Methods to ask, in this order, as in `check` (default: every method a run has built something for).")
  String method;

  @Option(
      names = "--max-body-bytes",
      defaultValue = "16777216",
      paramLabel = "N",
      description =
          "Largest request body (default ${DEFAULT-VALUE}, 16 MiB): a larger one is answered 413.")
  long maxBodyBytes;

  @Option(
      names = "--max-record-bytes",
      defaultValue = "1048576",
      paramLabel = "N",
      description =
          "Largest record, as JSON (default ${DEFAULT-VALUE}, 1 MiB): a request with a larger one is answered 413.")
  long maxRecordBytes;

  @Option(
      names = "--max-records",
      defaultValue = "1000",
      paramLabel = "N",
      description = "Most records in one request (default ${DEFAULT-VALUE}).")
  int maxRecords;

  @Option(
      names = "--allow-anonymous-adds",
      description =
          "Take ?add=true without an access token (when none is set). Without it and without a token, adds"
              + " are refused (403): any program on the host could add.")
  boolean allowAnonymousAdds;

  @Option(
      names = "--max-concurrent-requests",
      defaultValue = "64",
      paramLabel = "N",
      description =
          "Requests served at once (default ${DEFAULT-VALUE}); more are answered 503 with Retry-After."
              + " /v1/health is not counted.")
  int maxConcurrentRequests;

  @Option(
      names = "--min-body-rate",
      defaultValue = "4096",
      paramLabel = "BYTES_PER_S",
      description =
          "Slowest request body taken (default ${DEFAULT-VALUE} bytes/s; 0: any); a slower one is closed (408).")
  long minBodyRate;

  @Option(
      names = "--idle-timeout",
      defaultValue = "30",
      paramLabel = "SECONDS",
      description =
          "How long a connection may stay quiet, inside a body or between requests (default ${DEFAULT-VALUE}).")
  int idleTimeoutSeconds;

  @Option(names = "--verbose", description = "Print stack traces of errors.")
  boolean verbose;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final Map<String, String> env;

  ServeCommand() {
    this(System.getenv());
  }

  ServeCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    DedupConfig dedupConfig = DedupConfig.load(config, env);
    AccessToken token = token();
    if (token == null && !InetAddress.getByName(host).isLoopbackAddress()) {
      throw new BadInputException(
          "serve --host "
              + host
              + " is not a loopback address: set an access token in "
              + TOKEN_ENV
              + " or serve.token first");
    }
    DedupService.Settings settings =
        DedupService.Settings.defaults(host, port, token)
            .withAnonymousAdds(allowAnonymousAdds)
            .withSizes(maxBodyBytes, maxRecordBytes, maxRecords)
            .withConnections(
                maxConcurrentRequests, minBodyRate, TimeUnit.SECONDS.toMillis(idleTimeoutSeconds));
    List<FingerprintMethod> methods = method == null ? null : ConfigOptions.methods(method);
    Deduplicator dedup =
        Deduplicator.open(
            dedupConfig,
            new Deduplicator.Options(
                methods,
                false,
                line -> {
                  err.println(line);
                  err.flush();
                }));
    DedupService service =
        new DedupService(
            dedup,
            dedupConfig.table(),
            settings,
            line -> {
              err.println(line);
              err.flush();
            });
    int bound;
    try {
      bound = service.start();
    } catch (RuntimeException e) {
      service.stop();
      dedup.close();
      throw new BadInputException(
          "serve: cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  err.println(
                      "serve: stopping (requests in flight finish, what was added is committed)");
                  err.flush();
                  try {
                    service.stop();
                  } finally {
                    dedup.close();
                    err.println("serve: stopped");
                    err.flush();
                    stopped.countDown();
                  }
                },
                "dedup-serve-stop"));
    err.printf(
        "serve: %s on http://%s:%d/ (methods %s, %,d records, %s)%n",
        dedupConfig.indexDir(),
        host,
        bound,
        dedup.methods(),
        dedup.indexedRecords(),
        token == null
            ? (allowAnonymousAdds
                ? "no access token, anonymous adds allowed"
                : "no access token: checks only, adds refused")
            : "access token required");
    err.flush();
    stopped.await();
    return 0;
  }

  /** The token of DEDUP_SERVE_TOKEN, else of serve.token in the config file, else null. */
  private AccessToken token() throws IOException {
    String fromEnv = env.get(TOKEN_ENV);
    if (fromEnv != null && !fromEnv.isEmpty()) {
      return AccessToken.of(fromEnv, TOKEN_ENV);
    }
    if (config == null) {
      return null;
    }
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(config, StandardCharsets.UTF_8)) {
      props.load(reader);
    }
    String fromConfig = props.getProperty("serve.token", "").strip();
    return fromConfig.isEmpty() ? null : AccessToken.of(fromConfig, "serve.token");
  }
}
