package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ArchiveTables;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PairCheck;
import org.xiaochong.archive.PlanMover;
import org.xiaochong.archive.Restorer;
import org.xiaochong.archive.RunLog;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.method.MethodContext;
import org.xiaochong.prefilter.PrefilterSettings;
import org.xiaochong.progress.Progress;
import org.xiaochong.run.DedupRunner;
import org.xiaochong.run.TableLock;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.RecordSource;

/**
 * A live table: rows change between the plan and the apply, two commands meet, the source's schema
 * moves under the archive. The apply decides again on what the rows hold now, under row locks.
 */
@Tag("db")
class LiveTableIT extends DbTestSupport {
  private static final LocalDateTime OLD = LocalDateTime.of(2024, 5, 1, 8, 0);
  private static final LocalDateTime NEW = LocalDateTime.of(2024, 5, 2, 8, 0);
  private static final String APPLE = "本人有红富士苹果约3000斤，果面光洁，口感脆甜，欢迎来电";

  @TempDir Path dir;

  /** Rows 1 and 2 identical (2 newer), row 3 another post; the plan removes 1 in favour of 2. */
  private PlanMover twins(String table) {
    createPostsTable(table);
    insert(table, 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    insert(table, 2, "供应红富士苹果", "苹果", "13800138000", APPLE, NEW);
    insert(table, 3, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨，价格面议", NEW);
    return new PlanMover(archive(table), defaultRules(table));
  }

  /**
   * The methods' rules with the default settings, as a run's apply re-checks changed rows with
   * them.
   */
  private static PairCheck.Factory defaultRules(String table) {
    return FingerprintMethods.pairChecks(
        new MethodContext(
            spec(table),
            null,
            "",
            PrefilterSettings.DEFAULT,
            false,
            1,
            null,
            Progress.NONE,
            note -> {},
            Map.of()));
  }

  /** The archive of {@code table}, made and checked against its columns now. */
  private static ArchiveTables archive(String table) {
    return ArchiveTables.ensure(
        database(), spec(table), new RecordSource(database(), spec(table)).checkSchema());
  }

  private static long startRun(String table) {
    return new RunLog(database(), table)
        .startRun("exact", true, "0123456789abcdef0123456789abcdef", null, null);
  }

  private static PlanMover.Applied applyOne(
      PlanMover archive, String table, DeletionPlan.Rule rule) {
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, rule, 1.0);
    long runId = startRun(table);
    return archive.writePlanAndApply(runId, plan, n -> {});
  }

  @Test
  void apply_rowRewrittenAfterThePlan_staysAndIsCounted() {
    PlanMover archive = twins("live_edit");
    useHandle(
        h ->
            h.execute(
                "UPDATE live_edit SET title = '求购大蒜', product = '大蒜', content = '求购大蒜五吨' WHERE id = 1"));

    PlanMover.Applied applied = applyOne(archive, "live_edit", DeletionPlan.Rule.of("exact"));

    assertThat(applied.rowsMoved()).isZero();
    assertThat(applied.skippedChanged()).isEqualTo(1);
    assertThat(ids("live_edit")).containsExactly(1L, 2L, 3L);
    assertThat(count("live_edit_removed")).isZero();
    assertThat(
            one(
                "SELECT skipped FROM dedup_plan WHERE removed_id = 1 ORDER BY run_id DESC LIMIT 1",
                Boolean.class))
        .isTrue();

    // Replayed after an interruption, a skipped plan row stays skipped even if it qualifies again.
    useHandle(
        h ->
            h.execute(
                "UPDATE live_edit SET title = '供应红富士苹果', product = '苹果', content = '"
                    + APPLE
                    + "' WHERE id = 1"));
    long runId = one("SELECT MAX(run_id) FROM dedup_plan", Long.class);
    assertThat(archive.apply(runId, n -> {})).isEqualTo(new PlanMover.Moved(0, Map.of(), 0));
    assertThat(ids("live_edit")).containsExactly(1L, 2L, 3L);
  }

  /**
   * The plan of rows 1 -> 2 with the states the index would hold of them now (read as the indexing
   * reads them).
   */
  private static PlanMover.Applied applyWithStatesOfNow(
      PlanMover archive, String table, Runnable change) {
    Map<Long, DeletionPlan.RowState> states = new java.util.HashMap<>();
    new RecordSource(database(), spec(table))
        .forEachRecordInRange(
            1, 3, r -> states.put(r.id(), new DeletionPlan.RowState(r.regTime(), r.rowCrc())));
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0, states.get(1L), states.get(2L));
    change.run();
    long runId = startRun(table);
    return archive.writePlanAndApply(runId, plan, n -> {});
  }

