package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.posts.PostLoader;
import org.xiaochong.source.RecordSource;

/**
 * Adds are idempotent by id ({@link Deduplicator#add}), against the indexes of a real run: a record
 * never matches itself, and an add tried again, in the same session or after the checker was closed
 * and opened again, answers the first try's verdict with {@code added}, and the record is indexed
 * once.
 */
@Tag("db")
class RetriedAddIT extends DbTestSupport {
  private static final long RECORDS = 300;

  @TempDir Path dir;
  private DedupConfig config;

  @BeforeEach
  void runOverGeneratedPosts() {
    PostLoader.reload(database(), 17L, RECORDS, null, n -> {}, t -> {});
    Path file = writeConfig(dir, "supply_demand", dir.resolve("index"), Map.of());
    CliRun run = cli("run", "--config", file.toString(), "--method", "exact,near");
    assertThat(run.exitCode()).as(run.err()).isZero();
    config = loadConfig(file);
  }

  /** A post of a product the generator never makes, at {@code time}. */
  private static Deduplicator.Record truffle(long id, String price, LocalDateTime time) {
    Map<String, String> post = new LinkedHashMap<>();
    post.put("title", "野生黑松露");
    post.put("category", "供应");
    post.put("product", "野生黑松露");
    post.put("region", "云南楚雄");
    post.put("price", price);
    post.put("contact", "欧阳先生");
    post.put("phone", "137 1234 5678");
    post.put("content", "野生黑松露：供应云南楚雄野生黑松露约300斤，个大味浓，价格" + price + "，联系人欧阳先生。");
    return new Deduplicator.Record(id, post, RecordSource.toMillis(time));
  }

  /** A post of another product, contact and text. */
  private static Deduplicator.Record other(long id, String product, String phone, String text) {
    Map<String, String> post = new LinkedHashMap<>();
    post.put("title", product + "批发");
    post.put("category", "供应");
    post.put("product", product);
    post.put("region", "云南");
    post.put("price", "面议");
    post.put("contact", "李女士");
    post.put("phone", phone);
    post.put("content", text + "，联系电话" + phone + "。");
    return new Deduplicator.Record(id, post, RecordSource.toMillis(T0));
  }

  private static final LocalDateTime T0 = LocalDateTime.of(2031, 1, 1, 8, 0);

  private Deduplicator open() {
    return Deduplicator.open(config, Deduplicator.Options.DEFAULT);
  }

  @Test
  void retriedAdds_inTheSameSession_answerTheFirstVerdictAddedAndIndexOnce() throws IOException {
    Deduplicator.Record first = truffle(900_001L, "800元/斤", T0);
    Deduplicator.Record newerCopy = truffle(900_002L, "800元/斤", T0.plusDays(1));
    try (Deduplicator dedup = open()) {
      long before = dedup.indexedRecords();
      List<Deduplicator.Verdict> answered = dedup.add(List.of(first, newerCopy));
      assertThat(answered.get(0).verdict()).isEqualTo("new");
      assertThat(answered.get(1).verdict()).isEqualTo("exact");
      assertThat(answered.get(1).keptId()).isEqualTo(900_001L);
      assertThat(answered.get(1).supersedes()).containsExactly(900_001L);
      assertThat(answered).allMatch(Deduplicator.Verdict::added);

      // The client lost both answers and sends the same request again, twice.
      for (int retry = 0; retry < 2; retry++) {
        assertThat(dedup.add(List.of(first, newerCopy))).isEqualTo(answered);
      }
      assertThat(dedup.add(List.of(newerCopy))).containsExactly(answered.get(1));
      assertThat(dedup.indexedRecords()).isEqualTo(before + 2);
    }
    assertThat(docsWithId(900_001L)).isEqualTo(1);
    assertThat(docsWithId(900_002L)).isEqualTo(1);
  }

  @Test
  void aRetriedAdd_afterTheCheckerWasClosedAndOpenedAgain_isNewAndAddedNeverDrop()
      throws IOException {
    Deduplicator.Record post = truffle(910_001L, "800元/斤", T0);
    Deduplicator.Verdict first;
    try (Deduplicator dedup = open()) {
      first = dedup.add(List.of(post)).get(0);
    }
    assertThat(first.verdict()).isEqualTo("new");
    assertThat(first.added()).isTrue();
    try (Deduplicator restarted = open()) {
      Deduplicator.Verdict retry = restarted.add(List.of(post)).get(0);
      assertThat(retry).isEqualTo(first);
      assertThat(retry.keep()).isEqualTo(Deduplicator.KEEP_NEW);
      // A plain check of it with its id: itself is not its twin; a copy under another id is.
      assertThat(restarted.check(List.of(post)).get(0).verdict()).isEqualTo("new");
      Deduplicator.Record copy = truffle(910_002L, "800元/斤", T0.minusDays(1));
      Deduplicator.Verdict ofCopy = restarted.check(List.of(copy)).get(0);
      assertThat(ofCopy.verdict()).isEqualTo("exact");
      assertThat(ofCopy.keptId()).isEqualTo(910_001L);
      assertThat(ofCopy.keep()).isEqualTo(Deduplicator.KEEP_EXISTING);
      // Explained with its id, it is not among its own candidates; its copy's explanation has it.
      assertThat(restarted.explain(post, 50).methods())
          .allSatisfy(m -> assertThat(m.candidates()).noneMatch(c -> c.id() == 910_001L));
      assertThat(restarted.explain(copy, 50).methods())
          .anySatisfy(m -> assertThat(m.candidates()).anyMatch(c -> c.id() == 910_001L));
    }
    assertThat(docsWithId(910_001L)).isEqualTo(1);
  }

