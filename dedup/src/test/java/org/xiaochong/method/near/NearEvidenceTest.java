package org.xiaochong.method.near;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearDocumentMaker;
import org.xiaochong.method.near.index.NearSchema;
import org.xiaochong.pass.IndexSnapshot;
import org.xiaochong.pass.Window;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Evidence against a pair ({@link Evidence}, {@link NearRule#similarity}) through the near pass on
 * the sample table: posts of one template whose vocabulary is bounded as real posts are (a few
 * products, places and phrases), where the same product from another place with another quantity
 * shares most of its words with an offer, and its phone is in the phone column (not a near field),
 * so no phone veto tells them apart.
 */
class NearEvidenceTest {
  /** The near columns of the default config. */
  private static final NearColumns SAMPLE_COLUMNS =
      new NearColumns(
          List.of("title", "product", "content"),
          List.of("product"),
          List.of("region"),
          List.of("price"),
          List.of("contact"));

  /** The sample table with the near columns of the default config. */
  private static final TableSpec SAMPLE_TABLE = SAMPLE_COLUMNS.on(TableSpec.sample());

  private static final String[] PRODUCTS = {"葡萄", "苹果", "梨", "桃子"};
  private static final String[] PLACES = {"河南灵宝", "河北围场", "山东烟台", "陕西洛川", "辽宁大连"};
  private static final String[] PACKING = {"按客户要求包装", "散装", "纸箱包装"};
  private static final String[] DESCRIPTIONS = {"个大均匀，色泽鲜艳", "口感甜脆，新鲜采摘", "果园直供，品质保证"};

  /**
   * What the posts under test say of their product, and no other post: one template's slot phrase.
   */
  private static final String RARE = "精选阳光玫瑰，颗粒饱满，当天采摘，冷链直发";

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

  /**
   * A post of the sample table: title, category, product, region, price, contact, phone, content.
   */
  private static SourceRecord post(
      long id,
      String verb,
      String product,
      String place,
      int tons,
      String price,
      String packing,
      String phone) {
    return post(id, verb, product, place, tons, price, packing, phone, RARE);
  }

  private static SourceRecord post(
      long id,
      String verb,
      String product,
      String place,
      int tons,
      String price,
      String packing,
      String phone,
      String description) {
    return post(id, verb, product, place, tons, price, packing, phone, description, "联系人");
  }

  private static SourceRecord post(
      long id,
      String verb,
      String product,
      String place,
      int tons,
      String price,
      String packing,
      String phone,
      String description,
      String contact) {
    String content =
        place
            + product
            + "大量上市，"
            + description
            + "，约"
            + tons
            + "吨，"
            + packing
            + "，价格"
            + price
            + "，量大从优，欢迎来电。";
    return new SourceRecord(
        id,
        id * 1000,
        new String[] {
          verb + place + product, "供应", product, place, price, contact, phone, content
        });
  }

  /** Offers of every product from every place: the table the weights come from. */
  private static List<SourceRecord> others(long firstId) {
    List<SourceRecord> posts = new ArrayList<>();
    long id = firstId;
    for (String product : PRODUCTS) {
      for (String place : PLACES) {
        int i = posts.size();
        posts.add(
            post(
                id++,
                "供应",
                product,
                place,
                30 + 17 * i,
                (2 + i % 5) + ".5元/斤",
                PACKING[i % PACKING.length],
                "1390000" + String.format("%04d", i),
                DESCRIPTIONS[i % DESCRIPTIONS.length]));
      }
    }
    return posts;
  }

  /** The dedup_score of each removal of the last {@link #run}. */
  private final Map<Long, Double> scores = new HashMap<>();

  private Map<Long, Long> run(TableSpec spec, boolean withEvidence, List<SourceRecord> posts)
      throws Exception {
    NearDocumentMaker maker = new NearDocumentMaker(spec, fingerprinter);
    try (FingerprintIndex index =
        FingerprintIndex.open(dir.resolve(withEvidence + "-" + posts.size()), "test", true)) {
      for (SourceRecord record : posts) {
        var fingerprints = maker.fingerprint(record);
        index.addDocument(
            NearSchema.document(
                record.id(),
                record.regTime(),
                record.rowCrc(),
                fingerprints,
                3,
                maker.matchKeys(record),
                withEvidence ? maker.evidence(record, fingerprints) : Evidence.NONE));
      }
      index.commit();
      DeletionPlan plan = new DeletionPlan();
      try (DirectoryReader reader = index.openReader()) {
        new NearPass(new IndexSnapshot(reader), NearConfig.defaults())
            .run(Window.ALL, new long[0], plan);
      }
      Map<Long, Long> removedToKept = new HashMap<>();
      scores.clear();
      for (int i = 0; i < plan.size(); i++) {
        removedToKept.put(plan.removedId(i), plan.keptId(i));
        scores.put(plan.removedId(i), plan.score(i));
      }
      return removedToKept;
    }
  }

  @Test
  void run_sameProductAndTemplateFromAnotherPlaceWithAnotherQuantity_staysApart() throws Exception {
    List<SourceRecord> posts = others(1);
    // The wrong merge: 供应灵宝葡萄 (河南灵宝, 20吨, 按客户要求包装) and 出售红提葡萄 (河北围场, 100吨, 散装).
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13812345678"));
    posts.add(post(102, "出售", "葡萄", "河北围场", 100, "3.5元/斤", "散装", "13987654321"));
    // Without the evidence the pair merges (only the place words and the quantity differ) ...
    assertThat(run(SAMPLE_TABLE, false, posts)).containsEntry(101L, 102L);
    // ... with it, another place and another lot keep them apart.
    assertThat(run(SAMPLE_TABLE, true, posts)).doesNotContainKeys(101L, 102L);
  }

  @Test
  void run_repostWithUpdatedPriceAndStockOrAnotherPhoneFormat_stillMerges() throws Exception {
    List<SourceRecord> posts = others(1);
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 300, "8元/斤", "按客户要求包装", "13812345678"));
    // Stock 300 → 280 吨 and price 8 → 8.5 元 (a few percent each), the phone written with dashes.
    posts.add(post(102, "供应", "葡萄", "河南灵宝", 280, "8.5元/斤", "按客户要求包装", "138-1234-5678"));
    // The title reworded (供应 → 出售), price 8 → 8.8 元 (10 %).
    posts.add(post(103, "出售", "葡萄", "河南灵宝", 300, "8.8元/斤", "按客户要求包装", "13812345678"));
    Map<Long, Long> removed = run(SAMPLE_TABLE, true, posts);
    assertThat(removed).containsEntry(101L, 103L).containsEntry(102L, 103L);
  }

  @Test
  void run_noPlaceOrNumberColumns_theTextsAmountsStillCountAgainst() throws Exception {
    // Only the text: the same place, another lot (20吨 / 100吨) packed otherwise. Without the
    // evidence
    // the pair merges; with it, the contradicted lot keeps it apart on its own
    // (Evidence#contradicts).
    TableSpec textOnly =
        new NearColumns(
                List.of("title", "product", "content"),
                List.of("product"),
                List.of(),
                List.of(),
                List.of())
            .on(TableSpec.sample());
    List<SourceRecord> posts = others(1);
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13812345678"));
    posts.add(post(102, "供应", "葡萄", "河南灵宝", 100, "3.5元/斤", "散装", "13987654321"));
    assertThat(run(textOnly, false, posts)).containsEntry(101L, 102L);
    assertThat(run(textOnly, true, posts)).doesNotContainKeys(101L, 102L);
    // A repost that moves its lot by 10 % (20吨 → 22吨) agrees with it: still merged.
    posts.set(
        posts.size() - 1, post(102, "供应", "葡萄", "河南灵宝", 22, "3.5元/斤", "按客户要求包装", "13987654321"));
    assertThat(run(textOnly, true, posts)).containsEntry(101L, 102L);
  }

  /**
   * Seed 002 compares posts by title, contact and phone: the same seller's post of the same product
   * at another price (3.5 → 5.0 元, 30 % off) with another lot (20 → 100 吨) is a repost, and the
   * latest is kept; the same offer at another price by another seller stays another offer.
   */
  @Test
  void run_sameSellerAtANewPriceAndLot_isARepost_anotherSellerStaysApart() throws Exception {
    List<SourceRecord> posts = others(1);
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13812345678"));
    posts.add(post(102, "供应", "葡萄", "河南灵宝", 100, "5.0元/斤", "按客户要求包装", "138-1234-5678"));
    posts.add(post(103, "供应", "葡萄", "河南灵宝", 20, "2.5元/斤", "按客户要求包装", "13987654321"));
    Map<Long, Long> removed = run(SAMPLE_TABLE, true, posts);
    assertThat(removed).containsEntry(101L, 102L).doesNotContainKeys(102L, 103L);
    // The score is the keys' similarity: the lifted price and lot do not count against the pair.
    double score = scores.get(101L);
    posts.set(
        posts.size() - 2,
        post(102, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "138-1234-5678", RARE + "。"));
    run(SAMPLE_TABLE, true, posts);
    assertThat(scores.get(101L)).as("the same post again").isGreaterThan(score);
    assertThat(score).isGreaterThan(NearConfig.defaults().minSimilarity());
  }

  @Test
  void run_sameSellerFromAnotherPlaceOrWithAnotherGradeInTheText_staysApart() throws Exception {
    List<SourceRecord> posts = others(1);
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13812345678"));
    // Another place, the same seller, another price: another offer.
    posts.add(post(102, "供应", "葡萄", "河北围场", 20, "5.0元/斤", "按客户要求包装", "13812345678"));
    assertThat(run(SAMPLE_TABLE, true, posts)).doesNotContainKeys(101L, 102L);
    // Another grade in the text (特级 for 一级), the same seller, another price: another offer.
    posts = others(1);
    posts.add(post(103, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13600001111", "一级" + RARE));
    posts.add(post(104, "供应", "葡萄", "河南灵宝", 20, "5.0元/斤", "按客户要求包装", "13600001111", "特级" + RARE));
    assertThat(run(SAMPLE_TABLE, true, posts)).doesNotContainKeys(103L, 104L);
    // 精品 is a stop word, no near key, but still a grade of the text: 精品 against 特级 is another
    // offer.
    posts.set(
        posts.size() - 2,
        post(103, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13600001111", "精品" + RARE));
    assertThat(run(SAMPLE_TABLE, true, posts)).doesNotContainKeys(103L, 104L);
    // The same grade: a repost at a new price.
    posts.set(
        posts.size() - 2,
        post(103, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13600001111", "一级" + RARE));
    posts.set(
        posts.size() - 1,
        post(104, "供应", "葡萄", "河南灵宝", 20, "5.0元/斤", "按客户要求包装", "13600001111", "一级" + RARE));
    assertThat(run(SAMPLE_TABLE, true, posts)).containsEntry(103L, 104L);
  }

  /**
   * Issue 33's wrong merges: the same seller's posts of one product, place and lot that name
   * another grade at a price within 10 %, where no amount contradicts; the grade does, seller or
   * not. A grade on one side only is no evidence.
   */
  @Test
  void run_anotherGradeAtAPriceWithinTenPercent_staysApart_aGradeOnOneSideOnlyMerges()
      throws Exception {
    List<SourceRecord> posts = others(1);
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13600001111", "一级" + RARE));
    posts.add(post(102, "供应", "葡萄", "河南灵宝", 20, "3.6元/斤", "按客户要求包装", "13600001111", "二级" + RARE));
    posts.add(post(103, "供应", "葡萄", "河南灵宝", 20, "3.6元/斤", "按客户要求包装", "13600002222", "统货" + RARE));
    Map<Long, Long> removed = run(SAMPLE_TABLE, true, posts);
    assertThat(removed).doesNotContainKeys(101L, 102L, 103L);
    // The seller's second post without a grade: a repost of the first at a new price.
    posts.remove(posts.size() - 1);
    posts.set(
        posts.size() - 1,
        post(102, "供应", "葡萄", "河南灵宝", 20, "3.6元/斤", "按客户要求包装", "13600001111", RARE));
    assertThat(run(SAMPLE_TABLE, true, posts)).containsEntry(101L, 102L);
    // Another size in the text (大果 for 中果): another offer too.
    posts.set(
        posts.size() - 2,
        post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "13600001111", "大果" + RARE));
    posts.set(
        posts.size() - 1,
        post(102, "供应", "葡萄", "河南灵宝", 20, "3.6元/斤", "按客户要求包装", "13600001111", "中果" + RARE));
    assertThat(run(SAMPLE_TABLE, true, posts)).doesNotContainKeys(101L, 102L);
  }

  @Test
  void run_noPhoneColumn_theSameContactIsTheSameSeller() throws Exception {
    TableSpec noPhone =
        SAMPLE_COLUMNS.on(
            new TableSpec(
                "supply_demand", "id", "reg_time", TableSpec.SAMPLE_TEXT_COLUMNS, List.of()));
    List<SourceRecord> posts = others(1);
    posts.add(post(101, "供应", "葡萄", "河南灵宝", 20, "3.5元/斤", "按客户要求包装", "", RARE, "王先生"));
    posts.add(post(102, "供应", "葡萄", "河南灵宝", 100, "5.0元/斤", "按客户要求包装", "", RARE, "王先生"));
    assertThat(run(noPhone, true, posts)).containsEntry(101L, 102L);
    // Another contact: no seller in common, so the new price and lot keep them apart.
    posts.set(
        posts.size() - 1, post(102, "供应", "葡萄", "河南灵宝", 100, "5.0元/斤", "按客户要求包装", "", RARE, "李女士"));
    assertThat(run(noPhone, true, posts)).doesNotContainKeys(101L, 102L);
  }
}