  @Test
  void apply_rowsAsTheIndexHeldThem_moveWithoutBeingDecidedAgain() {
    PlanMover archive = twins("live_states");

    PlanMover.Applied applied = applyWithStatesOfNow(archive, "live_states", () -> {});

    assertThat(applied.rowsMoved()).isEqualTo(1);
    assertThat(applied.decidedAgain()).isZero();
    assertThat(ids("live_states")).containsExactly(2L, 3L);
  }

  @Test
  void apply_timeColumnWithMicroseconds_unchangedRowsMoveWithoutBeingDecidedAgain() {
    createPostsTable("live_micro");
    useHandle(h -> h.execute("ALTER TABLE live_micro MODIFY reg_time DATETIME(6)"));
    insert("live_micro", 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    insert("live_micro", 2, "供应红富士苹果", "苹果", "13800138000", APPLE, NEW);
    insert("live_micro", 3, "求购大蒜", "大蒜", "13900139000", "求购大蒜十吨，价格面议", NEW);
    // as SQL text: Connector/J drops the fraction of a bound LocalDateTime on this server
    useHandle(
        h ->
            h.execute(
                "UPDATE live_micro SET reg_time = CASE id WHEN 1 THEN '2024-05-01 08:00:00.123456'"
                    + " WHEN 2 THEN '2024-05-02 08:00:00.999999' ELSE reg_time END"));
    PlanMover archive = new PlanMover(archive("live_micro"), defaultRules("live_micro"));

    // the index keeps milliseconds; the server compares the column cut to them
    assertThat(one("SELECT CAST(reg_time AS CHAR) FROM live_micro WHERE id = 1", String.class))
        .isEqualTo("2024-05-01 08:00:00.123456");
    PlanMover.Applied applied = applyWithStatesOfNow(archive, "live_micro", () -> {});

    assertThat(applied.rowsMoved()).isEqualTo(1);
    assertThat(applied.decidedAgain()).isZero();
    assertThat(ids("live_micro")).containsExactly(2L, 3L);
  }

  /**
   * Row 1 is row 2's exact twin; the near pass removes row 2 in favour of row 3 (a repost with
   * another price), so the plan re-points row 1 to row 3 with both rows' states.
   */
  private static PlanMover.Applied applyRepointedTwin(String table, Runnable change) {
    createPostsTable(table);
    insert(table, 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    insert(table, 2, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD.plusHours(1));
    insert(table, 3, "供应红富士苹果", "苹果", "13800138000", APPLE + "，每斤2.5元", NEW);
    Map<Long, DeletionPlan.RowState> states = new java.util.HashMap<>();
    new RecordSource(database(), spec(table))
        .forEachRecordInRange(
            1,
            4, // ids 1-3
            r -> states.put(r.id(), new DeletionPlan.RowState(r.regTime(), r.rowCrc())));
    DeletionPlan plan = new DeletionPlan();
    plan.add(1, 2, DeletionPlan.Rule.of("exact"), 1.0, states.get(1L), states.get(2L));
    plan.add(2, 3, DeletionPlan.Rule.of("near"), 0.8, states.get(2L), states.get(3L));
    assertThat(plan.collapseChains()).isEqualTo(1);
    change.run();
    return new PlanMover(archive(table), defaultRules(table))
        .writePlanAndApply(startRun(table), plan, n -> {});
  }

  @Test
  void apply_exactTwinRepointedToANearSurvivor_isDecidedAgainOnlyWhenItsRowsChanged() {
    PlanMover.Applied unchanged = applyRepointedTwin("live_repointed", () -> {});
    assertThat(unchanged.decidedAgain()).isZero();
    assertThat(unchanged.rowsMoved()).isEqualTo(2);
    assertThat(ids("live_repointed")).containsExactly(3L);
    // Row 1 went because the near pass removed its exact twin 2: the archive says so, with the near
    // score.
    List<String> archived =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT id, dedup_rule, dedup_kept_id, dedup_score"
                            + " FROM live_repointed_removed ORDER BY id")
                    .map(
                        (rs, ctx) ->
                            rs.getLong(1)
                                + " "
                                + rs.getString(2)
                                + " "
                                + rs.getLong(3)
                                + " "
                                + rs.getFloat(4))
                    .list());
    assertThat(archived).containsExactly("1 exact+near 3 0.8", "2 near 3 0.8");

    // The survivor edited into another post after indexing: both removals pointing to it are
    // decided
    // again and fail, so rows 1 and 2 stay.
    PlanMover.Applied edited =
        applyRepointedTwin(
            "live_repointed_edit",
            () ->
                useHandle(
                    h ->
                        h.execute(
                            "UPDATE live_repointed_edit SET title = '求购大蒜', product = '大蒜', content = '求购大蒜十吨，价格面议'"
                                + " WHERE id = 3")));
    assertThat(edited.decidedAgain()).isEqualTo(2);
    assertThat(edited.skippedChanged()).isEqualTo(2);
    assertThat(ids("live_repointed_edit")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void apply_rowsChangedSinceTheIndexHeldThem_areDecidedAgain() {
    PlanMover edited = twins("live_states_edit");
    PlanMover.Applied applied =
        applyWithStatesOfNow(
            edited,
            "live_states_edit",
            () ->
                useHandle(
                    h -> h.execute("UPDATE live_states_edit SET content = '求购大蒜五吨' WHERE id = 1")));
    assertThat(applied.decidedAgain()).isEqualTo(1);
    assertThat(applied.skippedChanged()).isEqualTo(1);
    assertThat(ids("live_states_edit")).containsExactly(1L, 2L, 3L);

    // the kept row re-dated to before the removed one: the removed row is now the latest and stays
    PlanMover redated = twins("live_states_kept");
    applied =
        applyWithStatesOfNow(
            redated,
            "live_states_kept",
            () ->
                useHandle(
                    h ->
                        h.execute(
                            "UPDATE live_states_kept SET reg_time = '2024-04-01 08:00:00' WHERE id = 2")));
    assertThat(applied.decidedAgain()).isEqualTo(1);
    assertThat(applied.skippedChanged()).isEqualTo(1);
    assertThat(ids("live_states_kept")).containsExactly(1L, 2L, 3L);

    // a change the exact key does not see: decided again, and still moved
    PlanMover phone = twins("live_states_phone");
    applied =
        applyWithStatesOfNow(
            phone,
            "live_states_phone",
            () ->
                useHandle(
                    h ->
                        h.execute(
                            "UPDATE live_states_phone SET phone = '138 0013 8000' WHERE id = 1")));
    assertThat(applied.decidedAgain()).isEqualTo(1);
    assertThat(applied.rowsMoved()).isEqualTo(1);
    assertThat(ids("live_states_phone")).containsExactly(2L, 3L);
  }

  @Test
  void apply_rowEditedWhileTheApplyCopiesIt_isNotDeleted() throws Exception {
    PlanMover archive = twins("live_between");
    // A writer has edited row 1 and commits 1.5 s later. Read without locks, the apply's copy would
    // archive the old text and its delete then remove the new one; with its shared locks the copy
    // waits for the writer, sees the new text, and the row is decided again and left in place.
    try (var writer = database().jdbi().open()) {
      writer.begin();
      writer.execute(
          "UPDATE live_between SET title = '求购大蒜', product = '大蒜', content = '求购大蒜五吨' WHERE id = 1");
      Thread commit =
          new Thread(
              () -> {
                try {
                  Thread.sleep(1500);
                  writer.commit();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      commit.start();
      PlanMover.Applied applied = applyWithStatesOfNow(archive, "live_between", () -> {});
      commit.join();

      assertThat(applied.rowsMoved()).isZero();
      assertThat(applied.skippedChanged()).isEqualTo(1);
    }
    assertThat(ids("live_between")).containsExactly(1L, 2L, 3L);
    assertThat(count("live_between_removed")).isZero();
  }

  @Test
  void apply_removedRowRedatedToTheLatest_stays() {
    PlanMover archive = twins("live_redate");
    useHandle(
        h -> h.execute("UPDATE live_redate SET reg_time = '2024-05-03 08:00:00' WHERE id = 1"));

    PlanMover.Applied applied = applyOne(archive, "live_redate", DeletionPlan.Rule.of("exact"));

    assertThat(applied.skippedChanged()).isEqualTo(1);
    assertThat(ids("live_redate")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void apply_keptRowRewritten_removedRowStays() {
    PlanMover archive = twins("live_kept");
    useHandle(h -> h.execute("UPDATE live_kept SET content = '红富士苹果已售完，改卖大蒜' WHERE id = 2"));

    PlanMover.Applied applied = applyOne(archive, "live_kept", DeletionPlan.Rule.of("exact"));

    assertThat(applied.skippedChanged()).isEqualTo(1);
    assertThat(ids("live_kept")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void apply_unchangedRows_moveWithTheirValues() {
    PlanMover archive = twins("live_same");
    // A change the exact key does not see (white space, full-width digits) keeps the decision.
    useHandle(h -> h.execute("UPDATE live_same SET phone = '138 0013 8000' WHERE id = 1"));

    PlanMover.Applied applied = applyOne(archive, "live_same", DeletionPlan.Rule.of("exact"));

    assertThat(applied.rowsMoved()).isEqualTo(1);
    assertThat(applied.skippedChanged()).isZero();
    assertThat(ids("live_same")).containsExactly(2L, 3L);
    assertThat(one("SELECT phone FROM live_same_removed WHERE id = 1", String.class))
        .isEqualTo("138 0013 8000");
  }

  @Test
  void apply_nearRule_movesANearTwinAndKeepsAnotherProduct() {
    PlanMover archive = twins("live_near");
    useHandle(
        h ->
            h.execute(
                "UPDATE live_near SET content = '本人有红富士苹果约2800斤，果面光洁，口感脆甜，欢迎来电' WHERE id = 1"));
    assertThat(applyOne(archive, "live_near", DeletionPlan.Rule.of("near")).rowsMoved())
        .isEqualTo(1);

    PlanMover other = twins("live_near2");
    useHandle(
        h ->
            h.execute(
                "UPDATE live_near2 SET product = '大蒜', title = '供应大蒜',"
                    + " content = '本人有大蒜约3000斤，个大饱满，欢迎来电' WHERE id = 1"));
    PlanMover.Applied applied = applyOne(other, "live_near2", DeletionPlan.Rule.of("near"));
    assertThat(applied.rowsMoved()).isZero();
    assertThat(applied.skippedChanged()).isEqualTo(1);
  }

  /**
   * A page of 5,000 random common characters: one edited character moves its simhash by 0-1 bits.
   */
  private static String page(long seed) {
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    StringBuilder text = new StringBuilder();
    while (text.length() < 5_000) {
      text.append((char) (0x4e00 + random.nextInt(3_000)));
    }
    return text.toString();
  }

  @Test
  void apply_simhashRule_movesACopyStillWithinK_andKeepsARewrittenPage() {
    String page = page(1);
    PlanMover archive = twins("live_sim");
    useHandle(
        h ->
            h.createUpdate("UPDATE live_sim SET content = ? WHERE id IN (1, 2)")
                .bind(0, page)
                .execute());
    useHandle(
        h ->
            h.createUpdate("UPDATE live_sim SET content = ? WHERE id = 1")
                .bind(0, "改" + page.substring(1))
                .execute());
    assertThat(applyOne(archive, "live_sim", DeletionPlan.Rule.of("simhash")).rowsMoved())
        .isEqualTo(1);

    PlanMover other = twins("live_sim2");
    useHandle(
        h ->
            h.createUpdate("UPDATE live_sim2 SET content = ? WHERE id = 2")
                .bind(0, page)
                .execute());
    useHandle(
        h ->
            h.createUpdate("UPDATE live_sim2 SET content = ? WHERE id = 1")
                .bind(0, page(2))
                .execute());
    PlanMover.Applied applied = applyOne(other, "live_sim2", DeletionPlan.Rule.of("simhash"));
    assertThat(applied.rowsMoved()).isZero();
    assertThat(applied.skipped()).isEqualTo(Map.of("simhash", 1L));
  }

  @Test
  void apply_exactOnlyRun_rowNowOnlyANearTwin_stays() {
    PlanMover archive = twins("live_exactonly");
    // still a near duplicate of row 2 (as the near-rule test shows), but no longer an exact copy
    useHandle(
        h ->
            h.execute(
                "UPDATE live_exactonly SET content = '本人有红富士苹果约2800斤，果面光洁，口感脆甜，欢迎来电' WHERE id = 1"));

    PlanMover.Applied applied = applyOne(archive, "live_exactonly", DeletionPlan.Rule.of("exact"));

    assertThat(applied.rowsMoved()).isZero();
    assertThat(applied.skipped()).isEqualTo(Map.of("exact", 1L));
    assertThat(ids("live_exactonly")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void run_rowRewrittenAfterADryRun_isNotDeleted() {
    createPostsTable("live_run");
    insert("live_run", 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    insert("live_run", 2, "供应红富士苹果", "苹果", "13800138000", APPLE, NEW);
    Path index = dir.resolve("index");
    assertThat(runExact("live_run", index, null, null, false).summary().removed("exact"))
        .isEqualTo(1);
    useHandle(
        h ->
            h.execute(
                "UPDATE live_run SET title = '求购大蒜', product = '大蒜', content = '求购大蒜五吨' WHERE id = 1"));

    DedupRunner.Outcome applied = runExact("live_run", index, null, null, true);

    assertThat(ids("live_run")).containsExactly(1L, 2L);
    // what moved, not what was planned: the run's counts and its dedup_run row agree with the table
    assertThat(applied.summary().removed("exact") + applied.summary().skippedChanged())
        .isLessThanOrEqualTo(1);
    assertThat(applied.summary().removed("exact")).isZero();
    assertThat(applied.summary().decidedAgain()).isZero(); // the sync saw the edit: nothing planned
    assertThat(
            one(
                "SELECT removed FROM dedup_run_removed WHERE method = 'exact' AND run_id = "
                    + applied.summary().runId(),
                Long.class))
        .isZero();
    assertThat(count("live_run_removed")).isZero();
  }

  @Test
  void tableLock_secondHolderRefusedWithTheFirstNamed_thenFree() {
    createPostsTable("live_lock");
    try (TableLock first = TableLock.acquire(database(), spec("live_lock"), "run --apply")) {
      assertThatThrownBy(() -> TableLock.acquire(database(), spec("live_lock"), "run"))
          .isInstanceOf(BadInputException.class)
          .hasMessageContaining("locked by another dedup command")
          .hasMessageContaining("'run --apply'")
          .hasMessageContaining("pid " + ProcessHandle.current().pid());
      Path config = writeConfig(dir, "live_lock", dir.resolve("index"), Map.of());
      CliRun second = cli("run", "--config", config.toString(), "--apply");
      assertThat(second.exitCode()).isEqualTo(2);
      assertThat(second.errLines())
          .singleElement()
          .asString()
          .contains("locked by another dedup command");
      // another table is not locked
      createPostsTable("live_lock_other");
      TableLock.acquire(database(), spec("live_lock_other"), "run").close();
    }
    TableLock.acquire(database(), spec("live_lock"), "run").close();
  }

  @Test
  void run_idColumnNotUnique_exitCode2BeforeAnything() {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS live_noid");
          h.execute(
              "CREATE TABLE live_noid (id BIGINT NOT NULL, title VARCHAR(64), reg_time DATETIME, KEY (id))");
          h.execute("INSERT INTO live_noid VALUES (1, 'a', NOW()), (1, 'a', NOW())");
        });
    Path config =
        writeConfig(
            dir,
            "live_noid",
            dir.resolve("index"),
            Map.of(
                "fields.exact",
                "title",
                "fields.near",
                "",
                "fields.phone",
                "",
                "fields.must-match",
                ""));

    CliRun run = cli("run", "--config", config.toString(), "--apply");

    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.errLines())
        .singleElement()
        .asString()
        .contains("is not unique")
        .contains("ADD PRIMARY KEY");
    assertThat(count("live_noid")).isEqualTo(2);
  }

  @Test
  void apply_sourceColumnWidenedAfterTheArchiveWasMade_stopsBeforeAnyRowMoves() {
    twins("live_drift");
    useHandle(h -> h.execute("ALTER TABLE live_drift MODIFY content MEDIUMTEXT"));
    assertThatThrownBy(() -> archive("live_drift"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("'content'")
        .hasMessageContaining("mediumtext")
        .hasMessageContaining("MODIFY");
    assertThat(ids("live_drift")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void restore_tableWithAGeneratedColumn_putsRowsBack() {
    createPostsTable("live_gen");
    useHandle(
        h ->
            h.execute(
                "ALTER TABLE live_gen ADD COLUMN title_length INT AS (CHAR_LENGTH(title)) VIRTUAL"));
    insert("live_gen", 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    insert("live_gen", 2, "供应红富士苹果", "苹果", "13800138000", APPLE, NEW);
    DedupRunner.Outcome outcome = runExact("live_gen", dir.resolve("index"), null, null, true);
    assertThat(ids("live_gen")).containsExactly(2L);

    assertThat(new Restorer(archive("live_gen")).restore(outcome.summary().runId())).isEqualTo(1);

    assertThat(ids("live_gen")).containsExactly(1L, 2L);
    assertThat(one("SELECT title_length FROM live_gen WHERE id = 1", Integer.class)).isEqualTo(7);
  }

  @Test
  void restore_interruptedOfAnInterruptedRun_isNotUndoneByTheNextRun() {
    createPostsTable("live_restore");
    insert("live_restore", 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    insert("live_restore", 2, "供应红富士苹果", "苹果", "13800138000", APPLE, NEW);
    Path index = dir.resolve("index");
    long runId = runExact("live_restore", index, null, null, true).summary().runId();
    // As if the run had been killed after moving its rows: still 'applying', its plan still there.
    useHandle(
        h -> {
          h.createUpdate("UPDATE dedup_run SET status = 'applying' WHERE id = ?")
              .bind(0, runId)
              .execute();
          h.createUpdate(
                  "INSERT INTO dedup_plan (run_id, seq, removed_id, kept_id, rule, score) VALUES (?, 0, 1, 2, 'exact', 1)")
              .bind(0, runId)
              .execute();
        });
    // The restore is interrupted: row 1 is back in the table (by hand), so its batch fails.
    insert("live_restore", 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    Restorer restorer = new Restorer(archive("live_restore"));
    assertThatThrownBy(() -> restorer.restore(runId)).isInstanceOf(BadInputException.class);

    DedupRunner.Outcome next = runExact("live_restore", index, null, null, true);

    assertThat(next.summary().resumedRuns()).isEmpty();
    assertThat(one("SELECT status FROM dedup_run WHERE id = " + runId, String.class))
        .isEqualTo("restoring");
  }

  @Test
  void check_whileARunHoldsTheIndex_readsTheLastCommit() {
    createPostsTable("live_check");
    insert("live_check", 1, "供应红富士苹果", "苹果", "13800138000", APPLE, OLD);
    Path index = dir.resolve("index");
    Path config = writeConfig(dir, "live_check", index, Map.of());
    assertThat(cli("run", "--config", config.toString()).exitCode())
        .isZero(); // builds and commits the index
    String line =
        "{\"id\": 9, \"title\": \"供应红富士苹果\", \"category\": \"供应\", \"product\": \"苹果\","
            + " \"region\": \"山东烟台\", \"price\": \"2.50元/斤\", \"contact\": \"王先生\", \"phone\": \"13800138000\","
            + " \"content\": \""
            + APPLE
            + "\"}\n";
    java.io.InputStream stdin = System.in;
    // A run on the same index folder holds its write lock meanwhile.
    try (org.xiaochong.index.FingerprintIndex writing =
        org.xiaochong.index.FingerprintIndex.open(
            index, loadConfig(config).fieldsDigest(), false)) {
      System.setIn(
          new java.io.ByteArrayInputStream(line.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      CliRun check = cli("check", "--config", config.toString());
      assertThat(check.exitCode()).as(check.err()).isZero();
      assertThat(check.out()).contains("\"verdict\":\"exact\"").contains("\"kept_id\":1");
    } finally {
      System.setIn(stdin);
    }
  }

  private static <T> T one(String sql, Class<T> type) {
    return withHandle(h -> h.createQuery(sql).mapTo(type).one());
  }
}
