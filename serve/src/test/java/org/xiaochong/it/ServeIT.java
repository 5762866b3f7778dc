package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.serve.AccessToken;
import org.xiaochong.serve.DedupService;

/**
 * {@code dedup serve} in-process against the indexes of a real {@code run --method both} over
 * generated posts: the same verdicts as {@code dedup check}, adds, explain, metrics, the access
 * token, each kind of bad input, and life beside a run.
 */
@Tag("db")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServeIT extends DbTestSupport {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final long RECORDS = 2_000;
  static final List<String> COLUMNS =
      List.of("title", "category", "product", "region", "price", "contact", "phone", "content");
  private static final String TOKEN = "it-token-0123456789abcdef";

  private Path dir;
  private Path config;
  private DedupConfig dedupConfig;
  private Deduplicator dedup;
  private DedupService service;
  private ServiceClient client;
  private final List<String> serviceLog = new java.util.concurrent.CopyOnWriteArrayList<>();

  @BeforeAll
  void buildIndexAndStart() throws Exception {
    dir = Files.createTempDirectory("serve-it");
    PostLoader.reload(database(), 11L, RECORDS, null, n -> {}, t -> {});
    config = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
    CliRun run = cli("run", "--config", config.toString(), "--method", "exact,near");
    assertThat(run.exitCode()).as(run.err()).isZero();
    dedupConfig = loadConfig(config);
    dedup = Deduplicator.open(dedupConfig, Deduplicator.Options.DEFAULT);
    service =
        new DedupService(
            dedup,
            dedupConfig.table(),
            DedupService.Settings.defaults("127.0.0.1", 0, AccessToken.of(TOKEN, "test"))
                .withSizes(1 << 20, 64 << 10, 200)
                .withMaintenanceMillis(200),
            line -> {
              serviceLog.add(line);
              System.err.println("ServeIT service: " + line); // in the build log
            });
    client = new ServiceClient(service.start(), TOKEN);
  }

  @AfterAll
  void stop() {
    if (service != null) {
      service.stop();
    }
    if (dedup != null) {
      dedup.close();
    }
  }

  /**
   * Rows of the table as records (the sample columns, NULL kept as null), with new ids from {@code
   * firstId}.
   */
  static List<ObjectNode> tableRecords(String sql, long firstId, String contentSuffix) {
    List<ObjectNode> records = new ArrayList<>();
    withHandle(
        h ->
            h.createQuery(sql)
                .map(
                    (rs, ctx) -> {
                      ObjectNode record = JSON.createObjectNode();
                      record.put("id", firstId + records.size());
                      for (String c : COLUMNS) {
                        String value = rs.getString(c);
                        record.put(
                            c,
                            value == null || !c.equals("content") ? value : value + contentSuffix);
                      }
                      record.put("reg_time", "2030-01-01T08:00");
                      records.add(record);
                      return null;
                    })
                .list());
    return records;
  }

  /**
   * 310 records: 100 copies of rows (exact), 100 rows with a phrase added (near or new), 100 with
   * another time (older: the existing record is kept), 10 posts of a product the table lacks (new).
   */
  private List<ObjectNode> mixedRecords(long firstId) {
    List<ObjectNode> records =
        new ArrayList<>(
            tableRecords("SELECT * FROM supply_demand ORDER BY id LIMIT 100", firstId, ""));
    records.addAll(
        tableRecords(
            "SELECT * FROM supply_demand ORDER BY id DESC LIMIT 100", firstId + 100, "，欢迎来电咨询"));
    List<ObjectNode> older =
        tableRecords(
            "SELECT * FROM supply_demand ORDER BY id LIMIT 100 OFFSET 500", firstId + 200, "");
    older.forEach(r -> r.put("reg_time", "2001-01-01 08:00:00"));
    records.addAll(older);
    for (int i = 0; i < 10; i++) {
      records.add(truffle(firstId + 300 + i, "135 0000 " + (2000 + i), "2031-01-01T08:00"));
    }
    return records;
  }

  @Test
  void check_theSameRecords_givesCheckCommandsVerdictsInBatchesAndOneByOne() throws Exception {
    List<ObjectNode> records = mixedRecords(50_000_000L);
    CliRun cli =
        cliWithInput(
            records.stream().map(JsonNode::toString).toList(),
            "check",
            "--config",
            config.toString());
    assertThat(cli.exitCode()).as(cli.err()).isZero();
    List<JsonNode> expected = new ArrayList<>();
    for (String line : cli.out().split("\n")) {
      expected.add(JSON.readTree(line));
    }
    assertThat(expected).hasSize(records.size());
    assertThat(expected)
        .extracting(v -> v.get("verdict").asText())
        .contains("exact", "near", "new");
    assertThat(expected).extracting(v -> v.get("keep").asText()).contains("new", "existing");

    List<JsonNode> batched = new ArrayList<>();
    for (int from = 0; from < records.size(); from += 100) {
      ArrayNode batch =
          JSON.createArrayNode()
              .addAll(records.subList(from, Math.min(records.size(), from + 100)));
      ServiceClient.Reply reply = client.post("/v1/check", batch.toString());
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      reply.json().forEach(batched::add);
    }
    assertThat(batched).isEqualTo(expected);

    // One by one from 4 clients at once: the same verdict for each.
    ExecutorService clients = Executors.newFixedThreadPool(4);
    try {
      List<Future<JsonNode>> single = new ArrayList<>();
      for (ObjectNode record : records) {
        single.add(clients.submit(() -> client.post("/v1/check", record.toString()).json()));
      }
      for (int i = 0; i < records.size(); i++) {
        assertThat(single.get(i).get()).as("record %d", i).isEqualTo(expected.get(i));
      }
    } finally {
      clients.shutdown();
    }
  }

  @Test
  void checksOnManyThreads_whileOneAdds_keepTheirVerdictsAndEveryAddIsKnown() throws Exception {
    List<ObjectNode> records = mixedRecords(51_000_000L).subList(0, 60);
    String batch = JSON.createArrayNode().addAll(records).toString();
    JsonNode expected = client.post("/v1/check", batch).json();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < 3; r++) {
        readers.add(
            threads.submit(
                () -> {
                  int answers = 0;
                  for (int round = 0; round < 10; round++) {
                    assertThat(client.post("/v1/check", batch).json()).isEqualTo(expected);
                    for (int i = round; i < records.size(); i += 10) {
                      assertThat(client.post("/v1/check", records.get(i).toString()).json())
                          .isEqualTo(expected.get(i));
                      answers++;
                    }
                  }
                  return answers;
                }));
      }
      Future<List<ObjectNode>> writer =
          threads.submit(
              () -> {
                List<ObjectNode> added = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                  ObjectNode post =
                      truffle(61_000_000L + i, "137 7777 " + (1000 + i), "2031-02-01T08:00");
                  ServiceClient.Reply reply = client.post("/v1/check?add=true", post.toString());
                  assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                  assertThat(reply.json().get("added").asBoolean()).isTrue();
                  added.add(post);
                }
                return added;
              });
      for (Future<Integer> reader : readers) {
        assertThat(reader.get()).isEqualTo(60);
      }
      for (ObjectNode post : writer.get()) {
        JsonNode known = client.post("/v1/check", underAnotherId(post).toString()).json();
        assertThat(known.get("kept_id").asLong()).isEqualTo(post.get("id").asLong());
      }
    } finally {
      threads.shutdown();
    }
  }

  @Test
  void checkAdd_newAndNewerRecords_areAddedAndKnownAfterwards() {
    List<ObjectNode> records = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      records.add(
          truffle(60_000_000L + i, "138 0000 " + (1000 + i), "2031-01-0" + (1 + i % 9) + "T08:00"));
    }
    // A newer copy of the first: kept over it, so it supersedes it and is added too.
    records.add(truffle(60_000_100L, "138 0000 1000", "2032-01-01T08:00"));
    ServiceClient.Reply added =
        client.post("/v1/check?add=true", JSON.createArrayNode().addAll(records).toString());
    assertThat(added.status()).as(added.body()).isEqualTo(200);
    JsonNode verdicts = added.json();
    for (int i = 0; i < 20; i++) {
      assertThat(verdicts.get(i).get("verdict").asText())
          .as(verdicts.get(i).toString())
          .isEqualTo("new");
      assertThat(verdicts.get(i).get("added").asBoolean()).isTrue();
    }
    JsonNode newer = verdicts.get(20);
    assertThat(newer.get("verdict").asText()).isEqualTo("exact");
    assertThat(newer.get("kept_id").asLong()).isEqualTo(60_000_000L);
    assertThat(newer.get("keep").asText()).isEqualTo("new");
    assertThat(newer.get("supersedes").toString()).isEqualTo("[60000000]");
    assertThat(newer.get("added").asBoolean()).isTrue();

    // Known now: a copy under another id repeats each (the newer copy stands for the first).
    JsonNode again =
        client
            .post(
                "/v1/check",
                JSON.createArrayNode()
                    .addAll(records.subList(1, 20).stream().map(ServeIT::underAnotherId).toList())
                    .toString())
            .json();
    for (int i = 0; i < 19; i++) {
      assertThat(again.get(i).get("verdict").asText()).isEqualTo("exact");
      assertThat(again.get(i).get("kept_id").asLong()).isEqualTo(60_000_001L + i);
    }
    JsonNode first = client.post("/v1/check", records.get(0).toString()).json();
    assertThat(first.get("kept_id").asLong()).isEqualTo(60_000_100L);
    assertThat(first.get("keep").asText()).isEqualTo("existing");
  }

  @Test
  void checkAdd_sentAgain_answersWhatTheFirstDidAndNeverDropsItsOwnPost()
      throws InterruptedException {
    // The service holding the write lock, as between runs: an earlier test may have left it in
    // the second after a hand-over, when adds are logged only and a batch's later record does not
    // see its earlier ones (docs/serve.md); that window is not what this test is about.
    assertThat(
            client
                .post(
                    "/v1/check?add=true",
                    truffle(60_000_199L, "138 0000 8999", "2031-01-01T08:00").toString())
                .status())
        .isEqualTo(200);
    untilTheServiceWrites(60_000_300L);
    ObjectNode post = truffle(60_000_200L, "138 0000 9000", "2031-01-01T08:00");
    ObjectNode newer = truffle(60_000_201L, "138 0000 9000", "2031-01-02T08:00");
    String batch = JSON.createArrayNode().add(post).add(newer).toString();
    ServiceClient.Reply first = client.post("/v1/check?add=true", batch);
    assertThat(first.status()).as(first.body()).isEqualTo(200);
    assertThat(first.json().get(0).get("verdict").asText()).isEqualTo("new");
    assertThat(first.json().get(1).get("supersedes").toString())
        .as(first.body())
        .isEqualTo("[60000200]");
    for (JsonNode verdict : first.json()) {
      assertThat(verdict.get("added").asBoolean()).isTrue();
    }
    // A client retry (timeout, proxy 502): the same answer, not "drop this post".
    ServiceClient.Reply retry = client.post("/v1/check?add=true", batch);
    assertThat(retry.json()).isEqualTo(first.json());
    ServiceClient.Reply single = client.post("/v1/check?add=true", newer.toString());
    assertThat(single.json()).isEqualTo(first.json().get(1));
  }

  /** The same post under an id of its own. */
  static ObjectNode underAnotherId(ObjectNode post) {
    return post.deepCopy().put("id", post.get("id").asLong() + 500_000_000L);
  }

  /** A post as {@link #insert} stores it (its fixed columns), of a product the generator lacks. */
  static ObjectNode crawled(long id, String phone) {
    return JSON.createObjectNode()
        .put("id", id)
        .put("title", "野生黑松露 " + phone)
        .put("category", "供应")
        .put("product", "野生黑松露")
        .put("region", "山东烟台")
        .put("price", "2.50元/斤")
        .put("contact", "王先生")
        .put("phone", phone)
        .put("content", "野生黑松露：供应野生黑松露约300斤，个大味浓，电话" + phone + "。")
        .put("reg_time", "2031-01-01T08:00");
  }

  /** A post of a product the generator never makes. */
  static ObjectNode truffle(long id, String phone, String time) {
    ObjectNode post = JSON.createObjectNode();
    post.put("id", id);
    post.put("title", "野生黑松露 " + phone);
    post.put("category", "供应");
    post.put("product", "野生黑松露");
    post.put("region", "云南楚雄");
    post.put("price", "800元/斤");
    post.put("contact", "欧阳先生");
    post.put("phone", phone);
    post.put("content", "野生黑松露：供应云南楚雄野生黑松露约300斤，个大味浓，联系人欧阳先生，电话" + phone + "。");
    post.put("reg_time", time);
    return post;
  }

  @Test
  void explain_aNearCopy_namesTheSharedKeysAndTheRulesOutcome() {
    ObjectNode near =
        tableRecords(
                "SELECT * FROM supply_demand ORDER BY id LIMIT 1 OFFSET 40", 70_000_000L, "，欢迎来电咨询")
            .get(0);
    ServiceClient.Reply reply = client.post("/v1/explain?limit=50", near.toString());
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonNode explanation = reply.json();
    assertThat(explanation.get("verdict").asText()).isIn("near", "new");
    JsonNode nearMethod = null;
    for (JsonNode method : explanation.get("methods")) {
      if (method.get("method").asText().equals("near")) {
        nearMethod = method;
      }
    }
    assertThat(nearMethod).as(explanation.toString()).isNotNull();
    JsonNode candidates = nearMethod.get("candidates");
    assertThat(candidates.size()).isPositive();
    for (JsonNode candidate : candidates) {
      assertThat(candidate.get("shared_keys").asInt()).isPositive();
      assertThat(candidate.get("score").asDouble()).isBetween(0.0, 1.0);
    }
    List<String> outcomes = new ArrayList<>();
    candidates.forEach(c -> outcomes.add(c.get("id").asLong() + " " + c.get("outcome").asText()));
    if (explanation.get("verdict").asText().equals("near")) {
      // The twin is among the candidates, and the rule joins them; a more similar one may be
      // vetoed.
      assertThat(outcomes).contains(explanation.get("kept_id").asLong() + " duplicate");
    } else {
      assertThat(outcomes).noneMatch(o -> o.endsWith(" duplicate"));
    }
  }

  @Test
  void metrics_afterRequests_exposeRequestsVerdictsLatencyAndIndexSize() {
    client.post("/v1/check", truffle(80_000_000L, "139 1111 2222", "2031-01-01T08:00").toString());
    ServiceClient.Reply metrics = client.get("/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    assertThat(metrics.body())
        .contains(
            "xiaochong_http_requests_total{endpoint=\"check\",status=\"200\"}",
            "xiaochong_verdicts_total{keep=\"new\",verdict=\"new\"}",
            "xiaochong_request_seconds_bucket{endpoint=\"check\",le=\"0.05\"}",
            "xiaochong_index_records ",
            "xiaochong_commits_total ");
  }

  @Test
  void health_answersWithoutTokenAndSaysTheMethods() {
    ServiceClient.Reply health = new ServiceClient(service.port(), null).get("/v1/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().get("status").asText()).isEqualTo("ok");
    assertThat(health.json().get("methods").toString()).contains("exact", "near");
    assertThat(health.json().get("indexed_records").asLong()).isPositive();
  }

  @Test
  void check_withoutOrWithAWrongToken_is401() {
    String record = truffle(80_000_001L, "139 1111 2223", "2031-01-01T08:00").toString();
    ServiceClient.Reply none = new ServiceClient(service.port(), null).post("/v1/check", record);
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(none.json().get("type").asText()).isEqualTo("unauthorized");
    assertThat(new ServiceClient(service.port(), TOKEN + "x").post("/v1/check", record).status())
        .isEqualTo(401);
    assertThat(new ServiceClient(service.port(), null).get("/metrics").status()).isEqualTo(401);
    assertThat(client.post("/v1/check", record).status()).isEqualTo(200);
  }

  // Bad input: a 4xx problem naming the problem, nothing added, and the service answers on.

  private void assertProblem(ServiceClient.Reply reply, int status, String type, String... detail) {
    assertThat(reply.status()).as(reply.body()).isEqualTo(status);
    assertThat(reply.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    JsonNode problem = reply.json();
    assertThat(problem.get("type").asText()).isEqualTo(type);
    assertThat(problem.get("status").asInt()).isEqualTo(status);
    assertThat(problem.get("detail").asText()).doesNotContain("\n");
    if (detail.length > 0) {
      assertThat(problem.get("detail").asText()).contains(detail);
    }
    assertThat(client.get("/v1/health").status()).isEqualTo(200);
  }

  @Test
  void check_invalidJson_is400NamingWhere() {
    assertProblem(
        client.post("/v1/check", "{\"id\": 1, \"title\": "), 400, "invalid-json", "line 1");
    assertProblem(client.post("/v1/check", "{\"id\": 1} {\"id\": 2}"), 400, "invalid-json");
    assertProblem(client.post("/v1/check", ""), 400, "invalid-json", "empty");
  }

  @Test
  void check_invalidUtf8_is400NamingTheOffset() {
    byte[] body = "{\"id\": 5, \"title\": \"苹果X\"}".getBytes(StandardCharsets.UTF_8);
    int x = new String(body, StandardCharsets.UTF_8).indexOf('X') + 6; // 苹果 is 6 bytes, 2 chars
    body[x] = (byte) 0xC3; // a lead byte followed by '"': malformed
    assertProblem(client.post("/v1/check", body), 400, "invalid-utf8", "byte offset " + x);
  }

  @Test
  void check_recordWithoutId_is400AndNothingOfTheBatchIsAdded() {
    ObjectNode good = truffle(80_000_010L, "139 1111 3333", "2031-01-01T08:00");
    ObjectNode noId = truffle(80_000_011L, "139 1111 4444", "2031-01-01T08:00");
    noId.remove("id");
    assertProblem(
        client.post("/v1/check?add=true", JSON.createArrayNode().add(good).add(noId).toString()),
        400,
        "missing-id",
        "record 1",
        "'id'");
    assertThat(client.post("/v1/check", good.toString()).json().get("verdict").asText())
        .isEqualTo("new");
    ObjectNode badId = truffle(80_000_012L, "139 1111 5555", "2031-01-01T08:00");
    badId.put("id", "12");
    assertProblem(client.post("/v1/check", badId.toString()), 400, "invalid-record", "integer");
  }

  @Test
  void check_oversizedRecord_is413() {
    ObjectNode big = truffle(80_000_020L, "139 1111 6666", "2031-01-01T08:00");
    big.put("content", "很长".repeat(40_000)); // 240 KB of UTF-8, the limit is 64 KiB
    assertProblem(client.post("/v1/check", big.toString()), 413, "record-too-large", "65536");
  }

  @Test
  void check_oversizedBody_is413() throws java.io.IOException {
    // The body is announced, not sent: the service refuses it by its declared length, before
    // reading it. (A client still writing a refused body may lose the answer to the reset that
    // follows the close; curl asks with Expect: 100-continue first for that reason.)
    String answer =
        ServiceClient.rawAnswer(
            service.port(),
            "POST /v1/check HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + TOKEN
                + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
                + ((1 << 20) + 10),
            "[");
    assertThat(answer).startsWith("HTTP/1.1 413").contains("body-too-large").contains("1048576");
  }

  @Test
  void check_tooManyRecordsOrNotObjectsOrABadFlag_is4xx() {
    ArrayNode many = JSON.createArrayNode();
    for (int i = 0; i < 201; i++) {
      many.add(JSON.createObjectNode().put("id", i));
    }
    assertProblem(
        client.post("/v1/check", many.toString()), 413, "too-many-records", "more than 200");
    assertProblem(
        client.post("/v1/check", "[{\"id\": 1}, 42]"),
        400,
        "invalid-record",
        "record 1",
        "JSON object");
    assertProblem(client.post("/v1/check", "\"苹果\""), 400, "invalid-record", "JSON object");
    assertProblem(client.post("/v1/check?add=yes", "{\"id\": 1}"), 400, "invalid-parameter", "add");
    assertProblem(client.post("/v1/nothing", "{}"), 404, "not-found", "/v1/check");
  }

  // Safe defaults: each refusal with its problem, and the service answers on.

  @Test
  void aBodyNotSentAsJson_is415() {
    byte[] record =
        truffle(80_000_030L, "139 1111 7777", "2031-01-01T08:00")
            .toString()
            .getBytes(StandardCharsets.UTF_8);
    for (String type :
        new String[] {
          "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", null
        }) {
      assertProblem(
          client.post("/v1/check?add=true", record, type),
          415,
          "unsupported-media-type",
          "application/json");
    }
    assertProblem(
        client.post("/v1/check", record, "application/json; charset=iso-8859-1"),
        415,
        "unsupported-media-type");
    assertThat(client.post("/v1/check", record, "application/json; charset=UTF-8").status())
        .isEqualTo(200);
    assertThat(client.post("/v1/check", record).json().get("verdict").asText())
        .as("nothing of the refused adds was added")
        .isEqualTo("new");
  }

  @Test
  void aForeignHostIs421_noHostIs400_theLoopbackNamesAreAnswered() throws Exception {
    int port = service.port();
    String auth = "\r\nAuthorization: Bearer " + TOKEN + "\r\nConnection: close";
    assertThat(
            ServiceClient.raw(
                port, "GET /metrics HTTP/1.1\r\nHost: rebound.example.com:" + port + auth, ""))
        .isEqualTo(421);
    assertThat(ServiceClient.raw(port, "GET /v1/health HTTP/1.1\r\nHost: 10.0.0.7", ""))
        .isEqualTo(421);
    assertThat(ServiceClient.raw(port, "GET /v1/health HTTP/1.0", "")).isEqualTo(400);
    for (String host : List.of("localhost:" + port, "127.0.0.1:" + port, "LOCALHOST", "[::1]")) {
      assertThat(ServiceClient.raw(port, "GET /metrics HTTP/1.1\r\nHost: " + host + auth, ""))
          .as(host)
          .isEqualTo(200);
    }
  }

  @Test
  void addsWithoutATokenSet_are403UnlessAnonymousAddsAreAllowed() {
    DedupService open =
        new DedupService(
            dedup,
            dedupConfig.table(),
            DedupService.Settings.defaults("127.0.0.1", 0, null),
            line -> {});
    ServiceClient anonymous = new ServiceClient(open.start(), null);
    try {
      String record = truffle(80_000_040L, "139 1111 8888", "2031-01-01T08:00").toString();
      assertThat(anonymous.post("/v1/check", record).status()).isEqualTo(200);
      assertProblem(
          anonymous.post("/v1/check?add=true", record),
          403,
          "adds-need-token",
          "--allow-anonymous-adds");
      assertThat(anonymous.post("/v1/check", record).json().get("verdict").asText())
          .isEqualTo("new");
    } finally {
      open.stop();
    }
  }

  @Test
  void anArrayOverTheRecordLimit_isRefusedWhileReading_notAfterTheWholeBody() throws Exception {
    // A chunked array of 300 records whose body never ends (no last chunk): the 201st record stops
    // the reading and the 413 comes while the client still holds the rest back. (Streamed on past
    // what the service reads, a client may lose the answer to the reset that follows the close, as
    // in check_oversizedBody_is413.)
    String records = "[{\"id\":1}" + ",{\"id\":1}".repeat(299);
    String answer =
        ServiceClient.rawAnswer(
            service.port(),
            "POST /v1/check HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                + TOKEN
                + "\r\nContent-Type: application/json\r\nConnection: close"
                + "\r\nTransfer-Encoding: chunked",
            Integer.toHexString(records.length()) + "\r\n" + records + "\r\n");
    assertThat(answer)
        .startsWith("HTTP/1.1 413")
        .contains("application/problem+json")
        .contains("too-many-records")
        .contains("more than 200");
  }

  @Test
  void requestsOverTheCap_are503WithRetryAfter_stalledBodiesAre408_healthAnswersThroughout()
      throws Exception {
    DedupService capped =
        new DedupService(
            dedup,
            dedupConfig.table(),
            // The stalled bodies hold both permits until the idle timeout: 8 s, so that the checks
            // below see the 503 on a loaded machine too (each takes a while to be answered).
            DedupService.Settings.defaults("127.0.0.1", 0, null).withConnections(2, 0, 8000),
            line -> {});
    int port = capped.start();
    ServiceClient capClient = new ServiceClient(port, null);
    List<java.net.Socket> stalled = new ArrayList<>();
    try {
      // Two requests whose body stops after its first byte: each holds one of the 2 permits.
      for (int i = 0; i < 2; i++) {
        java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        socket
            .getOutputStream()
            .write(
                ("POST /v1/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 100\r\n\r\n[")
                    .getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        stalled.add(socket);
      }
      // Until Jetty has handed both stalled requests to the service: a check sent before could
      // take a permit itself and leave one stalled request answered 503 in its place.
      waitUntil(() -> capped.requestsBeingServed() == 2);
      String record = truffle(80_000_050L, "139 1111 9999", "2031-01-01T08:00").toString();
      ServiceClient.Reply overloaded = capClient.post("/v1/check", record);
      assertThat(overloaded.status()).as(overloaded.body()).isEqualTo(503);
      assertThat(overloaded.json().get("type").asText()).isEqualTo("overloaded");
      assertThat(overloaded.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(capClient.get("/v1/health").status()).isEqualTo(200);
      // The idle timeout (8 s here) ends the stalled bodies: 408, and the permits are back.
      for (java.net.Socket socket : stalled) {
        assertThat(ServiceClient.status(socket)).isEqualTo(408);
      }
      assertThat(capClient.post("/v1/check", record).status()).isEqualTo(200);
    } finally {
      for (java.net.Socket socket : stalled) {
        socket.close();
      }
      capped.stop();
    }
  }

  @Test
  void aTricklingBody_isClosedByTheMinimumDataRate() throws Exception {
    DedupService strict =
        new DedupService(
            dedup,
            dedupConfig.table(),
            DedupService.Settings.defaults("127.0.0.1", 0, null).withConnections(8, 1000, 30_000),
            line -> {});
    int port = strict.start();
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      java.io.OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /v1/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + "Content-Length: 100000\r\n\r\n[")
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      long start = System.nanoTime();
      int status = -1;
      // One byte every 100 ms: 10 bytes/s against a minimum of 1,000.
      for (int i = 0; i < 100 && status < 0; i++) {
        Thread.sleep(100);
        try {
          out.write(' ');
          out.flush();
        } catch (java.io.IOException closed) {
          break;
        }
        if (socket.getInputStream().available() > 0) {
          status = ServiceClient.status(socket);
        }
      }
      if (status < 0) {
        status = ServiceClient.status(socket);
      }
      assertThat(status).isEqualTo(408);
      assertThat(System.nanoTime() - start)
          .as("closed long before the idle timeout")
          .isLessThan(10_000_000_000L);
    } finally {
      strict.stop();
    }
  }

  @Test
  void aFailureOfOurs_isA500WithAFixedTextAndAnIncidentId_theCauseInTheLogOnly() throws Exception {
    Path broken = dir.resolve("broken-index");
    Deduplicator closed =
        Deduplicator.open(
            loadConfig(writeConfig(dir, "supply_demand", broken, Map.of())),
            Deduplicator.Options.DEFAULT);
    closed.close();
    // The index folder replaced by a file: opening the checker again fails.
    try (java.util.stream.Stream<Path> files = Files.walk(broken)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
    Files.writeString(broken, "not a folder");
    List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
    DedupService failing =
        new DedupService(
            closed,
            dedupConfig.table(),
            DedupService.Settings.defaults("127.0.0.1", 0, null),
            logged::add);
    ServiceClient failingClient = new ServiceClient(failing.start(), null);
    try {
      ServiceClient.Reply reply =
          failingClient.post(
              "/v1/check", truffle(80_000_060L, "139 1111 0000", "2031-01-01T08:00").toString());
      assertThat(reply.status()).as(reply.body()).isEqualTo(500);
      JsonNode problem = reply.json();
      assertThat(problem.get("type").asText()).isEqualTo("internal");
      assertThat(problem.get("detail").asText())
          .isEqualTo(
              "the service failed on this request (incident "
                  + problem.get("incident").asText()
                  + " in its log)");
      assertThat(reply.body()).doesNotContain(broken.toString(), "Exception");
      assertThat(logged)
          .anyMatch(
              line ->
                  line.startsWith("serve: incident " + problem.get("incident").asText())
                      && line.contains(broken.toString()));
    } finally {
      failing.stop();
    }
  }

  @Test
  void aRunBesideTheService_getsTheIndexWhenAddsStop_andTheServiceReadsWhatTheRunCommitted()
      throws Exception {
    ObjectNode record = truffle(90_000_000L, "139 2222 0000", "2031-01-01T08:00");
    assertThat(client.post("/v1/check?add=true", record.toString()).status()).isEqualTo(200);
    // Adds stopped: the service gives the write lock back (maintenance every 200 ms here).
    waitUntil(() -> !dedup.writing());

    // While another process holds the index's write lock, adds are logged (durable, answered as
    // ever) and checks go on; once the lock is free, the logged adds join the index.
    ObjectNode whileHeld = truffle(90_000_001L, "139 2222 0001", "2031-01-01T08:00");
    try (FingerprintIndex held =
        FingerprintIndex.open(dedupConfig.indexDir(), dedupConfig.fieldsDigest(), false)) {
      ServiceClient.Reply logged = client.post("/v1/check?add=true", whileHeld.toString());
      assertThat(logged.status()).as(logged.body()).isEqualTo(200);
      assertThat(logged.json().get("added").asBoolean()).isTrue();
      assertThat(
              client
                  .post("/v1/check", underAnotherId(record).toString())
                  .json()
                  .get("kept_id")
                  .asLong())
          .isEqualTo(90_000_000L);
    }
    waitUntil(
        () ->
            client
                    .post("/v1/check", underAnotherId(whileHeld).toString())
                    .json()
                    .get("kept_id")
                    .asLong(-1)
                == 90_000_001L);

    // A run on the same index: a row new in the table is in the index once the run commits, and the
    // service reopens on that commit by itself.
    insert(
        "supply_demand",
        90_000_500L,
        "松茸干货批发",
        "松茸干",
        "139 3333 0000",
        "云南香格里拉松茸干货批发，品质上乘，量大从优。",
        java.time.LocalDateTime.of(2031, 1, 1, 8, 0));
    ObjectNode copy =
        JSON.createObjectNode()
            .put("id", 90_000_501L)
            .put("title", "松茸干货批发")
            .put("category", "供应")
            .put("product", "松茸干")
            .put("region", "山东烟台")
            .put("price", "2.50元/斤")
            .put("contact", "王先生")
            .put("phone", "139 3333 0000")
            .put("content", "云南香格里拉松茸干货批发，品质上乘，量大从优。")
            .put("reg_time", "2031-01-01T08:00");
    assertThat(client.post("/v1/check", copy.toString()).json().get("verdict").asText())
        .isEqualTo("new");
    CliRun run = cli("run", "--config", config.toString(), "--method", "exact,near");
    assertThat(run.exitCode()).as(run.err()).isZero();
    waitUntil(
        () -> {
          ServiceClient.Reply reply = client.post("/v1/check", copy.toString());
          assertThat(reply.status())
              .as(reply.body())
              .isEqualTo(200); // checks go on through the reopen
          return reply.json().get("kept_id").asLong(-1) == 90_000_500L;
        });
  }

  @Test
  void aRunStartedWhileTheServiceAdds_completes_andEveryAnsweredAddIsInTheIndexAfter()
      throws Exception {
    // A crawler adds a post every 20 ms before, during and after a run, storing each in the table
    // once answered: none is refused.
    java.util.concurrent.atomic.AtomicBoolean runDone =
        new java.util.concurrent.atomic.AtomicBoolean();
    ExecutorService adder = Executors.newSingleThreadExecutor();
    Future<List<ObjectNode>> answered =
        adder.submit(
            () -> {
              List<ObjectNode> added = new ArrayList<>();
              long doneAt = Long.MAX_VALUE;
              for (int i = 0; System.nanoTime() < doneAt; i++) {
                ObjectNode post = crawled(93_000_000L + i, "139 5555 " + (1000 + i));
                ServiceClient.Reply reply = client.post("/v1/check?add=true", post.toString());
                assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                assertThat(reply.json().get("added").asBoolean()).isTrue();
                insert(
                    "supply_demand",
                    post.get("id").asLong(),
                    post.get("title").asText(),
                    post.get("product").asText(),
                    post.get("phone").asText(),
                    post.get("content").asText(),
                    java.time.LocalDateTime.of(2031, 1, 1, 8, 0));
                added.add(post);
                if (runDone.get() && doneAt == Long.MAX_VALUE) {
                  doneAt = System.nanoTime() + 500_000_000L; // adds after the run too
                }
                Thread.sleep(20);
              }
              return added;
            });
    try {
      waitUntil(dedup::writing);
      int logged = serviceLog.size();
      CliRun run = cli("run", "--config", config.toString(), "--method", "exact,near");
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertHandedOverOrGivenBack(run, logged);
      runDone.set(true);
      List<ObjectNode> added = answered.get(120, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(added.size()).isGreaterThan(20);
      // Every answered add is in the index once the service took the lock back.
      waitUntil(
          () -> {
            ArrayNode copies = JSON.createArrayNode();
            added.forEach(post -> copies.add(underAnotherId(post)));
            JsonNode verdicts = client.post("/v1/check", copies.toString()).json();
            for (int i = 0; i < added.size(); i++) {
              if (verdicts.get(i).get("kept_id").asLong(-1) != added.get(i).get("id").asLong()) {
                return false;
              }
            }
            return true;
          });
    } finally {
      adder.shutdownNow();
    }
  }

  @Test
  void anIndexRebuildBesideTheService_isServedOnlyOnceComplete() throws Exception {
    // Copies of rows the index holds, checked over and over while `index --rebuild` runs: the
    // record index is rebuilt, the near index is not, so an empty record index served would make
    // them near copies (or new, with exact alone).
    ArrayNode copies = JSON.createArrayNode();
    tableRecords("SELECT * FROM supply_demand ORDER BY id LIMIT 200", 94_000_000L, "")
        .forEach(copies::add);
    // A row of the table that only the rebuild indexes: its copy is found once it is served.
    insert(
        "supply_demand",
        94_000_500L,
        "鹿茸切片批发",
        "鹿茸片",
        "139 6666 0000",
        "吉林梅花鹿茸切片批发，产地直供，支持验货。",
        java.time.LocalDateTime.of(2031, 1, 1, 8, 0));
    ObjectNode rowCopy =
        crawledLike(94_000_501L, "鹿茸切片批发", "鹿茸片", "139 6666 0000", "吉林梅花鹿茸切片批发，产地直供，支持验货。");
    assertThat(client.post("/v1/check", rowCopy.toString()).json().get("verdict").asText())
        .isEqualTo("new");

    java.util.concurrent.atomic.AtomicBoolean rebuilt =
        new java.util.concurrent.atomic.AtomicBoolean();
    ExecutorService checker = Executors.newSingleThreadExecutor();
    Future<Integer> batches =
        checker.submit(
            () -> {
              int n = 0;
              for (; !rebuilt.get() || n == 0; n++) {
                ServiceClient.Reply reply = client.post("/v1/check", copies.toString());
                assertThat(reply.status()).as(reply.body()).isEqualTo(200);
                for (JsonNode verdict : reply.json()) {
                  assertThat(verdict.get("verdict").asText())
                      .as(
                          "an exact copy of an indexed row, checked during the rebuild: %s",
                          verdict)
                      .isEqualTo("exact");
                }
              }
              return n;
            });
    try {
      CliRun rebuild = cli("index", "--config", config.toString(), "--rebuild");
      assertThat(rebuild.exitCode()).as(rebuild.err()).isZero();
      waitUntil(
          () ->
              client.post("/v1/check", rowCopy.toString()).json().get("kept_id").asLong(-1)
                  == 94_000_500L);
      rebuilt.set(true);
      assertThat(batches.get(60, java.util.concurrent.TimeUnit.SECONDS)).isPositive();
    } finally {
      rebuilt.set(true);
      checker.shutdownNow();
    }
  }

  private static ObjectNode crawledLike(
      long id, String title, String product, String phone, String content) {
    return JSON.createObjectNode()
        .put("id", id)
        .put("title", title)
        .put("category", "供应")
        .put("product", product)
        .put("region", "山东烟台")
        .put("price", "2.50元/斤")
        .put("contact", "王先生")
        .put("phone", phone)
        .put("content", content)
        .put("reg_time", "2031-01-01T08:00");
  }

  @Test
  void checkAdd_whileTheServiceAdds_isHandedTheIndex_andTheServiceSeesItsAdds() throws Exception {
    assertThat(
            client
                .post(
                    "/v1/check?add=true",
                    truffle(95_000_000L, "139 7777 1000", "2031-01-01T08:00").toString())
                .status())
        .isEqualTo(200);
    int logged = serviceLog.size();
    ObjectNode fromCli = truffle(95_000_001L, "139 7777 1001", "2031-01-01T08:00");
    CliRun cli =
        cliWithInput(List.of(fromCli.toString()), "check", "--config", config.toString(), "--add");
    assertThat(cli.exitCode()).as(cli.err()).isZero();
    assertThat(JSON.readTree(cli.out().strip()).get("added").asBoolean()).isTrue();
    assertHandedOverOrGivenBack(cli, logged);
    ServiceClient.Reply afterwards =
        client.post(
            "/v1/check?add=true",
            truffle(95_000_002L, "139 7777 1002", "2031-01-01T08:00").toString());
    assertThat(afterwards.status()).as(afterwards.body()).isEqualTo(200);
    waitUntil(
        () ->
            client
                    .post("/v1/check", underAnotherId(fromCli).toString())
                    .json()
                    .get("kept_id")
                    .asLong(-1)
                == 95_000_001L);
    untilTheServiceWrites(95_000_100L); // as the tests after expect it
  }

  /**
   * That {@code process} (a run, check --add) got the index from the service: it asked for the
   * hand-over, or (on a loaded machine, an add slower than the 200 ms maintenance) found the lock
   * given back because adds had paused, as the service logged after its {@code logged}th line.
   * Never refused either way.
   */
  private void assertHandedOverOrGivenBack(CliRun process, int logged) {
    boolean askedForIt = process.err().contains("asked it to hand the index over");
    boolean givenBackMeanwhile =
        serviceLog.subList(logged, serviceLog.size()).stream()
            .anyMatch(line -> line.contains("write lock of the index given back"));
    assertThat(askedForIt || givenBackMeanwhile).as(process.err()).isTrue();
  }

  /**
   * Adds new posts (ids from {@code firstId} on) until the service holds the write lock again, as
   * between runs: after a hand-over it logs adds only for a while, and a batch's later record does
   * not see its earlier ones then (docs/serve.md). Each try is a new post: a retried add is
   * answered from memory and takes no lock, and on a loaded machine the lock may be given back
   * (adds paused 200 ms) before writing() is read.
   */
  private void untilTheServiceWrites(long firstId) throws InterruptedException {
    java.util.concurrent.atomic.AtomicInteger tries =
        new java.util.concurrent.atomic.AtomicInteger();
    waitUntil(
        () -> {
          if (!dedup.writing()) {
            int n = tries.incrementAndGet();
            client.post(
                "/v1/check?add=true",
                truffle(firstId + n, "136 0000 " + (firstId % 1000 * 10 + n), "2031-01-01T08:00")
                    .toString());
          }
          return dedup.writing();
        });
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 30 s").isLessThan(deadline);
      Thread.sleep(50);
    }
  }
}
