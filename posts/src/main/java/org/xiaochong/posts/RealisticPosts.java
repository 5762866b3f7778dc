package org.xiaochong.posts;

import static org.xiaochong.posts.RealisticVocabulary.GRADES;
import static org.xiaochong.posts.RealisticVocabulary.PACKAGINGS;
import static org.xiaochong.posts.RealisticVocabulary.PLACES;
import static org.xiaochong.posts.RealisticVocabulary.PRICE_STEPS;
import static org.xiaochong.posts.RealisticVocabulary.PRODUCTS;
import static org.xiaochong.posts.RealisticVocabulary.QUALITIES;
import static org.xiaochong.posts.RealisticVocabulary.QUANTITIES;
import static org.xiaochong.posts.RealisticVocabulary.TEMPLATES;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import org.xiaochong.posts.RealisticVocabulary.Place;
import org.xiaochong.posts.RealisticVocabulary.Product;
import org.xiaochong.posts.RealisticVocabulary.Template;

/**
 * The realistic vocabulary of {@link PostGenerator}: a bounded vocabulary as real supply/demand
 * posts have, so that every key but a seller's phone is held by more posts as the table grows.
 *
 * <ul>
 *   <li>the words of {@link RealisticVocabulary}: 30 products with narrow price ranges, 12
 *       provinces with 5 cities each, 7 template sentences, short lists of quantities, grades,
 *       qualities and packagings;
 *   <li>sellers handed out in turn, each with 1 or 2 offers (originals), so a seller has about 1 to
 *       5 posts whatever the table size; the name (surname + title of address) is shared by many
 *       sellers, the phone is the seller's own.
 * </ul>
 *
 * <p>Hard negatives copy a recent offer (its product, template, grade, quality, packaging, extra
 * sentences) and change what makes it another offer: by another seller, the place ({@code PLACE}:
 * another city, half of the time in the same province), the quantity ({@code QUANTITY}: at least
 * twice or at most half of it) or the price ({@code PRICE}: at least 30 % apart); by the same
 * seller ({@code _SAME_SELLER}), the place, or the grade the text states with its price ({@code
 * GRADE}: another grade, a price at least 30 % apart); or, as in the legacy vocabulary, another
 * product by the same seller ({@code SELLER}) or the same offer by another seller ({@code
 * PRODUCT}). The same seller's post of the same offer at another price or with another lot is no
 * other offer but a repost (seed 002 compares posts by title, contact and phone): the variants
 * {@code NEAR_NEW_PRICE} and {@code NEAR_NEW_LOT} ({@link #newPrice}, {@link #newLot}) of the
 * original's cluster, beside the {@code NEAR_PRICE} variant that moves the price by one step (at
 * most 10 %). Not thread-safe.
 */
final class RealisticPosts {
  /** Share of clusters that are hard negatives of an earlier cluster (7 kinds, about 1 % each). */
  static final double HARD_NEGATIVE_SHARE = 0.07;

  /** A price hard negative is at least this factor above or below its model's price. */
  static final double PRICE_APART = 1.3;

  /** A quantity hard negative is at least this factor above or below its model's quantity. */
  static final int QUANTITY_APART = 2;

  /**
   * The grades the near keys hold: all of {@link RealisticVocabulary#GRADES} but 精品, a stop word of
   * the default list (config/stopwords-zh.txt), which to the near rule states no grade. A grade
   * hard negative states two of these, so that its text says it is another grade.
   */
  static final List<String> KEYED_GRADES =
      java.util.Arrays.stream(GRADES).filter(g -> !g.equals("精品")).toList();

  /** The realistic fields of an offer beside those of {@link Offer}. */
  record Shape(Product product, Place place, Template template, String packaging) {}

