package org.xiaochong.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.xiaochong.config.ConfiguredIndex;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.source.Database;

/**
 * {@code dedup bench serve --nightly}: issue 34's target "a nightly {@code run --apply} beside a
 * service taking adds", measured from outside with the real launcher. On two copies of the data
 * folder {@code bench serve} prepared (table, index, held-out posts):
 *
 * <ol>
 *   <li>the twin: {@code run --report} (dry) then {@code run --apply --report}, no service;
 *   <li>the served copy: {@code dedup serve} as its own process; first a sample of the table's rows
 *       is checked ({@code /v1/check}, no add) and each answer compared with what the twin's dry
 *       run decided for that row; then the held-out posts are added at {@code rate} per second, and
 *       after a while {@code run --apply --report} runs beside, the adds going on throughout and a
 *       while after; the service is then stopped (SIGTERM: drained, committed).
 * </ol>
 *
 * <p>Then: the run's exit code; the add answers that were not 200; each post answered {@code added:
 * true} looked up by id in the record index. The service's adds never reach the table (the embedded
 * server is the run's alone), so a run's sync drops those the index held when it started
 * (docs/serve.md, "The run reconciles"): the adds answered before the run must be gone, those after
 * the service handed the index over must be there, and those in between are cut in two. Finally the
 * served run's decisions (removed id → kept id, rule) against the twin's: the service's adds must
 * not change them.
 */
final class ServeNightly {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What to run and how hard. */
  record Settings(
      Path launcher,
      String method,
      double addRate,
      int sample,
      int secondsBefore,
      int secondsAfter) {}

  private final PrintWriter out;
  private final Settings settings;
  private final Map<String, Object> json = new LinkedHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private long t0;

  ServeNightly(PrintWriter out, Settings settings) {
    this.out = out;
    this.settings = settings;
  }

