package org.xiaochong.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.index.FingerprintIndex;

class DeduplicatorTest {
  private static DedupConfig config(Path index, String nearFields) {
    Properties props = new Properties();
    props.setProperty("index.dir", index.toString());
    props.setProperty("fields.near", nearFields);
    props.setProperty("minhash.fields", nearFields); // the tests' minhash reads the same columns
    return DedupConfig.fromProperties(props, Map.of());
  }

  /** A record index only (as a first exact run leaves it): no method has an index of its own. */
  private static DedupConfig recordIndexOnly(Path dir, String nearFields) {
    DedupConfig config = config(dir.resolve("index"), nearFields);
    FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), false).close();
    return config;
  }

  @Test
  void open_methodsWithNothingBuilt_eachSaysWhatIsMissingOnce(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "title,content");
    List<String> notes = new ArrayList<>();
    try (Deduplicator dedup =
        Deduplicator.open(config, new Deduplicator.Options(null, false, notes::add))) {
      assertThat(dedup.methods()).containsExactly("exact");
      // Each method that applies to the table words its own absence: near (built in) and the
      // tests' minhash (found on the class path), asked through the method, not by name.
      assertThat(notes)
          .contains(
              "check: no near index yet (`dedup run --method near|both` builds it):"
                  + " exact verdicts only",
              "check: no minhash index yet (`dedup run --method minhash` builds it)");
      int before = notes.size();
      dedup.check(new Deduplicator.Record(1L, Map.of("title", "供应红富士苹果"), 0L));
      assertThat(notes).as("a check does not repeat the notes").hasSize(before);
    }
  }

  @Test
  void open_methodsThatDoNotApplyToTheTable_sayNothing(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    List<String> notes = new ArrayList<>();
    try (Deduplicator dedup =
        Deduplicator.open(config, new Deduplicator.Options(null, false, notes::add))) {
      assertThat(dedup.methods()).containsExactly("exact");
      assertThat(notes).noneMatch(note -> note.contains("index yet"));
    }
  }

  private static final Deduplicator.Options READING =
      new Deduplicator.Options(null, false, n -> {});

  private static Deduplicator.Record record(long id, String title) {
    return new Deduplicator.Record(id, Map.of("title", title), 1_000L * id);
  }

  /** Adds {@code records} as another process does: its own writer, committed at its close. */
  private static void addElsewhere(DedupConfig config, Deduplicator.Record... records) {
    try (Deduplicator writer =
        Deduplicator.open(config, new Deduplicator.Options(null, true, n -> {}))) {
      for (Deduplicator.Record r : records) {
        writer.checkAndAdd(r);
      }
    }
  }

  /** Waits (at most 30 s) until the service takes the lock again and adds what it logged. */
  private static void awaitAddLogged(Deduplicator dedup) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!dedup.addLogged()) {
      assertThat(System.nanoTime()).as("the logged adds taken in").isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /**
   * Holds the swap after a checker was opened beside the serving one until {@code checked} counts
   * down (a test's checks answered meanwhile); fails the swap when they do not come.
   */
  private static Runnable holdSwapUntil(CountDownLatch opened, CountDownLatch checked) {
    return () -> {
      opened.countDown();
      try {
        if (!checked.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the checks did not come while the swap waited");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    };
  }

  @Test
  void refresh_opensTheNewCommitBeside_checksAnsweredFromTheServingOneUntilTheSwap(
      @TempDir Path dir) throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    addElsewhere(config, record(1L, "供应红富士苹果"));
    ExecutorService maintenance = Executors.newSingleThreadExecutor();
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      addElsewhere(config, record(2L, "求购山东大白菜"));
      CountDownLatch opened = new CountDownLatch(1);
      CountDownLatch checked = new CountDownLatch(1);
      dedup.whenOpenedBeside(holdSwapUntil(opened, checked));
      Future<Boolean> refreshed = maintenance.submit(dedup::refreshIfChanged);
      assertThat(opened.await(30, TimeUnit.SECONDS)).as("the new commit opened").isTrue();

      // Answered while the refresh holds the opened checker: from the last commit served.
      Deduplicator.Verdict known = dedup.check(record(11L, "供应红富士苹果"));
      Deduplicator.Verdict committedMeanwhile = dedup.check(List.of(record(12L, "求购山东大白菜"))).get(0);
      checked.countDown();

      assertThat(refreshed.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(known.keptId()).isEqualTo(1L);
      assertThat(committedMeanwhile.isNew()).as("not swapped in before the checks").isTrue();
      assertThat(dedup.check(record(12L, "求购山东大白菜")).keptId()).as("swapped in after").isEqualTo(2L);
      assertThat(dedup.refreshIfChanged()).as("nothing committed since").isFalse();
    } finally {
      maintenance.shutdownNow();
    }
  }

  @Test
  void refresh_theServiceTookTheWriterWhileTheCommitOpened_theOpenedCheckerIsNotSwappedIn(
      @TempDir Path dir) throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    addElsewhere(config, record(1L, "供应红富士苹果"));
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      addElsewhere(config, record(2L, "求购山东大白菜"));
      dedup.whenOpenedBeside(() -> dedup.add(List.of(record(3L, "出售二手挖掘机"))));

      assertThat(dedup.refreshIfChanged()).isFalse();
      assertThat(dedup.writing()).isTrue();
      assertThat(dedup.check(record(13L, "出售二手挖掘机")).keptId())
          .as("the add is served, not a checker opened before it")
          .isEqualTo(3L);
      assertThat(dedup.check(record(12L, "求购山东大白菜")).keptId()).isEqualTo(2L);
    }
  }

  @Test
  void releaseWriter_readsOnFromACheckerOpenedBeside_checksAnsweredByTheWriterMeanwhile(
      @TempDir Path dir) throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    ExecutorService maintenance = Executors.newSingleThreadExecutor();
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      dedup.add(List.of(record(1L, "供应红富士苹果")));
      assertThat(dedup.commitIndex()).isTrue();
      CountDownLatch opened = new CountDownLatch(1);
      CountDownLatch checked = new CountDownLatch(1);
      dedup.whenOpenedBeside(holdSwapUntil(opened, checked));
      Future<Boolean> released = maintenance.submit(() -> dedup.releaseWriter(0));
      assertThat(opened.await(30, TimeUnit.SECONDS)).isTrue();

      Deduplicator.Verdict meanwhile = dedup.check(record(11L, "供应红富士苹果"));
      boolean writingMeanwhile = dedup.writing();
      checked.countDown();

      assertThat(released.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(writingMeanwhile).as("answered by the writing checker").isTrue();
      assertThat(meanwhile.keptId()).isEqualTo(1L);
      assertThat(dedup.writing()).isFalse();
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);
    } finally {
      maintenance.shutdownNow();
    }
  }

  @Test
  void add_toAReadingService_theWriterOpensBeside_checksAnsweredByTheReaderMeanwhile(
      @TempDir Path dir) throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    addElsewhere(config, record(1L, "供应红富士苹果"));
    ExecutorService adder = Executors.newSingleThreadExecutor();
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      assertThat(dedup.writing()).isFalse();
      CountDownLatch opened = new CountDownLatch(1);
      CountDownLatch checked = new CountDownLatch(1);
      dedup.whenOpenedBeside(holdSwapUntil(opened, checked));
      Future<List<Deduplicator.Verdict>> added =
          adder.submit(() -> dedup.add(List.of(record(2L, "求购山东大白菜"))));
      assertThat(opened.await(30, TimeUnit.SECONDS)).as("the writer opened beside").isTrue();

      // Answered while the add holds the writer opened beside, by the reading checker.
      Deduplicator.Verdict known = dedup.check(record(11L, "供应红富士苹果"));
      Deduplicator.Verdict notAnsweredYet = dedup.check(record(12L, "求购山东大白菜"));
      boolean writingMeanwhile = dedup.writing();
      checked.countDown();

      assertThat(added.get(30, TimeUnit.SECONDS).get(0).added()).isTrue();
      assertThat(known.keptId()).isEqualTo(1L);
      assertThat(notAnsweredYet.isNew()).as("the add was not answered yet").isTrue();
      assertThat(writingMeanwhile).as("answered by the reading checker").isFalse();
      assertThat(dedup.writing()).isTrue();
      assertThat(dedup.check(record(12L, "求购山东大白菜")).keptId())
          .as("every check after the add's answer sees it")
          .isEqualTo(2L);
    } finally {
      adder.shutdownNow();
    }
  }

  @Test
  void add_aRunAsksForTheLockWhileTheWriterOpensBeside_theAddIsLoggedForAfterTheRun(
      @TempDir Path dir) throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    Path request = config.indexDir().resolve(org.xiaochong.run.IndexHandOver.FILE);
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      dedup.whenOpenedBeside(
          () -> {
            try {
              java.nio.file.Files.writeString(
                  request, Long.toString(ProcessHandle.current().pid()));
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
      assertThat(dedup.add(List.of(record(2L, "求购山东大白菜"))).get(0).added()).isTrue();
      assertThat(dedup.writing()).as("the writer opened beside was given back").isFalse();
      try (FingerprintIndex run =
          FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), false)) {
        assertThat(run.path()).as("the run takes the lock").isEqualTo(config.indexDir());
      }
      java.nio.file.Files.delete(request); // the run, done
      awaitAddLogged(dedup); // the writer is tried again a second after it was found taken
      assertThat(dedup.check(record(12L, "求购山东大白菜")).keptId()).isEqualTo(2L);
    }
  }

  @Test
  void releaseWriter_anAddWhileTheReaderOpened_keepsTheWriterAndTheAdd(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      dedup.add(List.of(record(1L, "供应红富士苹果")));
      assertThat(dedup.commitIndex()).isTrue();
      dedup.whenOpenedBeside(() -> dedup.add(List.of(record(2L, "求购山东大白菜"))));

      assertThat(dedup.releaseWriter(0)).isFalse();
      assertThat(dedup.writing()).isTrue();
      assertThat(dedup.check(record(12L, "求购山东大白菜")).keptId()).isEqualTo(2L);
    }
    try (Deduplicator reopened = Deduplicator.open(config, READING)) {
      assertThat(reopened.check(record(12L, "求购山东大白菜")).keptId())
          .as("committed at close")
          .isEqualTo(2L);
    }
  }

  /** A background commit that fails, as on a full disk, while {@code failing[0]}. */
  private static Runnable failWhile(boolean[] failing) {
    return () -> {
      if (failing[0]) {
        throw new java.io.UncheckedIOException(new java.io.IOException("No space left on device"));
      }
    };
  }

  @Test
  void commitIndex_failed_noCheckerOpensOnTheCommitMissingTheAnsweredAdd(@TempDir Path dir)
      throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      assertThat(dedup.add(List.of(record(1L, "供应红富士苹果"))).get(0).added()).isTrue();
      boolean[] failing = {true};
      dedup.beforeEachCommit(failWhile(failing));
      assertThatThrownBy(dedup::commitIndex).hasMessageContaining("No space left");

      // The add is sealed out of the log, not committed: reading on from the last commit would
      // answer its copy `new` until the next reopen.
      assertThat(dedup.releaseWriter(0)).as("adds stopped, but a commit is owed").isFalse();
      java.nio.file.Files.writeString(
          config.indexDir().resolve(org.xiaochong.run.IndexHandOver.FILE),
          Long.toString(ProcessHandle.current().pid())); // a run asks for the index
      assertThatThrownBy(dedup::handOverIfAsked).hasMessageContaining("No space left");
      assertThat(dedup.writing()).isTrue();
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);

      failing[0] = false;
      assertThat(dedup.handOverIfAsked()).as("the owed commit made, then handed over").isTrue();
      assertThat(dedup.writing()).isFalse();
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId())
          .as("read from a commit holding the add")
          .isEqualTo(1L);
    }
  }

  @Test
  void commitIndex_failedOnce_triedAgainAndTheReaderOpenedBesideHoldsTheAdd(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      dedup.add(List.of(record(1L, "供应红富士苹果")));
      boolean[] failing = {true};
      dedup.beforeEachCommit(failWhile(failing));
      assertThatThrownBy(dedup::commitIndex).isInstanceOf(java.io.UncheckedIOException.class);

      failing[0] = false;
      assertThat(dedup.commitIndex()).as("tried again, though nothing was added since").isTrue();
      assertThat(dedup.commitIndex()).as("nothing owed any more").isFalse();
      assertThat(dedup.releaseWriter(0)).isTrue();
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);
    }
  }

  @Test
  void addLogged_twoCopiesLoggedWhileARunWrote_bothJoinTheIndexAsTheirAnswersSaid(@TempDir Path dir)
      throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      try (FingerprintIndex run =
          FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), false)) {
        // The newer copy first: the older one, judged against the last commit, does not see it.
        assertThat(dedup.add(List.of(record(2L, "供应红富士苹果"))).get(0).added()).isTrue();
        assertThat(dedup.add(List.of(record(1L, "供应红富士苹果"))).get(0).added()).isTrue();
      }
      awaitAddLogged(dedup); // the writer is tried again a second after it was found taken
    }
    try (FingerprintIndex index =
            FingerprintIndex.openReadOnly(config.indexDir(), config.fieldsDigest());
        org.apache.lucene.index.DirectoryReader reader = index.openReader()) {
      assertThat(FingerprintIndex.liveIdsSorted(reader)).containsExactly(1L, 2L);
    }
  }

  @Test
  void handOverIfAsked_addsGoingOn_theReaderOpenedBesideIsSwappedIn_theAddsFollowTheRun(
      @TempDir Path dir) throws Exception {
    DedupConfig config = recordIndexOnly(dir, "");
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      dedup.add(List.of(record(1L, "供应红富士苹果")));
      Path request = config.indexDir().resolve(org.xiaochong.run.IndexHandOver.FILE);
      java.nio.file.Files.writeString(request, Long.toString(ProcessHandle.current().pid()));
      List<Deduplicator.Verdict> meanwhile = new ArrayList<>();
      dedup.whenOpenedBeside(() -> meanwhile.addAll(dedup.add(List.of(record(2L, "求购山东大白菜")))));

      assertThat(dedup.handOverIfAsked()).isTrue();
      assertThat(dedup.writing()).isFalse();
      assertThat(meanwhile.get(0).added()).isTrue();
      // Served from the reader opened beside, not one opened after closing the writer (which would
      // hold the add made meanwhile): that add is logged only, as while the run writes.
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);
      assertThat(dedup.check(record(12L, "求购山东大白菜")).isNew()).isTrue();

      java.nio.file.Files.delete(request); // the run, done
      awaitAddLogged(dedup); // the writer is tried again a second after it was found taken
      assertThat(dedup.check(record(12L, "求购山东大白菜")).keptId()).isEqualTo(2L);
    }
  }

  @Test
  void check_namingAnAddNotYetFsynced_returnsOnceItIsDurable(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      dedup.checkAndAdd(record(1L, "供应红富士苹果")); // indexed and logged, not fsynced yet
      long syncs = dedup.commits();

      assertThat(dedup.check(record(21L, "求购山东大白菜")).isNew()).isTrue();
      assertThat(dedup.commits()).as("a new record names nothing: no wait").isEqualTo(syncs);
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);
      assertThat(dedup.commits()).as("the add it names synced first").isEqualTo(syncs + 1);
      assertThat(dedup.check(record(12L, "供应红富士苹果")).keptId()).isEqualTo(1L);
      assertThat(dedup.commits()).as("every add durable: no wait").isEqualTo(syncs + 1);

      dedup.checkAndAdd(record(2L, "出售二手挖掘机"));
      assertThat(dedup.check(List.of(record(22L, "出售二手挖掘机"))).get(0).keptId()).isEqualTo(2L);
      assertThat(dedup.commits()).as("a batch of checks too").isEqualTo(syncs + 2);
      dedup.checkAndAdd(record(3L, "求购优质玉米"));
      assertThat(dedup.explain(record(23L, "求购优质玉米"), 5).verdict().keptId()).isEqualTo(3L);
      assertThat(dedup.commits()).as("and an explain").isEqualTo(syncs + 3);
    }
  }

  @Test
  void rebuild_checksAnswerFromTheReplacedIndexUntilTheRebuiltOneCommits(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    addElsewhere(config, record(1L, "供应红富士苹果"));
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      try (FingerprintIndex rebuilt =
          FingerprintIndex.open(config.indexDir(), config.fieldsDigest(), true)) {
        assertThat(dedup.refreshIfChanged()).as("nothing published by the rebuild yet").isFalse();
        assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);
      }
      assertThat(dedup.refreshIfChanged()).isFalse();
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId())
          .as("a rebuild closed before its commit leaves the index")
          .isEqualTo(1L);
    }
  }

  @Test
  void refresh_marksSavedBesideTheIndex_areServedWithoutACommit(@TempDir Path dir) {
    DedupConfig config = recordIndexOnly(dir, "");
    addElsewhere(config, record(1L, "供应红富士苹果"));
    try (Deduplicator dedup = Deduplicator.open(config, READING)) {
      assertThat(dedup.check(record(11L, "供应红富士苹果")).keptId()).isEqualTo(1L);
      ApartPairs.of(1L, 11L).save(config.indexDir().resolve(ApartPairs.FILE));

      assertThat(dedup.refreshIfChanged()).isTrue();
      assertThat(dedup.check(record(11L, "供应红富士苹果")).isNew())
          .as("marked apart from its twin")
          .isTrue();
      assertThat(dedup.refreshIfChanged()).isFalse();
    }
  }
}
