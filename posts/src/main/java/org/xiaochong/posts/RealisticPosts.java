package org.xiaochong.posts;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The realistic vocabulary of {@link PostGenerator}: a bounded vocabulary as real supply/demand
 * posts have, so that every key but a seller's phone is held by more posts as the table grows.
 *
 * <ul>
 *   <li>30 products, each with its price unit, a narrow price range ({@value #PRICE_STEPS} steps of
 *       at most 10 % of its lowest price) and its quantity unit;
 *   <li>12 provinces with 5 cities (counties) each; a post's region is province + city;
 *   <li>7 template sentences (4 supply, 3 demand), each with a second title form;
 *   <li>quantities from {@link #QUANTITIES}, grades, qualities and packagings from short lists;
 *   <li>sellers handed out in turn, each with 1 or 2 offers (originals), so a seller has about 1 to
 *       5 posts whatever the table size; the name (surname + title of address) is shared by many
 *       sellers, the phone is the seller's own.
 * </ul>
 *
 * <p>Hard negatives copy a recent offer (its product, template, grade, quality, packaging, extra
 * sentences) and change one thing that makes it another offer: the place ({@code PLACE}: another
 * city, half of the time in the same province), the quantity ({@code QUANTITY}: at least twice or
 * at most half of it) or the price ({@code PRICE}: at least 30 % apart), each by another seller or
 * by the same one ({@code _SAME_SELLER}); or, as in the legacy vocabulary, another product by the
 * same seller ({@code SELLER}) or the same offer by another seller ({@code PRODUCT}). The line
 * between a revision of an offer and another offer is the truth's: a near variant changes the price
 * by one step (at most 10 %) and never the quantity or the place. Not thread-safe.
 */
final class RealisticPosts {
  /** Price steps of a product's range: the range spans at least 1.75 times its lowest price. */
  static final int PRICE_STEPS = 16;

  /** Share of clusters that are hard negatives of an earlier cluster (8 kinds, about 1 % each). */
  static final double HARD_NEGATIVE_SHARE = 0.08;

  /** A price hard negative is at least this factor above or below its model's price. */
  static final double PRICE_APART = 1.3;

  /** A quantity hard negative is at least this factor above or below its model's quantity. */
  static final int QUANTITY_APART = 2;

  /**
   * A product: its name, the unit of its price, its lowest price and price step, its quantity unit.
   */
  record Product(String name, String priceUnit, int lowCents, int stepCents, String quantityUnit) {}

  /** A city (county) of a province. */
  record Place(String province, String city) {
    String region() {
      return province + city;
    }
  }

  /**
   * A template: supply or demand, two title forms and the main sentence, with the slots {@code {p}}
   * product, {@code {prov}} province, {@code {city}}, {@code {q}} quantity with unit, {@code
   * {price}}, {@code {grade}}, {@code {quality}} (always followed by "，", which a dropped-sentence
   * variant removes with it) and {@code {pack}} packaging.
   */
  record Template(boolean supply, String title, String otherTitle, String content) {}

  /** The realistic fields of an offer beside those of {@link Offer}. */
  record Shape(Product product, Place place, Template template, String packaging) {}

  /**
   * Round price steps in cents: a product's step is the first of these at least 5 % of its lowest
   * price.
   */
  private static final int[] ROUND_STEPS = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500};

  static final Product[] PRODUCTS = {
    product("葡萄", 250),
    product("苹果", 220),
    product("猕猴桃", 300),
    product("脐橙", 260),
    product("砂糖橘", 180),
    product("酥梨", 150),
    product("水蜜桃", 280),
    product("西瓜", 90),
    product("大白菜", 40),
    product("土豆", 70),
    product("西红柿", 160),
    product("黄瓜", 130),
    product("大蒜", 350),
    product("生姜", 400),
    product("洋葱", 80),
    product("辣椒", 450),
    product("玉米", 110),
    product("小麦", 120),
    product("大豆", 260),
    product("花生", 420),
    product("红薯", 100),
    product("核桃", 1200),
    product("红枣", 900),
    product("板栗", 700),
    product("枸杞", 3000),
    product("香菇", 1500),
    new Product("生猪", "斤", 750, 50, "头"),
    new Product("肉牛", "斤", 1600, 100, "头"),
    new Product("鸡蛋", "斤", 420, 20, "箱"),
    new Product("蜂蜜", "斤", 2500, 200, "桶")
  };

  static final Place[] PLACES =
      places(
          "河南", "灵宝", "新郑", "中牟", "西峡", "洛宁", "河北", "围场", "昌黎", "赵县", "深州", "饶阳", "山东", "烟台", "寿光",
          "金乡", "莱阳", "沂水", "陕西", "洛川", "周至", "眉县", "延川", "富平", "新疆", "阿克苏", "吐鲁番", "库尔勒", "哈密",
          "和田", "云南", "昆明", "宾川", "元谋", "建水", "蒙自", "广西", "南宁", "百色", "武鸣", "融安", "荔浦", "江西", "赣州",
          "南丰", "寻乌", "信丰", "安远", "四川", "成都", "蒲江", "攀枝花", "会理", "汉源", "湖北", "宜昌", "秭归", "潜江", "随州",
          "恩施", "甘肃", "天水", "静宁", "定西", "庆阳", "民勤", "黑龙江", "哈尔滨", "五常", "绥化", "齐齐哈尔", "佳木斯");

  static final Template[] TEMPLATES = {
    new Template(
        true, "供应{city}{p}", "出售{city}{p}", "本人有{prov}{city}{p}{q}，{quality}，{pack}，价格{price}。"),
    new Template(
        true,
        "出售{grade}{p}",
        "大量出售{grade}{p}",
        "{city}{p}大量上市，现货{q}，{grade}，{quality}，{pack}，{price}，产地{prov}{city}。"),
    new Template(
        true,
        "{prov}{city}{p}大量供应",
        "{prov}{city}{p}产地直销",
        "产地直供{p}，产地{prov}{city}，货源约{q}，{quality}，{pack}，价格{price}。"),
    new Template(
        true,
        "{p}{q}出售",
        "{p}{q}低价出售",
        "自家种植{p}约{q}，位于{prov}{city}，{grade}，{quality}，{pack}，售价{price}。"),
    new Template(
        false,
        "求购{p}{q}",
        "收购{p}{q}",
        "长期大量求购{grade}{p}，需求约{q}，要求{quality}，{pack}，收购价{price}，{prov}{city}及周边优先。"),
    new Template(
        false, "收购{p}", "高价收购{p}", "本公司常年收购{p}，每次{q}，{quality}，{pack}，价格{price}，{prov}{city}上门收货。"),
    new Template(
        false,
        "急需{grade}{p}",
        "急求{grade}{p}",
        "急需{p}{q}，{quality}，可接受{pack}，价格{price}左右，送货到{prov}{city}。")
  };

  static final int[] QUANTITIES = {1, 2, 3, 5, 8, 10, 15, 20, 30, 50, 80, 100, 200, 300, 500};
  static final String[] PACKAGINGS = {"按客户要求包装", "散装", "纸箱包装", "网袋包装", "泡沫箱包装", "编织袋包装"};
  static final String[] GRADES = {"一级", "特级", "精品", "统货", "优等", "二级"};
  static final String[] QUALITIES = {
    "个大皮薄", "色泽鲜艳", "口感好", "无农药残留", "新鲜采摘", "品质保证", "耐储存", "适合长途运输", "绿色无公害", "货源充足"
  };

  /** The hard-negative kinds of this vocabulary, drawn with equal chance. */
  static final PostGenerator.Kind[] HARD_NEGATIVE_KINDS = {
    PostGenerator.Kind.HARD_NEGATIVE_SELLER, PostGenerator.Kind.HARD_NEGATIVE_PRODUCT,
    PostGenerator.Kind.HARD_NEGATIVE_PLACE, PostGenerator.Kind.HARD_NEGATIVE_PLACE_SAME_SELLER,
    PostGenerator.Kind.HARD_NEGATIVE_QUANTITY,
        PostGenerator.Kind.HARD_NEGATIVE_QUANTITY_SAME_SELLER,
    PostGenerator.Kind.HARD_NEGATIVE_PRICE, PostGenerator.Kind.HARD_NEGATIVE_PRICE_SAME_SELLER
  };

  private final SplittableRandom random;
  private final PostGenerator generator;

  /**
   * (seller, supply, product, place, quantity, price) of every offer so far: a seller never repeats
   * one.
   */
  private final Set<Long> offers = new java.util.HashSet<>();

  private int nextSeller;
  private int currentSeller = -1;
  private int offersLeft;

  RealisticPosts(SplittableRandom random, PostGenerator generator) {
    this.random = random;
    this.generator = generator;
  }

  /**
   * A produce: priced per 斤, sold by the 吨, its step the round step of 5 to 10 % of its lowest
   * price.
   */
  private static Product product(String name, int lowCents) {
    int step = 0;
    while (ROUND_STEPS[step] * 20 < lowCents) {
      step++;
    }
    return new Product(name, "斤", lowCents, ROUND_STEPS[step], "吨");
  }

  private static Place[] places(String... provincesAndCities) {
    List<Place> places = new ArrayList<>();
    for (int i = 0; i < provincesAndCities.length; i += 6) {
      for (int c = 1; c <= 5; c++) {
        places.add(new Place(provincesAndCities[i], provincesAndCities[i + c]));
      }
    }
    return places.toArray(new Place[0]);
  }

  /** The next cluster's offer: a hard negative of a recent offer, or a new offer. */
  Offer next(long cluster, List<Offer> recent) {
    if (!recent.isEmpty() && random.nextDouble() < HARD_NEGATIVE_SHARE) {
      Offer model = recent.get(random.nextInt(recent.size()));
      PostGenerator.Kind kind = HARD_NEGATIVE_KINDS[random.nextInt(HARD_NEGATIVE_KINDS.length)];
      // A chain of hard negatives of one model could land on an offer of the same seller again:
      // redraw until it is another offer.
      for (int attempt = 0; attempt < 20; attempt++) {
        Offer candidate = hardNegative(cluster, model, kind);
        if (offers.add(offerKey(candidate))) {
          return candidate;
        }
      }
    }
    while (true) {
      Offer base = original(cluster);
      if (offers.add(offerKey(base))) {
        return base;
      }
    }
  }

  private Offer original(long cluster) {
    boolean supply = random.nextDouble() < 0.7;
    int supplyTemplates = 4;
    Template template =
        supply
            ? TEMPLATES[random.nextInt(supplyTemplates)]
            : TEMPLATES[supplyTemplates + random.nextInt(TEMPLATES.length - supplyTemplates)];
    Product product = PRODUCTS[random.nextInt(PRODUCTS.length)];
    Place place = PLACES[random.nextInt(PLACES.length)];
    String grade = GRADES[random.nextInt(GRADES.length)];
    String quality = QUALITIES[random.nextInt(QUALITIES.length)];
    String packaging = PACKAGINGS[random.nextInt(PACKAGINGS.length)];
    int price = product.lowCents() + product.stepCents() * random.nextInt(PRICE_STEPS);
    int quantity = QUANTITIES[random.nextInt(QUANTITIES.length)];
    List<String> extras = generator.randomExtras();
    return new Offer(
        cluster,
        supply,
        product.name(),
        place.region(),
        grade,
        quality,
        price,
        product.priceUnit(),
        quantity,
        seller(),
        extras,
        generator.randomTime(),
        PostGenerator.Kind.ORIGINAL,
        0,
        new Shape(product, place, template, packaging));
  }

  private Offer hardNegative(long cluster, Offer model, PostGenerator.Kind kind) {
    Shape shape = model.shape();
    Product product = shape.product();
    Place place = shape.place();
    int price = model.priceCents();
    long quantity = model.stock();
    boolean sameSeller =
        switch (kind) {
          case HARD_NEGATIVE_SELLER,
                  HARD_NEGATIVE_PLACE_SAME_SELLER,
                  HARD_NEGATIVE_QUANTITY_SAME_SELLER,
                  HARD_NEGATIVE_PRICE_SAME_SELLER ->
              true;
          default -> false;
        };
    switch (kind) {
      case HARD_NEGATIVE_SELLER -> {
        product = otherProduct(product);
        price =
            product.lowCents()
                + product.stepCents()
                    * ((model.priceCents() - shape.product().lowCents())
                        / shape.product().stepCents());
      }
      case HARD_NEGATIVE_PLACE, HARD_NEGATIVE_PLACE_SAME_SELLER -> place = otherPlace(place);
      case HARD_NEGATIVE_QUANTITY, HARD_NEGATIVE_QUANTITY_SAME_SELLER ->
          quantity = otherQuantity(quantity);
      case HARD_NEGATIVE_PRICE, HARD_NEGATIVE_PRICE_SAME_SELLER ->
          price = otherPrice(product, price);
      case HARD_NEGATIVE_PRODUCT -> {}
      default -> throw new IllegalArgumentException("not a hard-negative kind: " + kind);
    }
    int seller = sameSeller ? model.seller() : nextSeller++;
    return new Offer(
        cluster,
        model.supply(),
        product.name(),
        place.region(),
        model.grade(),
        model.quality(),
        price,
        product.priceUnit(),
        quantity,
        seller,
        model.extras(),
        generator.randomTime(),
        kind,
        model.cluster(),
        new Shape(product, place, shape.template(), shape.packaging()));
  }

  /**
   * The seller of a new offer: the current seller until its 1 or 2 offers are used, then a new one.
   */
  private int seller() {
    if (offersLeft == 0) {
      currentSeller = nextSeller++;
      offersLeft = 1 + random.nextInt(2);
    }
    offersLeft--;
    return currentSeller;
  }

  private Product otherProduct(Product not) {
    Product p;
    do {
      p = PRODUCTS[random.nextInt(PRODUCTS.length)];
    } while (p == not);
    return p;
  }

  /** Another city: half of the time in the same province, else in another province. */
  private Place otherPlace(Place not) {
    boolean sameProvince = random.nextBoolean();
    Place p;
    do {
      p = PLACES[random.nextInt(PLACES.length)];
    } while (p == not || p.province().equals(not.province()) != sameProvince);
    return p;
  }

  /**
   * A quantity of the list at least {@link #QUANTITY_APART} times above or below {@code quantity}.
   */
  private long otherQuantity(long quantity) {
    List<Integer> apart = new ArrayList<>();
    for (int q : QUANTITIES) {
      if (q >= quantity * QUANTITY_APART || q * QUANTITY_APART <= quantity) {
        apart.add(q);
      }
    }
    return apart.get(random.nextInt(apart.size()));
  }

  /**
   * A price of the product's range at least {@link #PRICE_APART} times above or below {@code
   * cents}; one exists for every price of the range since the range spans at least 1.75 > 1.3²
   * times its low.
   */
  private int otherPrice(Product product, int cents) {
    List<Integer> apart = new ArrayList<>();
    for (int k = 0; k < PRICE_STEPS; k++) {
      int p = product.lowCents() + k * product.stepCents();
      if (p >= cents * PRICE_APART || p * PRICE_APART <= cents) {
        apart.add(p);
      }
    }
    return apart.get(random.nextInt(apart.size()));
  }

  /**
   * A price revision of a near variant: one step up or down, staying in the range (at most 10 % of
   * the lowest price, so never as far apart as a price hard negative).
   */
  int revisedPrice(Offer base) {
    Product product = base.shape().product();
    int up = base.priceCents() + product.stepCents();
    int down = base.priceCents() - product.stepCents();
    boolean goUp = random.nextBoolean();
    if (down < product.lowCents()) {
      goUp = true;
    } else if (up > product.lowCents() + (PRICE_STEPS - 1) * product.stepCents()) {
      goUp = false;
    }
    return goUp ? up : down;
  }

  /** Title and main sentence of an offer ({@code otherTitle}: the template's second title form). */
  static String[] render(Offer base, boolean otherTitle) {
    Shape shape = base.shape();
    Template template = shape.template();
    String title = fill(otherTitle ? template.otherTitle() : template.title(), base, shape);
    return new String[] {title, fill(template.content(), base, shape)};
  }

  private static String fill(String text, Offer base, Shape shape) {
    return text.replace("{p}", base.product())
        .replace("{prov}", shape.place().province())
        .replace("{city}", shape.place().city())
        .replace("{q}", base.stock() + shape.product().quantityUnit())
        .replace("{price}", PostRenderer.priceText(base))
        .replace("{grade}", base.grade())
        .replace("{quality}", base.quality())
        .replace("{pack}", shape.packaging());
  }

  private static long offerKey(Offer b) {
    return Objects.hash(b.seller(), b.supply(), b.product(), b.region(), b.stock(), b.priceCents())
        * 0x9E3779B97F4A7C15L;
  }
}