  /** Runs it all on copies of {@code prepared}; returns the failures (0: the target is met). */
  int run(Path prepared) throws Exception {
    Path twin = copy(prepared, "-twin");
    Path served = copy(prepared, "-served");
    t0 = System.nanoTime();

    // 1. The twin, no service: what the runs decide alone.
    int twinDry = dedup(twin, "twin-dry", List.of("run", "--method", settings.method()));
    int twinApply =
        dedup(twin, "twin-apply", List.of("run", "--apply", "--method", settings.method()));
    Map<Long, String> dry = decisions(twin.resolve("twin-dry"));
    Map<Long, String> alone = decisions(twin.resolve("twin-apply"));
    out.printf(
        "twin (no service): run exit %d (%,d decisions), run --apply exit %d (%,d decisions);"
            + " dry and applied decisions equal: %s%n",
        twinDry, dry.size(), twinApply, alone.size(), dry.equals(alone));

    // 2. The sample to check, read from the prepared table (the copies are the same).
    List<String> sample = sample(prepared, dry);

    // 3. The service on the served copy.
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    List<String> serveLog = new ArrayList<>();
    Process serve =
        new ProcessBuilder(
                settings.launcher().toString(),
                "serve",
                "--config",
                properties(served).toString(),
                "--port",
                Integer.toString(port),
                "--allow-anonymous-adds")
            .redirectOutput(served.resolve("serve.out").toFile())
            .redirectError(served.resolve("serve.err").toFile())
            .start();
    Thread logReader =
        timestamped(serve, served.resolve("serve.err"), serveLog, served.resolve("serve.log"));
    URI base = URI.create("http://127.0.0.1:" + port);
    awaitHealth(base, serve, served.resolve("serve.err"));

    int failures = 0;
    int sampleUnlike = compareSample(base, sample, dry, served.resolve("sample-unlike.txt"));

    // 4. Adds at the rate, the run beside after secondsBefore, the adds going on after it.
    List<String> posts =
        Files.readAllLines(prepared.resolve("checks.jsonl"), StandardCharsets.UTF_8);
    AddStream adds = new AddStream(base.resolve("/v1/check?add=true"), posts);
    Thread adder = new Thread(adds::run, "nightly-adds");
    adder.start();
    Thread.sleep(settings.secondsBefore() * 1000L);
    double runStart = now();
    int servedApply =
        dedup(served, "served-apply", List.of("run", "--apply", "--method", settings.method()));
    double runEnd = now();
    Thread.sleep(settings.secondsAfter() * 1000L);
    adds.stop();
    adder.join();
    Thread.sleep(2000); // the last adds' background commit
    serve.destroy(); // SIGTERM: drains, commits, exits
    int serveExit = serve.waitFor();
    logReader.join();
    boolean stoppedCleanly = firstLine(serveLog, "serve: stopped") < Double.POSITIVE_INFINITY;

    // 5. The figures.
    double handedOver = firstLine(serveLog, "write lock handed over");
    // Taken in by the maintenance (which says so) or by the first add after the run (the replay's
    // note).
    double takenBack =
        Math.min(
            firstLineAfter(serveLog, "adds logged meanwhile are in it", runStart),
            firstLineAfter(serveLog, "of the add log added to the index", runStart));
    List<Add> answered = adds.answered();
    long refused = answered.stream().filter(a -> a.status != 200).count();
    double span =
        answered.isEmpty() ? 0 : answered.get(answered.size() - 1).sentAt - answered.get(0).sentAt;
    long[] indexed = indexedIds(served);
    // Adds answered before the run started were committed before it asked for the index: its sync
    // drops them all. From the hand-over's commit (inside the service, shortly before it logs the
    // hand-over) adds are logged and taken in after the run: all there. In between, answers cross
    // that commit: each may be either, but in answer order every one gone comes before every one
    // there (a cut), give or take answers that crossed in flight.
    int before = 0;
    int beforeFound = 0;
    int between = 0;
    int betweenFound = 0;
    int goneAfterAFoundOne = 0;
    int after = 0;
    int afterMissing = 0;
    List<Long> missingIds = new ArrayList<>();
    try (PrintWriter perAdd =
        new PrintWriter(Files.newBufferedWriter(served.resolve("adds.jsonl")))) {
      for (Add add : answered) {
        perAdd.println(
            JSON.createObjectNode()
                .put("id", add.id)
                .put("sent_at", add.sentAt)
                .put("answered_at", add.answeredAt)
                .put("status", add.status)
                .put("added", add.added)
                .put("in_index", Arrays.binarySearch(indexed, add.id) >= 0));
      }
    }
    List<Add> inAnswerOrder = new ArrayList<>(answered);
    inAnswerOrder.sort(java.util.Comparator.comparingDouble(a -> a.answeredAt));
    for (Add add : inAnswerOrder) {
      if (add.status != 200 || !add.added) {
        continue;
      }
      boolean found = Arrays.binarySearch(indexed, add.id) >= 0;
      if (add.answeredAt < runStart) {
        before++;
        beforeFound += found ? 1 : 0;
      } else if (add.answeredAt < handedOver) {
        between++;
        goneAfterAFoundOne += !found && betweenFound > 0 ? 1 : 0;
        betweenFound += found ? 1 : 0;
      } else {
        after++;
        if (!found) {
          afterMissing++;
          missingIds.add(add.id);
        }
      }
    }
    Map<Long, String> withService = decisions(served.resolve("served-apply"));
    List<String> differ = differences(alone, withService);
    List<Path> logsLeft = addLogs(served);

    out.printf(
        "served: run --apply exit %d (%.1f s, from %.1f s), service exit %d (143: SIGTERM), stopped"
            + " cleanly: %s; hand-over"
            + " at %.1f s, logged adds taken in at %.1f s%n",
        servedApply, runEnd - runStart, runStart, serveExit, stoppedCleanly, handedOver, takenBack);
    out.printf(
        "adds: %,d sent over %.1f s = %.1f/s (target %.0f/s); refused (not 200): %,d; latency p50"
            + " %.1f ms, p99 %.1f ms, max %.1f ms%n",
        answered.size(),
        span,
        answered.size() / Math.max(span, 1e-9),
        settings.addRate(),
        refused,
        percentile(answered, 50),
        percentile(answered, 99),
        percentile(answered, 100));
    out.printf(
        "answered added:true before the run: %,d, in the index after: %,d (the run's sync drops"
            + " them: their rows never reached the table); while the run asked for the index: %,d,"
            + " in the index after: %,d (gone after one there: %,d); after the hand-over: %,d,"
            + " missing from the index: %,d %s; add log files left: %d%n",
        before,
        beforeFound,
        between,
        betweenFound,
        goneAfterAFoundOne,
        after,
        afterMissing,
        missingIds.stream().limit(10).toList(),
        logsLeft.size());
    out.printf(
        "decisions: alone %,d, beside the service %,d, differing: %,d %s%n",
        alone.size(), withService.size(), differ.size(), differ.stream().limit(5).toList());

    failures += servedApply != 0 || twinApply != 0 || twinDry != 0 ? 1 : 0;
    failures += refused > 0 ? 1 : 0;
    failures += stoppedCleanly ? 0 : 1;
    failures += afterMissing > 0 || beforeFound > 0 || goneAfterAFoundOne > 0 ? 1 : 0;
    failures += differ.isEmpty() ? 0 : 1;
    json.put("twin_run_exit", twinDry);
    json.put("twin_apply_exit", twinApply);
    json.put("served_apply_exit", servedApply);
    json.put("service_stopped_cleanly", stoppedCleanly);
    json.put("run_seconds", runEnd - runStart);
    json.put("hand_over_at", handedOver);
    json.put("logged_adds_taken_in_at", takenBack);
    json.put("adds_sent", answered.size());
    json.put("adds_per_second", answered.size() / Math.max(span, 1e-9));
    json.put("adds_refused", refused);
    json.put("adds_latency_ms_p50", percentile(answered, 50));
    json.put("adds_latency_ms_p99", percentile(answered, 99));
    json.put("adds_latency_ms_max", percentile(answered, 100));
    json.put("added_before_run", before);
    json.put("added_before_run_in_index", beforeFound);
    json.put("added_while_run_asked", between);
    json.put("added_while_run_asked_in_index", betweenFound);
    json.put("added_while_run_asked_gone_after_one_in_index", goneAfterAFoundOne);
    json.put("added_after_hand_over", after);
    json.put("added_after_hand_over_missing", afterMissing);
    json.put("add_log_files_left", logsLeft.size());
    json.put("decisions_alone", alone.size());
    json.put("decisions_beside_service", withService.size());
    json.put("decisions_differing", differ.size());
    json.put("failures", failures);
    json.put("sample_unlike", sampleUnlike);
    JSON.writerWithDefaultPrettyPrinter()
        .writeValue(served.resolve("bench-nightly.json").toFile(), json);
    out.printf(
        "nightly target met: %s; check and the next run agree on every sampled row: %s; figures"
            + " in %s%n",
        failures == 0 ? "yes" : "NO",
        sampleUnlike == 0 ? "yes" : "NO",
        served.resolve("bench-nightly.json"));
    return failures + sampleUnlike;
  }

