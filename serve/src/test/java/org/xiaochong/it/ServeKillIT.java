package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.posts.PostLoader;

/**
 * {@code dedup serve} as a real process: what {@code POST /v1/check?add=true} answered survives a
 * {@code kill -9} right after the answers (each add is committed before it is answered), and
 * SIGTERM stops the service cleanly.
 */
@Tag("db")
class ServeKillIT extends DbTestSupport {
  private static final Pattern LISTENING = Pattern.compile("on http://127\\.0\\.0\\.1:(\\d+)/");
  private static final int ADDED = 500;

  @TempDir Path dir;

  /** A running {@code dedup serve}, its port, and the file its stderr goes to. */
  private record Server(Process process, int port, Path errFile) {
    /** Its stderr so far (a file: a pipe read after the process ends may lose its last lines). */
    String err() throws java.io.IOException {
      return Files.readString(errFile, StandardCharsets.UTF_8);
    }
  }

  private Server start(Path config, String name) throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ProcessBuilder builder =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m",
            "-cp",
            classPath,
            "org.xiaochong.cli.DedupCommand",
            "serve",
            "--config",
            config.toString(),
            "--port",
            "0",
            "--allow-anonymous-adds");
    Path errFile = dir.resolve(name + ".err");
    builder.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(errFile.toFile());
    Process process = builder.start();
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      String err = Files.readString(errFile, StandardCharsets.UTF_8);
      Matcher m = LISTENING.matcher(err);
      if (m.find()) {
        return new Server(process, Integer.parseInt(m.group(1)), errFile);
      }
      assertThat(process.isAlive()).as("serve stopped before listening: %s", err).isTrue();
      Thread.sleep(100);
    }
    process.destroyForcibly();
    throw new AssertionError(
        "serve did not listen within 120 s: " + Files.readString(errFile, StandardCharsets.UTF_8));
  }

  @Test
  void addedRecords_killMinus9RightAfterTheAnswers_areAllKnownAfterARestart() throws Exception {
    PostLoader.reload(database(), 13L, 1_000, null, n -> {}, t -> {});
    Path config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
    CliRun run = cli("run", "--config", config.toString(), "--method", "exact,near");
    assertThat(run.exitCode()).as(run.err()).isZero();

    List<ObjectNode> records = new ArrayList<>();
    for (int i = 0; i < ADDED; i++) {
      // Later ids are later posts: each is kept over any twin among the earlier ones, so all are
      // added.
      records.add(
          ServeIT.truffle(
              40_000_000L + i,
              String.format("136 %04d %04d", i / 100, i),
              java.time.LocalDateTime.of(2031, 1, 1, 0, 0).plusMinutes(i).toString()));
    }
    Server server = start(config, "first");
    ServiceClient client = new ServiceClient(server.port(), null);
    // 4 clients at once: two send one record per request, two arrays of 25 (the commits are
    // shared).
    ExecutorService clients = Executors.newFixedThreadPool(4);
    List<Future<List<JsonNode>>> answers = new ArrayList<>();
    int share = ADDED / 4;
    for (int c = 0; c < 4; c++) {
      List<ObjectNode> mine = records.subList(c * share, (c + 1) * share);
      int perRequest = c % 2 == 0 ? 1 : 25;
      answers.add(
          clients.submit(
              () -> {
                List<JsonNode> verdicts = new ArrayList<>();
                for (int from = 0; from < mine.size(); from += perRequest) {
                  List<ObjectNode> batch =
                      mine.subList(from, Math.min(mine.size(), from + perRequest));
                  ServiceClient.Reply reply =
                      perRequest == 1
                          ? client.post("/v1/check?add=true", batch.get(0).toString())
                          : client.post(
                              "/v1/check?add=true",
                              ServeIT.JSON.createArrayNode().addAll(batch).toString());
                  assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                  if (perRequest == 1) {
                    verdicts.add(reply.json());
                  } else {
                    reply.json().forEach(verdicts::add);
                  }
                }
                return verdicts;
              }));
    }
    int added = 0;
    for (Future<List<JsonNode>> answer : answers) {
      for (JsonNode verdict : answer.get(120, TimeUnit.SECONDS)) {
        assertThat(verdict.get("added").asBoolean()).as(verdict.toString()).isTrue();
        added++;
      }
    }
    clients.shutdown();
    assertThat(added).isEqualTo(ADDED);

    server.process().destroyForcibly(); // SIGKILL: no shutdown hook, no close, no commit on close
    assertThat(server.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(server.process().exitValue()).isEqualTo(137);
    assertThat(server.err().toString()).doesNotContain("serve: stopped");

    Server again = start(config, "again");
    ServiceClient after = new ServiceClient(again.port(), null);
    for (int from = 0; from < ADDED; from += 100) {
      ArrayNode batch = ServeIT.JSON.createArrayNode();
      records.subList(from, from + 100).forEach(r -> batch.add(ServeIT.underAnotherId(r)));
      JsonNode verdicts = after.post("/v1/check", batch.toString()).json();
      for (int i = 0; i < 100; i++) {
        JsonNode verdict = verdicts.get(i);
        assertThat(verdict.get("verdict").asText()).as(verdict.toString()).isEqualTo("exact");
        assertThat(verdict.get("kept_id").asLong())
            .as(verdict.toString())
            .isEqualTo(40_000_000L + from + i);
      }
    }
    // The clients never saw the answers and send every add again: none is told to drop its post.
    for (int from = 0; from < ADDED; from += 100) {
      ArrayNode batch = ServeIT.JSON.createArrayNode().addAll(records.subList(from, from + 100));
      JsonNode verdicts = after.post("/v1/check?add=true", batch.toString()).json();
      for (JsonNode verdict : verdicts) {
        assertThat(verdict.get("keep").asText()).as(verdict.toString()).isEqualTo("new");
        assertThat(verdict.get("added").asBoolean()).as(verdict.toString()).isTrue();
        assertThat(verdict.get("kept_id").asLong(-1))
            .as(verdict.toString())
            .isNotEqualTo(verdict.get("id").asLong());
      }
    }

    // SIGTERM: requests in flight finish, what was added is committed, the process ends.
    long stopping = System.nanoTime();
    again.process().destroy();
    assertThat(again.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(again.process().exitValue())
        .isEqualTo(143); // 128 + SIGTERM, after the shutdown hook
    assertThat(System.nanoTime() - stopping).as("stop time").isLessThan(20_000_000_000L);
    assertThat(again.err().toString()).contains("serve: stopped");
  }

  @Test
  void serve_onAPublicAddressWithoutToken_refusesToStart() throws Exception {
    Path config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
    CliRun run = cli("serve", "--config", config.toString(), "--host", "0.0.0.0", "--port", "0");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("not a loopback address", "DEDUP_SERVE_TOKEN")
        .doesNotContain("Exception");
  }
}
