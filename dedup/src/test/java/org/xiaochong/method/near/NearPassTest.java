package org.xiaochong.method.near;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.ApartPairs;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.NearOutcome;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;

/**
 * The greedy newest-first rule of {@link NearPass} on a tiny hand-made near index. Each post names
 * its product twice (as title and in the text, like real posts), so the product is its top-ranked
 * term: the same-subject veto relies on that (with every term once, the tie-break would rank the
 * stock number first).
 */
class NearPassTest {
  private static final String APPLE =
      "红富士苹果：供应山东烟台红富士苹果约12000斤，个大皮薄，价格2.50元/斤，联系人王先生，电话13800138000。";
  private static final String APPLE_PRICE =
      "红富士苹果：供应山东烟台红富士苹果约12000斤，个大皮薄，价格2.70元/斤，联系人王先生，电话13800138000。";
  private static final String APPLE_SENTENCE =
      "红富士苹果：供应山东烟台红富士苹果约12000斤，个大皮薄，价格2.50元/斤，全国包邮，联系人王先生，电话13800138000。";
  private static final String APPLE_OTHER_SELLER =
      "红富士苹果：供应山东烟台红富士苹果约12000斤，个大皮薄，价格2.50元/斤，联系人李女士，电话13912345678。";
  private static final String PEAR_SAME_SELLER =
      "黄花梨：供应山东烟台黄花梨约12000斤，个大皮薄，价格2.50元/斤，联系人王先生，电话13800138000。";