  /** A fresh copy of the prepared folder beside it (no database server runs on it now). */
  private static Path copy(Path prepared, String suffix) throws IOException {
    Path target = prepared.resolveSibling(prepared.getFileName() + suffix);
    EvalCommand.deleteTree(target);
    try (Stream<Path> files = Files.walk(prepared)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Path to = target.resolve(prepared.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else if (!from.getFileName().toString().endsWith(".pid")) {
          Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    return target;
  }

  private static Path properties(Path dataDir) throws IOException {
    Path file = dataDir.resolve("bench-serve.properties");
    Files.writeString(file, "data.dir=" + dataDir.toAbsolutePath() + "\n");
    return file;
  }

  /** Runs {@code bin/dedup <args> --config … --report <dataDir>/<name>}; returns its exit code. */
  private int dedup(Path dataDir, String name, List<String> args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(settings.launcher().toString());
    command.addAll(args);
    command.addAll(
        List.of(
            "--config",
            properties(dataDir).toString(),
            "--report",
            dataDir.resolve(name).toString()));
    long start = System.nanoTime();
    int exit =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dataDir.resolve(name + ".log").toFile())
            .start()
            .waitFor();
    out.printf(
        "  %s: `%s` exit %d in %.1f s%n",
        dataDir.getFileName(), String.join(" ", args), exit, (System.nanoTime() - start) / 1e9);
    return exit;
  }

  /** removed id → "kept id rule" of a run's decisions.jsonl. */
  private static Map<Long, String> decisions(Path report) throws IOException {
    Map<Long, String> plan = new HashMap<>();
    Path file = report.resolve("decisions.jsonl");
    if (!Files.exists(file)) {
      return plan;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      JsonNode d = JSON.readTree(line);
      plan.put(
          d.get("removed_id").asLong(), d.get("kept_id").asLong() + " " + d.get("rule").asText());
    }
    return plan;
  }

  private static List<String> differences(Map<Long, String> alone, Map<Long, String> beside) {
    Set<Long> ids = new HashSet<>(alone.keySet());
    ids.addAll(beside.keySet());
    return ids.stream()
        .sorted()
        .filter(id -> !java.util.Objects.equals(alone.get(id), beside.get(id)))
        .map(id -> id + ": alone " + alone.get(id) + ", beside " + beside.get(id))
        .toList();
  }

  /**
   * Rows of the table to check: up to a third each of rows the dry run removes, rows it keeps over
   * others, and rows it leaves alone, taken evenly over each set (by id).
   */
  private List<String> sample(Path prepared, Map<Long, String> dry) {
    Set<Long> kept =
        dry.values().stream()
            .map(v -> Long.parseLong(v.substring(0, v.indexOf(' '))))
            .collect(Collectors.toSet());
    List<Long> removed = dry.keySet().stream().sorted().toList();
    DedupConfig config = DedupConfig.forDataDir(prepared);
    String id = config.table().idColumn();
    int third = settings.sample() / 3;
    try (Database database = Database.open(config.db())) {
      List<String> rows = new ArrayList<>();
      rows.addAll(byIds(database, config, spread(removed, third)));
      rows.addAll(byIds(database, config, spread(kept.stream().sorted().toList(), third)));
      // Rows in no decision: every n-th id of the table, those in one skipped.
      List<String> rest =
          ServeBenchSetup.recordLines(
              database, config, "WHERE MOD(" + id + ", 97) = 0 ORDER BY " + id);
      int others = settings.sample() - rows.size();
      for (String row : rest) {
        long rowId = readId(row, id);
        if (others > 0 && !dry.containsKey(rowId) && !kept.contains(rowId)) {
          rows.add(row);
          others--;
        }
      }
      return rows;
    }
  }

  private static long readId(String row, String id) {
    try {
      return JSON.readTree(row).get(id).asLong();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Long> spread(List<Long> ids, int n) {
    List<Long> picked = new ArrayList<>();
    for (int i = 0; i < n && !ids.isEmpty() && i < ids.size(); i++) {
      picked.add(ids.get((int) ((long) i * ids.size() / Math.min(n, ids.size()))));
    }
    return picked;
  }

  private static List<String> byIds(Database database, DedupConfig config, List<Long> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    String in = ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    return ServeBenchSetup.recordLines(
        database,
        config,
        "WHERE "
            + config.table().idColumn()
            + " IN ("
            + in
            + ") ORDER BY "
            + config.table().idColumn());
  }

  /**
   * Checks the sample through the service and compares each answer with the dry run's decision for
   * that row: removed (the check keeps the existing twin), kept over others (the check keeps the
   * record), in no decision (the check finds no twin). Returns the rows that differ.
   */
  private int compareSample(URI base, List<String> sample, Map<Long, String> dry, Path compared)
      throws Exception {
    Map<Long, Long> keptOf = new HashMap<>();
    dry.forEach(
        (removed, v) -> keptOf.put(removed, Long.parseLong(v.substring(0, v.indexOf(' ')))));
    Set<Long> kept = new HashSet<>(keptOf.values());
    Map<String, Integer> table = new LinkedHashMap<>();
    int agree = 0;
    int sameTwin = 0;
    int removedRows = 0;
    int sameStatus = 0;
    List<String> unlike = new ArrayList<>();
    for (String row : sample) {
      HttpResponse<String> answer = post(base.resolve("/v1/check"), row);
      JsonNode v = JSON.readTree(answer.body());
      long id = v.get("id").asLong();
      String run = keptOf.containsKey(id) ? "removed" : kept.contains(id) ? "kept" : "untouched";
      String check =
          v.get("verdict").asText().equals("new")
              ? "new"
              : v.get("verdict").asText() + "/keep " + v.get("keep").asText();
      table.merge(run + " → " + check, 1, Integer::sum);
      boolean same =
          switch (run) {
            case "removed" -> check.endsWith("keep existing");
            case "kept" -> check.endsWith("keep new");
            default -> check.equals("new");
          };
      agree += same ? 1 : 0;
      if (run.equals("removed")) {
        removedRows++;
        sameTwin += v.get("kept_id").asLong() == keptOf.get(id) ? 1 : 0;
      }
      sameStatus += run.equals("untouched") == check.equals("new") ? 1 : 0;
      if (!same) {
        unlike.add(
            id
                + ": run "
                + run
                + (keptOf.containsKey(id) ? " for " + dry.get(id) : "")
                + ", check "
                + v);
      }
    }
    Files.write(compared, unlike, StandardCharsets.UTF_8);
    out.printf(
        "check vs the next run (dry), %,d rows of the table: %,d agree (%.2f %%) on which row is"
            + " kept, %,d on duplicate or not; of %,d the run removes, %,d named the run's kept row as"
            + " twin; run → check: %s%n",
        sample.size(),
        agree,
        100.0 * agree / Math.max(1, sample.size()),
        sameStatus,
        removedRows,
        sameTwin,
        table);
    unlike.stream().limit(5).forEach(u -> out.println("  unlike: " + u));
    out.printf("  every unlike answer in %s%n", compared);
    json.put("sample", sample.size());
    json.put("sample_agree", agree);
    json.put("sample_same_status", sameStatus);
    json.put("sample_removed_same_twin", sameTwin);
    json.put("sample_table", table);
    return sample.size() - agree;
  }

  private HttpResponse<String> post(URI uri, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(120))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Waits until the service answers /v1/health; when it exits first, says why with the last line of
   * its stderr ({@code err}).
   */
  private void awaitHealth(URI base, Process serve, Path err) throws Exception {
    long deadline = System.nanoTime() + 300_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (!serve.isAlive()) {
        List<String> lines = Files.exists(err) ? Files.readAllLines(err) : List.of();
        String why =
            lines.stream().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("no output");
        throw new IllegalStateException(
            "dedup serve exited " + serve.exitValue() + ": " + why + " (all of it in " + err + ")");
      }
      try {
        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(base.resolve("/v1/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("dedup serve did not answer /v1/health in 300 s");
  }

  /**
   * Follows the service's stderr (redirected to {@code err}) into {@code file} and {@code lines},
   * each line with the time it was read, until the process has exited and the file is read to its
   * end (read from the file, not the pipe, so that the lines written as it stops are not lost).
   */
  private Thread timestamped(Process process, Path err, List<String> lines, Path file) {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in = Files.newBufferedReader(err, StandardCharsets.UTF_8);
                  PrintWriter log = new PrintWriter(Files.newBufferedWriter(file))) {
                while (true) {
                  boolean exited = !process.isAlive();
                  String line = in.readLine();
                  if (line == null) {
                    if (exited) {
                      return;
                    }
                    Thread.sleep(20);
                    continue;
                  }
                  String stamped = String.format("%.3f %s", now(), line);
                  synchronized (lines) {
                    lines.add(stamped);
                  }
                  log.println(stamped);
                  log.flush();
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "serve-log");
    reader.start();
    return reader;
  }

  private static double firstLine(List<String> lines, String text) {
    return firstLineAfter(lines, text, Double.NEGATIVE_INFINITY);
  }

  /** The time of the first line holding {@code text} at or after {@code from}; infinity if none. */
  private static double firstLineAfter(List<String> lines, String text, double from) {
    synchronized (lines) {
      for (String line : lines) {
        double at = Double.parseDouble(line.substring(0, line.indexOf(' ')));
        if (at >= from && line.contains(text)) {
          return at;
        }
      }
    }
    return Double.POSITIVE_INFINITY;
  }

  private static long[] indexedIds(Path dataDir) {
    DedupConfig config = DedupConfig.forDataDir(dataDir);
    try (FingerprintIndex index = ConfiguredIndex.openReadOnly(config);
        org.apache.lucene.index.DirectoryReader reader = index.openReader()) {
      return FingerprintIndex.liveIdsSorted(reader);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> addLogs(Path dataDir) throws IOException {
    Path indexDir = DedupConfig.forDataDir(dataDir).indexDir();
    try (Stream<Path> files = Files.list(indexDir)) {
      return files.filter(f -> f.getFileName().toString().startsWith("adds-")).toList();
    }
  }

  private double now() {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static double percentile(List<Add> adds, double p) {
    return ServeLoad.percentile(adds.stream().mapToDouble(a -> a.latencyMillis).toArray(), p);
  }

  /** One add sent: its post's id, when (s since the start), its answer. */
  private static final class Add {
    final long id;
    final double sentAt;
    double answeredAt;
    double latencyMillis;
    int status;
    boolean added;

    Add(long id, double sentAt) {
      this.id = id;
      this.sentAt = sentAt;
    }
  }

  /**
   * The held-out posts, one per request, sent at {@link Settings#addRate} a second whatever the
   * answers' latency (each request on its own, as independent crawler workers send them), until
   * stopped or the posts run out. A request that fails without an answer is sent once more (the JDK
   * client does not retry a POST on a kept-alive connection the server closed); one that fails
   * twice counts as refused (status 0).
   */
  private final class AddStream {
    private final URI uri;
    private final List<String> posts;
    private final List<Add> sent = new ArrayList<>();
    private final List<CompletableFuture<Void>> pending = new ArrayList<>();
    private volatile boolean stopped;

    AddStream(URI uri, List<String> posts) {
      this.uri = uri;
      this.posts = posts;
    }

    void run() {
      long start = System.nanoTime();
      for (int i = 0; i < posts.size() && !stopped; i++) {
        long due = start + (long) (i * 1e9 / settings.addRate());
        long wait = due - System.nanoTime();
        if (wait > 0) {
          try {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        String body = posts.get(i);
        Add add = new Add(readId(body, "id"), now());
        long sentNanos = System.nanoTime();
        sent.add(add);
        pending.add(
            send(body, true)
                .thenAccept(
                    response -> {
                      add.latencyMillis = (System.nanoTime() - sentNanos) / 1e6;
                      add.answeredAt = now();
                      add.status = response == null ? 0 : response.statusCode();
                      if (add.status == 200) {
                        try {
                          add.added = JSON.readTree(response.body()).path("added").asBoolean();
                        } catch (IOException e) {
                          add.status = -1;
                        }
                      }
                    }));
      }
    }

    private CompletableFuture<HttpResponse<String>> send(String body, boolean retry) {
      HttpRequest request =
          HttpRequest.newBuilder(uri)
              .timeout(Duration.ofSeconds(120))
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .header("Content-Type", "application/json")
              .build();
      return http.sendAsync(request, HttpResponse.BodyHandlers.ofString())
          .exceptionallyCompose(
              e -> retry ? send(body, false) : CompletableFuture.completedFuture(null));
    }

    void stop() {
      stopped = true;
    }

    /** Every add sent, once answered, in the order sent. */
    List<Add> answered() {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
      return sent;
    }
  }
}
