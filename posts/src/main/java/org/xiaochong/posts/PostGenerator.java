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
 * dropped or reordered sentence, reformatted phone in the text, reworded title, one-character
 * typo). Some clusters are hard negatives of another: the same seller with another product, or the
 * same product from another seller, and in the realistic vocabulary the same product and template
 * from another place, with another quantity or another price, by another seller or the same one;
 * they are distinct clusters and must never be merged.
 *
 * <p>Two vocabularies ({@link Vocabulary}): the legacy one gives every original a stock quantity
 * unique to its cluster, so two clusters never collide by chance and every post keeps rare keys as
 * the table grows; the realistic one ({@link RealisticPosts}) draws everything but the seller's
 * phone from bounded lists, so a price, a quantity or a place is held by more posts as the table
 * grows, as in real posts.
 *
 * <p>Times: originals are spread over 2024-01-01 .. 2025-12-31; a variant is up to 30 days before
 * or after its original; 0.5% of the rows have a NULL time and some variants share their original's
 * time exactly (ties are broken by id). Not thread-safe.
 *
 * <p>Over 300 lines because every kind of variant is drawn from the one random stream in a fixed
 * order, which is what makes a seed reproduce the same posts; the text edits are short helpers
 * below the cluster logic.
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

  /** Share of clusters that are hard negatives of an earlier cluster. */
  static final double HARD_NEGATIVE_SHARE = 0.05;

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
     * A hard negative (realistic): the same product and template, another quantity, by the same
     * seller.
     */
    HARD_NEGATIVE_QUANTITY_SAME_SELLER(false, false),
    /**
     * A hard negative (realistic): the same product and template, another price, by another seller.
     */
    HARD_NEGATIVE_PRICE(false, false),
    /**
     * A hard negative (realistic): the same product and template, another price, by the same
     * seller.
     */
    HARD_NEGATIVE_PRICE_SAME_SELLER(false, false);

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

  private static final String[] PRODUCTS = {
    "红富士苹果", "砂糖橘", "赣南脐橙", "大白菜", "土豆", "西红柿", "黄瓜", "玉米", "大豆", "小麦", "花生", "红薯", "生姜", "大蒜",
    "洋葱", "猕猴桃", "巨峰葡萄", "麒麟西瓜", "香蕉", "草莓", "朝天椒", "茄子", "芹菜", "胡萝卜", "铁棍山药", "薄皮核桃", "板栗", "新疆红枣",
    "宁夏枸杞", "绿茶", "生猪", "肉牛", "土鸡蛋", "咸鸭蛋", "槐花蜂蜜", "干香菇", "黑木耳", "杂交水稻种子", "玉米种子", "复合肥", "黄花梨",
    "水蜜桃", "蓝莓", "冬枣", "莲藕", "白萝卜", "青花菜", "菠菜", "韭菜", "南瓜", "冬瓜", "芒果", "荔枝", "龙眼", "柚子", "柠檬",
    "百香果", "小龙虾", "草鱼", "羊肉"
  };
  private static final String[] REGIONS = {
    "山东烟台", "山东寿光", "陕西洛川", "江西赣州", "广西南宁", "河北石家庄", "河南郑州", "安徽合肥", "云南昆明", "四川成都", "新疆阿克苏",
    "甘肃天水", "湖北宜昌", "湖南长沙", "辽宁大连", "黑龙江哈尔滨", "吉林长春", "内蒙古赤峰", "福建漳州", "浙江杭州", "江苏徐州", "广东湛江",
    "海南三亚", "贵州遵义", "山西运城", "宁夏中卫", "青海西宁", "重庆万州", "天津蓟州", "北京大兴"
  };
  private static final String[] SURNAMES = {
    "王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴", "徐", "孙", "胡", "朱", "高", "林", "何", "郭", "马",
    "罗", "梁", "宋", "郑", "谢", "韩", "唐", "冯", "于", "董", "萧"
  };
  private static final String[] TITLES_OF_ADDRESS = {"先生", "女士", "经理", "老板", "师傅"};
  private static final String[] GRADES = {"一级", "特级", "精品", "统货", "优等", "二级"};
  private static final String[] QUALITIES = {
    "个大皮薄", "色泽鲜艳", "口感好", "无农药残留", "新鲜采摘", "品质保证", "耐储存", "适合长途运输", "绿色无公害", "自家种植"
  };
  private static final String[] EXTRA_SENTENCES = {
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
  private static final String[] MOBILE_PREFIXES = {
    "138", "139", "137", "136", "135", "150", "151", "158", "159", "186", "187", "188", "189",
    "133", "153", "177", "180", "181"
  };
  private static final String[] UNITS = {"斤", "公斤", "吨", "箱"};
  private static final LocalDateTime EPOCH = LocalDateTime.of(2024, 1, 1, 0, 0);
  private static final int TWO_YEARS_MINUTES = 2 * 365 * 24 * 60;

  private final SplittableRandom random;
  private final int sellers;
  private final double exactShare;

  /** The realistic vocabulary's offers and sellers; null for the legacy vocabulary. */
  private final RealisticPosts realistic;

  private final Kind[] exactKinds = {
    Kind.EXACT_REPOST,
    Kind.EXACT_WHITESPACE,
    Kind.EXACT_FULLWIDTH,
    Kind.EXACT_PUNCTUATION,
    Kind.EXACT_PHONE_FORMAT
  };
  private final Kind[] nearKinds = {
    Kind.NEAR_PRICE,
    Kind.NEAR_ADDED_SENTENCE,
    Kind.NEAR_DROPPED_SENTENCE,
    Kind.NEAR_REORDERED,
    Kind.NEAR_PHONE_IN_TEXT,
    Kind.NEAR_TITLE,
    Kind.NEAR_TYPO
  };

  /** The offers (seller, product, region, price …) of every original so far, as 64-bit hashes. */
  private final java.util.Set<Long> offers = new java.util.HashSet<>();

  private long nextId = 1;
  private long nextCluster = 1;

  /**
   * Posts of one original: its fields, before formatting; {@code kind} is the original's (ORIGINAL
   * or a hard negative of cluster {@code negativeOf}), {@code shape} the realistic vocabulary's
   * fields (null in the legacy one), {@code stock} the quantity.
   */
  record Base(
      long cluster,
      boolean supply,
      String product,
      String region,
      String grade,
      String quality,
      int priceCents,
      String unit,
      long stock,
      int seller,
      List<String> extras,
      LocalDateTime time,
      Kind kind,
      long negativeOf,
      RealisticPosts.Shape shape) {
    Base withPrice(int cents, LocalDateTime time) {
      return new Base(
          cluster,
          supply,
          product,
          region,
          grade,
          quality,
          cents,
          unit,
          stock,
          seller,
          extras,
          time,
          kind,
          negativeOf,
          shape);
    }

    Base withExtras(List<String> extras) {
      return new Base(
          cluster,
          supply,
          product,
          region,
          grade,
          quality,
          priceCents,
          unit,
          stock,
          seller,
          extras,
          time,
          kind,
          negativeOf,
          shape);
    }
  }

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
    this.sellers = (int) Math.max(50, expectedRecords / 6);
    this.exactShare = exactShare;
    this.realistic = vocabulary == Vocabulary.REALISTIC ? new RealisticPosts(random, this) : null;
  }

  /**
   * Generates at least {@code records} posts (a cluster is never cut), in blocks shuffled by id.
   */
  public void generate(long records, Consumer<Post> sink) {
    List<Post> block = new ArrayList<>();
    List<Base> recentBases = new ArrayList<>();
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

  private List<Post> nextCluster(List<Base> recentBases) {
    long cluster = nextCluster++;
    Base base =
        realistic != null ? realistic.next(cluster, recentBases) : legacyBase(cluster, recentBases);
    if (recentBases.size() < 1000) {
      recentBases.add(base);
    } else {
      recentBases.set(random.nextInt(recentBases.size()), base);
    }
    List<Post> posts = new ArrayList<>();
    posts.add(render(base, base.kind(), base.time()));
    if (random.nextDouble() < DUPLICATE_SHARE) {
      int variants = 1 + random.nextInt(3);
      List<Kind> kinds = new ArrayList<>();
      // Exact or near with the given share, then a kind of that family not used yet in this cluster
      // (drawing a kind and retrying on a repeat would favour the larger near family).
      while (kinds.size() < variants) {
        Kind[] family = random.nextDouble() < exactShare ? exactKinds : nearKinds;
        Kind kind = family[random.nextInt(family.length)];
        while (kinds.contains(kind)) {
          kind = family[random.nextInt(family.length)];
        }
        kinds.add(kind);
      }
      for (Kind kind : kinds) {
        posts.add(variant(base, kind));
      }
    }
    return posts;
  }

  /** The legacy vocabulary's next offer: a hard negative of a recent one, or a new one. */
  private Base legacyBase(long cluster, List<Base> recentBases) {
    Base base;
    Base hardNegative = null;
    if (!recentBases.isEmpty() && random.nextDouble() < HARD_NEGATIVE_SHARE) {
      Base other = recentBases.get(random.nextInt(recentBases.size()));
      // Two hard negatives of one original (or a chain of them) must not land on the same offer, or
      // they would be true duplicates labelled as different clusters.
      for (int attempt = 0; attempt < 20 && hardNegative == null; attempt++) {
        boolean otherProduct = random.nextBoolean();
        String product = otherProduct ? pickOther(PRODUCTS, other.product()) : other.product();
        int seller =
            otherProduct
                ? other.seller()
                : (other.seller() + 1 + random.nextInt(sellers - 1)) % sellers;
        Kind kind = otherProduct ? Kind.HARD_NEGATIVE_SELLER : Kind.HARD_NEGATIVE_PRODUCT;
        Base candidate =
            new Base(
                cluster,
                other.supply(),
                product,
                other.region(),
                other.grade(),
                other.quality(),
                other.priceCents(),
                other.unit(),
                uniqueStock(cluster),
                seller,
                other.extras(),
                randomTime(),
                kind,
                other.cluster(),
                null);
        if (offers.add(offerOf(candidate))) {
          hardNegative = candidate;
        }
      }
    }
    if (hardNegative != null) {
      base = hardNegative;
    } else {
      List<String> extras = randomExtras();
      base =
          new Base(
              cluster,
              random.nextDouble() < 0.7,
              PRODUCTS[random.nextInt(PRODUCTS.length)],
              REGIONS[random.nextInt(REGIONS.length)],
              GRADES[random.nextInt(GRADES.length)],
              QUALITIES[random.nextInt(QUALITIES.length)],
              50 + random.nextInt(3000),
              UNITS[random.nextInt(UNITS.length)],
              uniqueStock(cluster),
              random.nextInt(sellers),
              extras,
              randomTime(),
              Kind.ORIGINAL,
              0,
              null);
    }
    offers.add(offerOf(base));
    return base;
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

  private static long offerOf(Base b) {
    return java.util.Objects.hash(
            b.supply(),
            b.product(),
            b.region(),
            b.grade(),
            b.quality(),
            b.priceCents(),
            b.unit(),
            b.seller(),
            b.extras())
        * 0x9E3779B97F4A7C15L;
  }

  private long uniqueStock(long cluster) {
    return 100 + cluster * 10 + random.nextInt(10);
  }

  LocalDateTime randomTime() {
    if (random.nextDouble() < 0.005) {
      return null;
    }
    return EPOCH.plusMinutes(random.nextInt(TWO_YEARS_MINUTES)).plusSeconds(random.nextInt(60));
  }

  private Post variant(Base base, Kind kind) {
    LocalDateTime time;
    double r = random.nextDouble();
    if (base.time() == null || r < 0.05) {
      time = base.time() == null ? randomTime() : base.time(); // exact tie
    } else {
      time = base.time().plusMinutes(random.nextInt(60 * 24 * 60) - 60 * 24 * 30);
    }
    Post original = render(base, kind, time);
    return switch (kind) {
      case EXACT_REPOST -> original;
      case EXACT_WHITESPACE ->
          copy(
              original,
              spaced(original.title()),
              original.product() + " ",
              spaced(original.content()),
              original.phone());
      case EXACT_FULLWIDTH ->
          copy(
              original,
              fullWidth(original.title()),
              original.product(),
              fullWidth(original.content()),
              fullWidth(original.phone()));
      case EXACT_PUNCTUATION ->
          copy(
              original,
              original.title(),
              original.product(),
              swapPunctuation(original.content()),
              original.phone());
      case EXACT_PHONE_FORMAT ->
          copy(
              original,
              original.title(),
              original.product(),
              original.content(),
              dashed(original.phone()));
      case NEAR_PRICE -> {
        if (realistic != null) {
          yield render(base.withPrice(realistic.revisedPrice(base), time), kind, time);
        }
        int cents = base.priceCents() + (random.nextBoolean() ? 1 : -1) * (10 + random.nextInt(40));
        Base changed =
            base.withPrice(Math.max(10, cents == base.priceCents() ? cents + 7 : cents), time);
        yield render(changed, kind, time);
      }
      case NEAR_ADDED_SENTENCE -> {
        List<String> extras = new ArrayList<>(base.extras());
        extras.add(pickNotIn(EXTRA_SENTENCES, extras));
        yield render(base.withExtras(extras), kind, time);
      }
      case NEAR_DROPPED_SENTENCE -> {
        List<String> extras = new ArrayList<>(base.extras());
        if (extras.isEmpty()) {
          yield copy(
              original,
              original.title(),
              original.product(),
              original.content().replace(base.quality() + "，", ""),
              original.phone());
        }
        extras.remove(random.nextInt(extras.size()));
        yield render(base.withExtras(extras), kind, time);
      }
      case NEAR_REORDERED ->
          copy(
              original,
              original.title(),
              original.product(),
              reorder(original.content()),
              original.phone());
      case NEAR_PHONE_IN_TEXT ->
          copy(
              original,
              original.title(),
              original.product(),
              original.content().replace(original.phone(), dashed(original.phone())),
              original.phone());
      case NEAR_TITLE ->
          realistic != null
              ? render(base, kind, time, true)
              : copy(
                  original,
                  rewordTitle(original.title()),
                  original.product(),
                  original.content(),
                  original.phone());
      case NEAR_TYPO ->
          copy(
              original,
              original.title(),
              original.product(),
              typo(original.content()),
              original.phone());
      default -> throw new IllegalStateException("not a variant kind: " + kind);
    };
  }

  private Post render(Base base, Kind kind, LocalDateTime time) {
    return render(base, kind, time, false);
  }

  /** The post of an offer ({@code otherTitle}: the realistic template's second title form). */
  private Post render(Base base, Kind kind, LocalDateTime time, boolean otherTitle) {
    String contact =
        SURNAMES[base.seller() % SURNAMES.length]
            + TITLES_OF_ADDRESS[(base.seller() / SURNAMES.length) % TITLES_OF_ADDRESS.length];
    String phone = phoneOf(base.seller());
    String price = priceText(base);
    String category = base.supply() ? "供应" : "求购";
    String title;
    StringBuilder content = new StringBuilder();
    if (base.shape() != null) {
      String[] titleAndSentence = RealisticPosts.render(base, otherTitle);
      title = titleAndSentence[0];
      content.append(titleAndSentence[1]);
    } else if (base.supply()) {
      title = "供应" + base.region() + base.grade() + base.product();
      content
          .append("本人有")
          .append(base.product())
          .append("约")
          .append(base.stock())
          .append(base.unit())
          .append("，产地")
          .append(base.region())
          .append("，")
          .append(base.quality())
          .append("，价格")
          .append(price)
          .append("。");
    } else {
      title = "求购" + base.product() + base.stock() + base.unit();
      content
          .append("长期大量求购")
          .append(base.grade())
          .append(base.product())
          .append("，需求约")
          .append(base.stock())
          .append(base.unit())
          .append("，要求")
          .append(base.quality())
          .append("，收购价")
          .append(price)
          .append("，")
          .append(base.region())
          .append("及周边优先。");
    }
    for (String extra : base.extras()) {
      content.append(extra);
    }
    content.append("联系人：").append(contact).append("，电话：").append(phone).append("。");
    return new Post(
        0,
        base.cluster(),
        kind,
        title,
        category,
        base.product(),
        base.region(),
        price,
        contact,
        phone,
        content.toString(),
        time,
        base.negativeOf());
  }

  /** The price as posted, e.g. {@code 2.50元/斤}. */
  static String priceText(Base base) {
    return String.format(
        "%d.%02d元/%s", base.priceCents() / 100, base.priceCents() % 100, base.unit());
  }

  private String phoneOf(int seller) {
    // 7919 is prime, so seller * 7919 mod 10^8 is a bijection: every seller has its own number.
    long local = (seller * 7919L) % 100_000_000L;
    return MOBILE_PREFIXES[seller % MOBILE_PREFIXES.length] + String.format("%08d", local);
  }

  private static Post copy(Post p, String title, String product, String content, String phone) {
    return new Post(
        p.id(),
        p.cluster(),
        p.kind(),
        title,
        p.category(),
        product,
        p.region(),
        p.price(),
        p.contact(),
        phone,
        content,
        p.regTime(),
        p.negativeOf());
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

  /**
   * Inserts spaces next to Chinese characters only (where normalization drops them), plus a
   * newline.
   */
  private String spaced(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c);
      boolean cjk = c >= 0x4E00 && c <= 0x9FFF;
      boolean nextCjk =
          i + 1 < text.length() && text.charAt(i + 1) >= 0x4E00 && text.charAt(i + 1) <= 0x9FFF;
      if ((cjk || nextCjk) && random.nextInt(6) == 0) {
        out.append(random.nextBoolean() ? " " : "\u3000");
      }
    }
    return "  " + out + "\n";
  }

  private static String fullWidth(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c > 0x20 && c < 0x7F ? (char) (c - 0x21 + 0xFF01) : c);
    }
    return out.toString();
  }

  private static String swapPunctuation(String text) {
    return text.replace('，', ',').replace('：', ':').replace("。", ".");
  }

  private String dashed(String phone) {
    return switch (random.nextInt(3)) {
      case 0 -> phone.substring(0, 3) + "-" + phone.substring(3, 7) + "-" + phone.substring(7);
      case 1 -> "+86 " + phone;
      default -> phone.substring(0, 3) + " " + phone.substring(3, 7) + " " + phone.substring(7);
    };
  }

  private String reorder(String content) {
    List<String> sentences = new ArrayList<>();
    for (String s : content.split("(?<=。)")) {
      if (!s.isEmpty()) {
        sentences.add(s);
      }
    }
    if (sentences.size() < 2) {
      return content + "欢迎来电。";
    }
    String first = sentences.remove(0);
    sentences.add(first);
    return String.join("", sentences);
  }

  private String rewordTitle(String title) {
    if (title.startsWith("供应")) {
      return (random.nextBoolean() ? "出售" : "大量供应") + title.substring(2);
    }
    return "收购" + title.substring(2);
  }

  private String typo(String content) {
    // Replace one Chinese character of the quality phrase area with a look-alike or homophone.
    String[][] swaps = {
      {"约", "越"},
      {"产地", "产的"},
      {"价格", "价各"},
      {"联系人", "连系人"},
      {"电话", "电活"},
      {"需求", "须求"},
      {"收购价", "收购家"}
    };
    for (int attempt = 0; attempt < swaps.length; attempt++) {
      String[] swap = swaps[random.nextInt(swaps.length)];
      if (content.contains(swap[0])) {
        return content.replaceFirst(swap[0], swap[1]);
      }
    }
    return content + "。";
  }

  private String pickOther(String[] values, String not) {
    String v;
    do {
      v = values[random.nextInt(values.length)];
    } while (v.equals(not));
    return v;
  }

  private String pickNotIn(String[] values, List<String> not) {
    for (int attempt = 0; attempt < 50; attempt++) {
      String v = values[random.nextInt(values.length)];
      if (!not.contains(v)) {
        return v;
      }
    }
    return "另有其他规格可选。";
  }
}