  private static TopTermsMd5 fingerprinter;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    fingerprinter = new TopTermsMd5(NearConfig.defaults());
  }

  @AfterAll
  static void stop() {
    fingerprinter.close();
  }

  private Map<Long, Long> run(Window window, long[] exactRemoved, Object[]... posts) {
    return run(NearConfig.defaults(), window, exactRemoved, posts);
  }

  /**
   * Posts are {id, time, text} or {id, time, text, product} (product: the one must-match field).
   */
  private Map<Long, Long> run(
      NearConfig config, Window window, long[] exactRemoved, Object[]... posts) {
    List<Document> documents = new ArrayList<>();
    for (Object[] p : posts) {
      long[] matchKeys =
          p.length > 3 ? new long[] {fingerprinter.matchKey((String) p[3])} : new long[0];
      documents.add(document((Long) p[0], (Long) p[1], (String) p[2], matchKeys));
    }
    DeletionPlan plan =
        runOn(
            dir,
            documents,
            (reader, into) ->
                last =
                    new NearPass(new IndexSnapshot(reader), config, 1, apart)
                        .run(window, exactRemoved, into));
    for (int i = 0; i < plan.size(); i++) {
      assertThat(plan.rule(i)).isEqualTo(DeletionPlan.Rule.of("near"));
      assertThat(plan.score(i)).isBetween(config.minSimilarity(), 1.0);
    }
    return removedToKept(plan);
  }

  /** What a test does with the reader of its index: run the pass into {@code plan}, check keys. */
  @FunctionalInterface
  private interface OnIndex {
    void accept(DirectoryReader reader, DeletionPlan plan) throws IOException;
  }

  /**
   * Indexes {@code documents} in {@code folder} (a new index), hands its reader and an empty plan
   * to {@code use}, and returns the plan.
   */
  private static DeletionPlan runOn(Path folder, List<Document> documents, OnIndex use) {
    try (FingerprintIndex index = FingerprintIndex.open(folder, "test", true)) {
      documents.forEach(index::addDocument);
      index.commit();
      DeletionPlan plan = new DeletionPlan();
      try (DirectoryReader reader = index.openReader()) {
        use.accept(reader, plan);
      }
      return plan;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The near index's document of a post: its fingerprints, pre 3. */
  private static Document document(long id, long time, String text, long[] matchKeys) {
    return NearSchema.document(id, time, fingerprinter.fingerprint(text), 3, matchKeys);
  }

  /** The near index's documents of records of fields: ids 1, 2, … with times 100, 99, …. */
  private static List<Document> documents(String[][] records) {
    List<Document> documents = new ArrayList<>();
    for (int i = 0; i < records.length; i++) {
      documents.add(
          NearSchema.document(
              i + 1, 100 - i, fingerprinter.fingerprint(records[i]), 3, new long[0]));
    }
    return documents;
  }

  /** The plan as removed id → kept id. */
  private static Map<Long, Long> removedToKept(DeletionPlan plan) {
    Map<Long, Long> removedToKept = new HashMap<>();
    for (int i = 0; i < plan.size(); i++) {
      removedToKept.put(plan.removedId(i), plan.keptId(i));
    }
    return removedToKept;
  }

  private NearPass.Result last;

  /** The marks the next {@link #run} honours. */
  private ApartPairs apart = ApartPairs.NONE;

  private static Object[] post(long id, long time, String text) {
    return new Object[] {id, time, text};
  }

  /** Three near copies of one post: 1 the oldest, 3 (a sentence added) and 2 (new price) newest. */
  private static final Object[][] THREE_COPIES = {
    post(1, 100, APPLE), post(2, 300, APPLE_PRICE), post(3, 200, APPLE_SENTENCE)
  };

  private static Object[] post(long id, long time, String text, String product) {
    return new Object[] {id, time, text, product};
  }

  private static final String CORN =
      "玉米：供应黑龙江哈尔滨玉米约310745斤，新鲜采摘，价格26.26元/斤，全国包邮，联系人马先生，电话13856497542。";
  private static final String CORN_SEED =
      "玉米：供应黑龙江哈尔滨玉米种子约317255斤，新鲜采摘，价格26.26元/斤，全国包邮，联系人马先生，电话13856497542。";

  @Test
  void run_sameSellerOtherProductSharingAWord_onlyTheMustMatchFieldTellsThemApart() {
    // In a table of two posts every differing key weighs ln 3 against ln 2 for a shared one, so the
    // pair scores under 0.5; at 0.4 the similarity passes, and 玉米种子 segments to 玉米 + 种子, so the
    // text
    // passes every other veto: the pair merges ...
    NearConfig lenient = NearConfig.defaults().withMinSimilarity(0.4);
    assertThat(run(lenient, Window.ALL, new long[0], post(1, 100, CORN), post(2, 200, CORN_SEED)))
        .containsOnly(Map.entry(1L, 2L));
    // ... unless the product column, folded, must match.
    assertThat(
            run(
                lenient,
                Window.ALL,
                new long[0],
                post(1, 100, CORN, "玉米"),
                post(2, 200, CORN_SEED, "玉米种子")))
        .isEmpty();
    // Folded values match: synonyms (西红柿 = 番茄) and white space do not count as a difference.
    assertThat(run(Window.ALL, new long[0], post(1, 100, CORN, "西红柿"), post(2, 200, CORN, " 番茄 ")))
        .containsOnly(Map.entry(1L, 2L));
    // An empty value is no evidence either way.
    assertThat(run(Window.ALL, new long[0], post(1, 100, CORN, ""), post(2, 200, CORN, "玉米")))
        .containsOnly(Map.entry(1L, 2L));
  }

  @Test
  void run_sameSellerSameProductOtherNumbersAndDescription_vetoedBySharedNumber() {
    // Another quantity, another price, another origin (烟台 -> 威海): similarity 0.7, but another
    // offer.
    String offer = "红富士苹果：供应山东烟台红富士苹果约12000斤，个大皮薄，欢迎实地考察，支持视频看货，价格2.50元/斤，联系人王先生，电话13800138000。";
    String nextOffer =
        "红富士苹果：供应山东威海红富士苹果约30000斤，个大皮薄，欢迎实地考察，支持视频看货，价格3.10元/斤，联系人王先生，电话13800138000。";
    // (In a table of two, the idf weights score it lower; at 0.3 the similarity passes.)
    NearConfig lenient = NearConfig.defaults().withMinSimilarity(0.3);
    // Without the shared-number veto the amounts still contradict (12000斤 / 30000斤, 2.5元 / 3.1元):
    // another lot, not a repost (Evidence#contradicts).
    assertThat(
            run(
                lenient.withRequireSharedNumber(false),
                Window.ALL,
                new long[0],
                post(1, 100, offer),
                post(2, 200, nextOffer)))
        .isEmpty();
    assertThat(run(lenient, Window.ALL, new long[0], post(1, 100, offer), post(2, 200, nextOffer)))
        .isEmpty();
    // A changed price alone keeps the quantity: still a near duplicate (APPLE_PRICE above).
    assertThat(run(Window.ALL, new long[0], post(1, 100, APPLE), post(2, 200, APPLE_PRICE)))
        .containsOnly(Map.entry(1L, 2L));
    // Price and stock both updated, nothing else changed: a repost, which the veto lets through.
    String update = "红富士苹果：供应山东烟台红富士苹果约9000斤，个大皮薄，价格2.70元/斤，联系人王先生，电话13800138000。";
    assertThat(run(lenient, Window.ALL, new long[0], post(1, 100, APPLE), post(2, 200, update)))
        .containsOnly(Map.entry(1L, 2L));
  }

  @Test
  void run_postWithOnlyAPrice_changedPriceIsStillANearDuplicate() {
    String before = "红富士苹果：供应山东烟台红富士苹果，个大皮薄，品质保证，价格2.50元/斤，联系人王先生，电话13800138000。";
    String after = "红富士苹果：供应山东烟台红富士苹果，个大皮薄，品质保证，价格2.70元/斤，联系人王先生，电话13800138000。";
    assertThat(run(Window.ALL, new long[0], post(1, 100, before), post(2, 200, after)))
        .containsOnly(Map.entry(1L, 2L));
  }

  @Test
  void run_threeNearCopies_bothOlderPointToTheNewest() {
    Map<Long, Long> plan = run(Window.ALL, new long[0], THREE_COPIES);
    assertThat(plan).containsOnly(Map.entry(1L, 2L), Map.entry(3L, 2L));
    assertThat(last.removed()).isEqualTo(2);
  }

  @Test
  void run_oldestMarkedApartFromTheNewest_staysWhileTheOtherCopyGoes() {
    apart = ApartPairs.of(1, 2);

    Map<Long, Long> plan = run(Window.ALL, new long[0], THREE_COPIES);

    // 3 was removed for 2 before 1 was examined, so 2 is 1's only kept candidate, and it is marked.
    assertThat(plan).containsOnly(Map.entry(3L, 2L));
    assertThat(apart.honoured()).isEqualTo(1);
  }

  @Test
  void run_bestCandidateMarked_staysRatherThanGoingForItsExactTwin() {
    // 2 and 3 hold the same text (an exact twin restored earlier: marked apart from 2); 1 was
    // restored
    // from a near removal in favour of 2. 3 is as similar to 1 as 2 is: taking it would undo the
    // undo.
    apart = ApartPairs.of(1, 2, 2, 3);

    Map<Long, Long> plan =
        run(
            Window.ALL,
            new long[0],
            post(1, 100, APPLE_PRICE),
            post(2, 300, APPLE),
            post(3, 200, APPLE));

    assertThat(plan).isEmpty();
    assertThat(apart.honoured()).isEqualTo(2);
  }

  @Test
  void run_threeNearCopiesAllMarkedApart_allStay() {
    apart = ApartPairs.of(1, 2, 1, 3, 2, 3);

    Map<Long, Long> plan = run(Window.ALL, new long[0], THREE_COPIES);

    assertThat(plan).isEmpty();
    assertThat(last.removed()).isZero();
  }

  @Test
  void run_timeTie_keepsTheLargerId() {
    Map<Long, Long> plan =
        run(Window.ALL, new long[0], post(5, 100, APPLE), post(4, 100, APPLE_PRICE));
    assertThat(plan).containsOnly(Map.entry(4L, 5L));
  }

  @Test
  void run_hardNegatives_areNotMerged() {
    Map<Long, Long> plan =
        run(
            Window.ALL,
            new long[0],
            post(1, 100, APPLE),
            post(2, 200, APPLE_OTHER_SELLER),
            post(3, 300, PEAR_SAME_SELLER));
    assertThat(plan).isEmpty();
  }

  @Test
  void run_exactRemovedRecord_takesNoPart() {
    // 2 is the newest but the exact pass removed it: 1 must point to 3, not to 2.
    Map<Long, Long> plan =
        run(
            Window.ALL,
            new long[] {2},
            post(1, 100, APPLE),
            post(2, 300, APPLE),
            post(3, 200, APPLE_PRICE));
    assertThat(plan).containsOnly(Map.entry(1L, 3L));
    assertThat(last.skippedExact()).isEqualTo(1);
  }

  @Test
  void run_newerRecordOutsideTheWindow_isKeptAndAbsorbsTheWindow() {
    Map<Long, Long> plan = run(new Window(0, 250), new long[0], THREE_COPIES);
    assertThat(plan).containsOnly(Map.entry(1L, 2L), Map.entry(3L, 2L));
    assertThat(last.recordsExamined()).isEqualTo(2);
  }

  @Test
  void run_postsWithoutWords_areCountedAndNeverMerged() {
    Map<Long, Long> plan =
        run(
            Window.ALL,
            new long[0],
            post(1, 100, "！！！。。。"),
            post(2, 200, "！！！。。。"),
            post(3, 100, "😀🍎👍"),
            post(4, 200, "😀🍎👍"),
            post(5, 100, "   "));
    assertThat(plan).isEmpty();
    assertThat(last.empty())
        .containsEntry(NearOutcome.EMPTY_AFTER_SEGMENTATION, 4L)
        .containsEntry(NearOutcome.EMPTY_AFTER_NORMALIZE, 1L);
  }

  /**
   * Person records as febrl has them: given name, surname, street number, street, suburb, postcode,
   * state, birth date, id.
   */
  private static final String[][] PEOPLE = {
    {"jack", "brock", "", "duhig place", "boyanup", "2485", "nsw", "19800422", "8460078"},
    {"", "brokc", "1", "duhig place", "boynaup", "2485", "nsw", "19800422", "8460078"},
    {"jack", "brown", "7", "wallaby place", "delmar", "2119", "nsw", "19560409", "1804974"},
    {
      "harley", "mccarthy", "177", "pridham street", "marsden", "3165", "nsw", "19080419", "6089216"
    },
    {"mitchell", "green", "12", "duhig place", "cleveland", "2485", "vic", "19761103", "3312907"},
  };

  @Test
  void
      run_personRecords_theIndexGivesTheRuleTheFieldsOfTheFingerprints_andAMissingNameIsNoEvidence() {
    DeletionPlan plan =
        runOn(
            dir,
            documents(PEOPLE),
            (reader, into) -> {
              List<LeafReaderContext> leaves = reader.leaves();
              for (int i = 0; i < PEOPLE.length; i++) {
                Fingerprints prints = fingerprinter.fingerprint(PEOPLE[i]);
                IndexedNearKeys stored = IndexedNearKeys.of(leaves, i);
                assertThat(stored.keyFields()).containsExactly(prints.sortedKeyFields());
                assertThat(stored.presentFields()).isEqualTo(prints.presentFields());
                assertThat(stored.shortFields()).isEqualTo(prints.shortFields());
              }
              // The second record lacks the given name (bit 0): the first one's name keys do not
              // count.
              assertThat(IndexedNearKeys.of(leaves, 1).presentFields() & 1).isZero();
              new NearPass(new IndexSnapshot(reader), NearConfig.defaults())
                  .run(Window.ALL, new long[0], into);
            });
    assertThat(removedToKept(plan)).containsExactly(Map.entry(2L, 1L));
  }

  /**
   * One person (the original, time 2) and two copies with their own typos, among unrelated people.
   */
  private static final String[][] TYPO_VARIANTS = {
    {
      "amelia", "hartley", "14", "banksia street", "kingston", "2604", "act", "19820314", "5531207"
    }, // newest copy
    {
      "amelia", "hartley", "14", "banksia street", "kingston", "2604", "act", "19820314", "5531207"
    }, // the original
    {
      "amleia", "hartley", "14", "banksia street", "kingston", "2640", "act", "19820314", "5531207"
    }, // oldest copy
    {"jack", "brown", "7", "wallaby place", "delmar", "2119", "nsw", "19560409", "1804974"},
    {
      "harley", "mccarthy", "177", "pridham street", "marsden", "3165", "nsw", "19080419", "6089216"
    },
    {"mitchell", "green", "12", "duhig place", "cleveland", "2485", "vic", "19761103", "3312907"},
    {"sophie", "nguyen", "3", "banksia street", "kingston", "2604", "act", "19900101", "7712093"},
  };

  @Test
  void run_twoCopiesWithOwnTyposOfOneOriginal_joinOneGroupByAverageLinkage() {
    String[][] people = TYPO_VARIANTS.clone();
    people[0] =
        new String[] {
          "amelia",
          "hartely",
          "14",
          "banksia street",
          "kingstn",
          "2604",
          "act",
          "19820314",
          "5531207"
        };
    NearConfig config = NearConfig.defaults();
    double[] average = new double[1];
    DeletionPlan plan =
        runOn(
            dir,
            documents(people),
            (reader, into) -> {
              List<LeafReaderContext> leaves = reader.leaves();
              KeyFrequencies frequencies = new KeyFrequencies(leaves, NearSchema.KEY);
              frequencies.useWeights(reader.maxDoc());
              NearRule.Keys newest = IndexedNearKeys.of(leaves, 0);
              NearRule.Keys original = IndexedNearKeys.of(leaves, 1);
              NearRule.Keys oldest = IndexedNearKeys.of(leaves, 2);
              // Each copy is a near duplicate of the original, the copies are not each other's:
              // the greedy pass alone removes the original in favour of the newest copy and keeps
              // the oldest one apart.
              assertThat(NearRule.isNearDuplicate(original, newest, config, frequencies.weights()))
                  .isTrue();
              assertThat(NearRule.isNearDuplicate(oldest, original, config, frequencies.weights()))
                  .isTrue();
              assertThat(NearRule.isNearDuplicate(oldest, newest, config, frequencies.weights()))
                  .isFalse();
              average[0] =
                  (NearRule.similarity(oldest, newest, frequencies.weights())
                          + NearRule.similarity(oldest, original, frequencies.weights()))
                      / 2;
              assertThat(average[0]).isGreaterThanOrEqualTo(config.minSimilarity());
              assertThat(PassDocuments.allFieldsShort(oldest)).isTrue();

              new NearPass(new IndexSnapshot(reader), config).run(Window.ALL, new long[0], into);
            });
    for (int i = 0; i < plan.size(); i++) {
      if (plan.removedId(i) == 3) {
        assertThat(plan.score(i)).isCloseTo(average[0], org.assertj.core.data.Offset.offset(1e-6));
      }
    }
    assertThat(removedToKept(plan)).containsExactlyInAnyOrderEntriesOf(Map.of(2L, 1L, 3L, 1L));
  }

  /**
   * A boilerplate sentence every record holds and one number of its own: the records share only
   * keys so common that they find no candidates, so the pass compares a bounded number of pairs per
   * record (looking up the common keys of every record would compare every pair).
   */
  @Test
  void run_keyHeldByEveryRecord_doesNotMakeThePassQuadratic() {
    int records = 3000;
    Object[][] posts = new Object[records][];
    for (int i = 0; i < records; i++) {
      posts[i] = post(i + 1, 1000 + i, "本站信息均来自网络，请自行核实，谨防上当受骗。编号" + (7_000_000 + i * 7919L) + "号");
    }
    assertThat(run(Window.ALL, new long[0], posts)).isEmpty();
    assertThat(last.recordsExamined()).isEqualTo(records);
    assertThat(last.candidates()).as("pairs compared").isLessThan(10L * records);
  }

  /**
   * The same decisions on one worker and on several: step 3 decides in the newest-first order
   * alone.
   */
  @Test
  void run_sameDecisionsWhateverTheThreads() {
    org.xiaochong.posts.PostGenerator generator = new org.xiaochong.posts.PostGenerator(7, 6000);
    List<Object[]> posts = new ArrayList<>();
    generator.generate(
        6000,
        p ->
            posts.add(
                post(
                    p.id(),
                    p.id() % 977, // times with ties: the id decides them
                    p.title() + "\n" + p.product() + "\n" + p.content() + "\n" + p.phone())));
    Map<Long, Long> one = runThreads(1, posts);
    Map<Long, Long> three = runThreads(3, posts);
    assertThat(one).hasSizeGreaterThan(100);
    assertThat(three).isEqualTo(one);
  }

  private Map<Long, Long> runThreads(int threads, List<Object[]> posts) {
    List<Document> documents = new ArrayList<>();
    for (Object[] p : posts) {
      documents.add(document((Long) p[0], (Long) p[1], (String) p[2], new long[0]));
    }
    return removedToKept(
        runOn(
            dir.resolve("threads-" + threads),
            documents,
            (reader, into) ->
                new NearPass(
                        new IndexSnapshot(reader), NearConfig.defaults(), threads, ApartPairs.NONE)
                    .run(Window.ALL, new long[0], into)));
  }
}