  /** The hard-negative kinds of this vocabulary, drawn with equal chance. */
  static final PostGenerator.Kind[] HARD_NEGATIVE_KINDS = {
    PostGenerator.Kind.HARD_NEGATIVE_SELLER,
    PostGenerator.Kind.HARD_NEGATIVE_PRODUCT,
    PostGenerator.Kind.HARD_NEGATIVE_PLACE,
    PostGenerator.Kind.HARD_NEGATIVE_PLACE_SAME_SELLER,
    PostGenerator.Kind.HARD_NEGATIVE_QUANTITY,
    PostGenerator.Kind.HARD_NEGATIVE_PRICE,
    PostGenerator.Kind.HARD_NEGATIVE_GRADE_SAME_SELLER
  };

  private final SplittableRandom random;
  private final PostGenerator generator;

  /**
   * (seller, supply, product, place, grade) of every offer so far: a seller never repeats one. Not
   * its price or quantity: the same seller's offer at another price or lot is a repost of it.
   */
  private final Set<Long> offers = new java.util.HashSet<>();

  private int nextSeller;
  private int currentSeller = -1;
  private int offersLeft;

  RealisticPosts(SplittableRandom random, PostGenerator generator) {
    this.random = random;
    this.generator = generator;
  }

  /** The next cluster's offer: a hard negative of a recent offer, or a new offer. */
  Offer next(long cluster, List<Offer> recent) {
    if (!recent.isEmpty() && random.nextDouble() < HARD_NEGATIVE_SHARE) {
      Offer model = recent.get(random.nextInt(recent.size()));
      PostGenerator.Kind kind = HARD_NEGATIVE_KINDS[random.nextInt(HARD_NEGATIVE_KINDS.length)];
      // Another grade is another offer only where the text states a grade the near keys hold: a
      // model whose template does not state it, or whose grade is a stop word, is drawn again.
      for (int attempt = 0;
          attempt < 20
              && kind == PostGenerator.Kind.HARD_NEGATIVE_GRADE_SAME_SELLER
              && !(showsGrade(model) && KEYED_GRADES.contains(model.grade()));
          attempt++) {
        model = recent.get(random.nextInt(recent.size()));
      }
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
    String grade = model.grade();
    boolean sameSeller =
        switch (kind) {
          case HARD_NEGATIVE_SELLER,
              HARD_NEGATIVE_PLACE_SAME_SELLER,
              HARD_NEGATIVE_GRADE_SAME_SELLER ->
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
      case HARD_NEGATIVE_QUANTITY -> quantity = otherQuantity(quantity);
      case HARD_NEGATIVE_PRICE -> price = otherPrice(product, price);
      case HARD_NEGATIVE_GRADE_SAME_SELLER -> {
        grade = otherGrade(grade);
        price = otherPrice(product, price);
      }
      case HARD_NEGATIVE_PRODUCT -> {}
      default -> throw new IllegalArgumentException("not a hard-negative kind: " + kind);
    }
    int seller = sameSeller ? model.seller() : nextSeller++;
    return new Offer(
        cluster,
        model.supply(),
        product.name(),
        place.region(),
        grade,
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

  /** Whether the offer's template states its grade (in its title or its main sentence). */
  private static boolean showsGrade(Offer offer) {
    Template template = offer.shape().template();
    return template.title().contains("{grade}")
        || template.otherTitle().contains("{grade}")
        || template.content().contains("{grade}");
  }

  /** Another grade of {@link #KEYED_GRADES}. */
  private String otherGrade(String not) {
    String g;
    do {
      g = KEYED_GRADES.get(random.nextInt(KEYED_GRADES.size()));
    } while (g.equals(not));
    return g;
  }

  /**
   * The price of the same seller's repost at a new price ({@code NEAR_NEW_PRICE}): as far from the
   * original's as a price hard negative, at least {@link #PRICE_APART} times above or below it.
   */
  int newPrice(Offer base) {
    return otherPrice(base.shape().product(), base.priceCents());
  }

  /**
   * The quantity of the same seller's repost with a new lot ({@code NEAR_NEW_LOT}): as far from the
   * original's as a quantity hard negative, at least {@link #QUANTITY_APART} times above or below.
   */
  long newLot(Offer base) {
    return otherQuantity(base.stock());
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
    return Objects.hash(b.seller(), b.supply(), b.product(), b.region(), b.grade())
        * 0x9E3779B97F4A7C15L;
  }
}
