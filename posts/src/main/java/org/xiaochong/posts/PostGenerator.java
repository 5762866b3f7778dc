package org.xiaochong.posts;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Generates realistic Chinese agricultural supply/demand posts with known duplicate clusters, the
 * ground truth for tests, the demo and the benchmarks. Deterministic for a given seed.
 *
 * <p>Each cluster has one original post and, with probability {@link #DUPLICATE_SHARE}, one to
 * three variants of it: exact ones (a repost with a new time, white-space, full-width, punctuation
 * or phone format changes, all equal after normalization) and near ones (changed price, added,
 * dropped or reordered sentence, reformatted phone in the text, reworded title, one-character typo;
 * in the realistic vocabulary also the same seller's repost at another price or with another lot).
 * Some clusters are hard negatives of another: the same seller with another product, or the same
 * product from another seller, and in the realistic vocabulary the same product and template from
 * another place (by another seller or the same one), with another quantity or another price (by
 * another seller), or of another grade at another price (by the same seller); they are distinct
 * clusters and must never be merged.
 *
 * <p>Two vocabularies ({@link Vocabulary}): the legacy one ({@link LegacyPosts}) gives every
 * original a stock quantity unique to its cluster, so two clusters never collide by chance and
 * every post keeps rare keys as the table grows; the realistic one ({@link RealisticPosts}) draws
 * everything but the seller's phone from bounded lists, so a price, a quantity or a place is held
 * by more posts as the table grows, as in real posts.
 *
 * <p>Times: originals are spread over 2024-01-01 .. 2025-12-31; a variant is up to 30 days before
 * or after its original; 0.5% of the rows have a NULL time and some variants share their original's
 * time exactly (ties are broken by id). Not thread-safe.
 *
 * <p>One random stream feeds every draw in a fixed order, which is what makes a seed reproduce the
 * same posts: the vocabulary's offers ({@link LegacyPosts} or {@link RealisticPosts}), then the
 * variants ({@link Variants}); {@link PostRenderer} writes the posts and draws nothing.
 */
public final class PostGenerator {
  /** Share of clusters that get duplicates. */
  static final double DUPLICATE_SHARE = 0.4;

  /**
   * Default chance that a variant is an exact one (a repost or a formatting change) rather than a
   * near one: 0.6, so the near pass has plenty to find. Crawled data is often more repetitive: the
   * seed's exact-only method found 89.5 % of its duplicates, so there exact copies were about nine
   * in ten.
   */
  public static final double DEFAULT_EXACT_SHARE = 0.6;

  /** How a record relates to its cluster's original. */
  public enum Kind {
    ORIGINAL(false, false),
    EXACT_REPOST(true, false),
    EXACT_WHITESPACE(true, false),
    EXACT_FULLWIDTH(true, false),
    EXACT_PUNCTUATION(true, false),
    EXACT_PHONE_FORMAT(true, false),
    NEAR_PRICE(false, true),
    NEAR_ADDED_SENTENCE(false, true),
    NEAR_DROPPED_SENTENCE(false, true),
    NEAR_REORDERED(false, true),
    NEAR_PHONE_IN_TEXT(false, true),
    NEAR_TITLE(false, true),
    NEAR_TYPO(false, true),
    /**
     * The same seller's repost at another price (realistic vocabulary): 30 % or more from the
     * original's, the rest unchanged. Seed 002 compares posts by title, contact and phone: a seller
     * posting the same product again at a new price has reposted it.
     */
    NEAR_NEW_PRICE(false, true),
    /**
     * The same seller's repost with another lot (realistic vocabulary): a quantity 2x or more from
     * the original's, the rest unchanged.
     */
    NEAR_NEW_LOT(false, true),
    /** A hard negative: the same seller's offer of another product. */
    HARD_NEGATIVE_SELLER(false, false),
    /** A hard negative: the same offer by another seller. */
    HARD_NEGATIVE_PRODUCT(false, false),
    /**
     * A hard negative (realistic): the same product and template from another place, by another
     * seller.
     */
    HARD_NEGATIVE_PLACE(false, false),
    /**
     * A hard negative (realistic): the same product and template from another place, by the same
     * seller.
     */
    HARD_NEGATIVE_PLACE_SAME_SELLER(false, false),
    /**
     * A hard negative (realistic): the same product and template, another quantity, by another
     * seller.
     */
    HARD_NEGATIVE_QUANTITY(false, false),

    /**
     * A hard negative (realistic): the same product and template, another price, by another seller.
     */
    HARD_NEGATIVE_PRICE(false, false),
    /**
     * A hard negative (realistic): the same product and template, another grade in the text at
     * another price, by the same seller: another offer of the seller's, not a repost.
     */
    HARD_NEGATIVE_GRADE_SAME_SELLER(false, false);

    /** Equal to the original after normalization. */
    public final boolean exactDuplicate;

    /** A near duplicate of the original. */
    public final boolean nearDuplicate;

    Kind(boolean exactDuplicate, boolean nearDuplicate) {
      this.exactDuplicate = exactDuplicate;
      this.nearDuplicate = nearDuplicate;
    }

    /** The original of a cluster made as another offer close to an earlier cluster's. */
    public boolean hardNegative() {
      return name().startsWith("HARD_NEGATIVE_");
    }
  }

  /**
   * The words the posts are made of. {@code LEGACY}: a product list of 60, 30 regions, prices over
   * a wide range and a stock quantity unique to each cluster, so every post has rare keys besides
   * its phone. {@code REALISTIC}: the bounded vocabulary of real posts ({@link RealisticPosts}),
   * where only a seller's phone stays rare as the table grows.
   */
  public enum Vocabulary {
    LEGACY,
    REALISTIC;

    /** The vocabulary named {@code name} ({@code legacy} or {@code realistic}, any case). */
    public static Vocabulary parse(String name) {
      for (Vocabulary v : values()) {
        if (v.name().equalsIgnoreCase(name.strip())) {
          return v;
        }
      }
      throw new IllegalArgumentException(
          "unknown vocabulary '" + name + "': expected legacy or realistic");
    }

    /** The name on the command line. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One generated row with its truth: cluster id and kind, and for the posts of a hard-negative
   * cluster the cluster it was made against ({@code negativeOf}, 0 for the others).
   */
  public record Post(
      long id,
      long cluster,
      Kind kind,
      String title,
      String category,
      String product,
      String region,
      String price,
      String contact,
      String phone,
      String content,
      LocalDateTime regTime,
      long negativeOf) {}

  /** The extra sentences an offer may have, after its main one. */
  static final String[] EXTRA_SENTENCES = {
    "支持货到付款。",
    "可代办冷库储存。",
    "量大价格从优。",
    "欢迎实地考察。",
    "可提供样品。",
    "全国包邮。",
    "常年有货，长期合作。",
    "可开发票。",
    "合作社直供。",
    "支持视频看货。"
  };

  private static final LocalDateTime EPOCH = LocalDateTime.of(2024, 1, 1, 0, 0);
  private static final int TWO_YEARS_MINUTES = 2 * 365 * 24 * 60;

  private final SplittableRandom random;

  /** The offers of the vocabulary in use: one of the two is null. */
  private final LegacyPosts legacy;

  private final RealisticPosts realistic;
  private final Variants variants;

  private long nextId = 1;
  private long nextCluster = 1;

  /**
   * @param seed the random seed (the same seed gives the same data)
   * @param expectedRecords about how many records will be drawn (sizes the seller pool)
   */
  public PostGenerator(long seed, long expectedRecords) {
    this(seed, expectedRecords, DEFAULT_EXACT_SHARE);
  }

  /**
   * @param exactShare chance that a variant is exact rather than near, in [0, 1]
   */
  public PostGenerator(long seed, long expectedRecords, double exactShare) {
    this(seed, expectedRecords, exactShare, Vocabulary.LEGACY);
  }

  /**
   * @param vocabulary the words of the posts; the legacy one sizes its seller pool from {@code
   *     expectedRecords}, the realistic one gives each seller 1 or 2 offers whatever the size
   */
  public PostGenerator(long seed, long expectedRecords, double exactShare, Vocabulary vocabulary) {
    if (!(exactShare >= 0 && exactShare <= 1)) {
      throw new IllegalArgumentException("exact share (" + exactShare + ") must be in [0, 1]");
    }
    this.random = new SplittableRandom(seed);
    int sellers = (int) Math.max(50, expectedRecords / 6);
    this.realistic = vocabulary == Vocabulary.REALISTIC ? new RealisticPosts(random, this) : null;
    this.legacy = realistic == null ? new LegacyPosts(random, this, sellers) : null;
    this.variants = new Variants(random, this, exactShare, realistic);
  }

  /**
   * Generates at least {@code records} posts (a cluster is never cut), in blocks shuffled by id.
   */
  public void generate(long records, Consumer<Post> sink) {
    List<Post> block = new ArrayList<>();
    List<Offer> recentBases = new ArrayList<>();
    long produced = 0;
    while (produced < records) {
      List<Post> cluster = nextCluster(recentBases);
      block.addAll(cluster);
      produced += cluster.size();
      if (block.size() >= 5000 || produced >= records) {
        Collections.shuffle(block, new java.util.Random(random.nextLong()));
        for (Post p : block) {
          sink.accept(withId(p, nextId++));
        }
        block.clear();
      }
    }
  }

  private List<Post> nextCluster(List<Offer> recentBases) {
    long cluster = nextCluster++;
    Offer base =
        realistic != null
            ? realistic.next(cluster, recentBases)
            : legacy.next(cluster, recentBases);
    if (recentBases.size() < 1000) {
      recentBases.add(base);
    } else {
      recentBases.set(random.nextInt(recentBases.size()), base);
    }
    List<Post> posts = new ArrayList<>();
    posts.add(PostRenderer.render(base, base.kind(), base.time()));
    if (random.nextDouble() < DUPLICATE_SHARE) {
      for (Kind kind : variants.kinds()) {
        posts.add(variants.variant(base, kind));
      }
    }
    return posts;
  }

  /** Zero to two distinct extra sentences. */
  List<String> randomExtras() {
    List<String> extras = new ArrayList<>();
    int n = random.nextInt(3);
    for (int i = 0; i < n; i++) {
      String s = EXTRA_SENTENCES[random.nextInt(EXTRA_SENTENCES.length)];
      if (!extras.contains(s)) {
        extras.add(s);
      }
    }
    return extras;
  }

  LocalDateTime randomTime() {
    if (random.nextDouble() < 0.005) {
      return null;
    }
    return EPOCH.plusMinutes(random.nextInt(TWO_YEARS_MINUTES)).plusSeconds(random.nextInt(60));
  }

  private static Post withId(Post p, long id) {
    return new Post(
        id,
        p.cluster(),
        p.kind(),
        p.title(),
        p.category(),
        p.product(),
        p.region(),
        p.price(),
        p.contact(),
        p.phone(),
        p.content(),
        p.regTime(),
        p.negativeOf());
  }
}