  @Test
  void aRowOfTheTable_checkedWithItsOwnId_isNotItsOwnTwin() {
    long id = ids("supply_demand").get(0);
    Map<String, String> row = new LinkedHashMap<>();
    withHandle(
        h ->
            h.createQuery("SELECT * FROM supply_demand WHERE id = :id")
                .bind("id", id)
                .map(
                    (rs, ctx) -> {
                      for (String c :
                          List.of(
                              "title",
                              "category",
                              "product",
                              "region",
                              "price",
                              "contact",
                              "phone",
                              "content")) {
                        row.put(c, rs.getString(c));
                      }
                      return null;
                    })
                .list());
    try (Deduplicator dedup = open()) {
      Deduplicator.Verdict itself =
          dedup.check(List.of(new Deduplicator.Record(id, row, RecordSource.toMillis(T0)))).get(0);
      assertThat(itself.keptId()).as(itself.toString()).isNotEqualTo(id);
      Deduplicator.Verdict other =
          dedup
              .check(List.of(new Deduplicator.Record(5_000_000L, row, RecordSource.toMillis(T0))))
              .get(0);
      assertThat(other.verdict()).isEqualTo("exact");
    }
  }

  @Test
  void addsAnsweredButNotYetCommitted_areReplayedFromTheAddLogAtTheNextOpen() throws Exception {
    // Three posts unlike each other (else a retry may meet a twin added after it: see
    // retriedAdds_inTheSameSession...).
    List<Deduplicator.Record> posts =
        List.of(
            truffle(920_001L, "800元/斤", T0),
            other(920_002L, "云南松茸", "139 2345 6789", "鲜松茸产地直发，香格里拉高山松茸，每天采摘"),
            other(920_003L, "野生牛肝菌", "186 8765 4321", "楚雄野生牛肝菌干货批发，无沙无虫，量大优惠"));
    Path crashed = dir.resolve("crashed");
    try (Deduplicator dedup = open()) {
      assertThat(dedup.add(posts)).allMatch(Deduplicator.Verdict::added);
      // The disk as a kill -9 leaves it now: the add log fsynced, the indexes not committed since.
      copyTree(config.indexDir(), crashed);
    }
    Path logFile = crashed.resolve("adds-1.log");
    assertThat(logFile).exists();
    // And the tail of a write the crash cut: never answered, ignored.
    Files.writeString(
        logFile, "{\"id\":920004,\"time\":0,\"fie", java.nio.file.StandardOpenOption.APPEND);
    DedupConfig crashedConfig = loadConfig(writeConfig(dir, "supply_demand", crashed, Map.of()));
    assertThat(docsWithId(crashedConfig, 920_001L)).as("not in the committed index").isZero();

    List<String> notes = new java.util.ArrayList<>();
    try (Deduplicator restarted =
        Deduplicator.open(crashedConfig, new Deduplicator.Options(null, false, notes::add))) {
      assertThat(notes).contains("check: 3 records of the add log added to the index");
      assertThat(logFile).doesNotExist();
      for (Deduplicator.Record post : posts) {
        Deduplicator.Record copy =
            new Deduplicator.Record(post.id() + 1000, post.fields(), post.time() - 1);
        assertThat(restarted.check(List.of(copy)).get(0).keptId()).isEqualTo(post.id());
      }
      // The client, which lost the answers, sends the adds again: the first answers.
      assertThat(restarted.add(posts))
          .extracting(Deduplicator.Verdict::verdict, Deduplicator.Verdict::added)
          .containsOnly(org.assertj.core.groups.Tuple.tuple("new", true));
    }
    for (Deduplicator.Record post : posts) {
      assertThat(docsWithId(crashedConfig, post.id())).isEqualTo(1);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(from)) {
      for (Path file : files.toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else if (!file.getFileName().toString().equals("write.lock")) {
          Files.copy(file, target);
        }
      }
    }
  }

  /** Documents of the record index with this id. */
  private long docsWithId(long id) throws IOException {
    return docsWithId(config, id);
  }

  private static long docsWithId(DedupConfig config, long id) throws IOException {
    try (FingerprintIndex index =
            FingerprintIndex.openReadOnly(config.indexDir(), config.fieldsDigest());
        DirectoryReader reader = index.openReader()) {
      return new IndexSearcher(reader)
          .count(NumericDocValuesField.newSlowExactQuery(IndexSchema.ID, id));
    }
  }
}
