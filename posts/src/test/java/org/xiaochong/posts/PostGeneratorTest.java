package org.xiaochong.posts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.xiaochong.posts.PostGenerator.Kind;
import org.xiaochong.posts.PostGenerator.Post;
import org.xiaochong.posts.PostGenerator.Vocabulary;

class PostGeneratorTest {
  private static final Pattern QUANTITY = Pattern.compile("(\\d+)(吨|头|箱|桶)");
  private static final Pattern PRICE = Pattern.compile("(\\d+\\.\\d\\d)元");

  private static List<Post> realistic(long seed, int records) {
    List<Post> posts = new ArrayList<>();
    new PostGenerator(seed, records, 0.6, Vocabulary.REALISTIC).generate(records, posts::add);
    return posts;
  }

  /**
   * The seller of a post: its phone's digits without the country code (the phone-format variants
   * change the rest).
   */
  private static String seller(Post post) {
    String digits = ascii(post.phone()).replaceAll("[^0-9]", "");
    return digits.substring(digits.length() - 11);
  }

  /**
   * Full-width digits and dot as ASCII, white space dropped (as the exact variants' formatting).
   */
  private static String ascii(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
        continue;
      }
      out.append(c >= '０' && c <= '９' ? (char) (c - '０' + '0') : c == '．' ? '.' : c);
    }
    return out.toString();
  }

  /** The grade the post's title or main sentence states. */
  private static String grade(Post post) {
    for (String grade : RealisticVocabulary.GRADES) {
      if (post.title().contains(grade) || post.content().contains(grade)) {
        return grade;
      }
    }
    throw new AssertionError("no grade in " + post.title() + " " + post.content());
  }

  private static long quantity(Post post) {
    Matcher m = QUANTITY.matcher(ascii(post.content()));
    assertThat(m.find()).as("quantity in %s", post.content()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static double price(Post post) {
    Matcher m = PRICE.matcher(ascii(post.price()));
    assertThat(m.find()).as("price %s", post.price()).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static Map<String, Integer> counts(
      List<Post> posts, java.util.function.Function<Post, String> key) {
    Map<String, Integer> counts = new HashMap<>();
    posts.forEach(p -> counts.merge(key.apply(p), 1, Integer::sum));
    return counts;
  }

  @Test
  void generate_realistic100k_vocabularyIsBoundedAndAPriceIsSharedByManyPosts() {
    List<Post> small = realistic(11, 20_000);
    List<Post> posts = realistic(11, 100_000);

    assertThat(counts(posts, p -> p.product().strip())).hasSizeLessThanOrEqualTo(30);
    assertThat(counts(posts, Post::region)).hasSizeLessThanOrEqualTo(60);
    Set<String> provinces = new HashSet<>();
    for (RealisticVocabulary.Place place : RealisticVocabulary.PLACES) {
      provinces.add(place.province());
    }
    assertThat(provinces).hasSize(12);
    Map<String, Integer> prices = counts(posts, Post::price);
    assertThat(prices).hasSizeLessThanOrEqualTo(30 * RealisticVocabulary.PRICE_STEPS);
    int topPrice = prices.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int topPriceSmall =
        counts(small, Post::price).values().stream()
            .mapToInt(Integer::intValue)
            .max()
            .orElseThrow();
    assertThat(topPrice).as("posts of the most common price string at 100k").isGreaterThan(500);
    assertThat(topPrice).as("it grows with the table").isGreaterThan(3 * topPriceSmall);
    Map<String, Integer> quantities =
        counts(posts, p -> p.content().contains("联系人") ? String.valueOf(quantity(p)) : "");
    assertThat(quantities).hasSizeLessThanOrEqualTo(RealisticVocabulary.QUANTITIES.length + 1);
    Map<String, Integer> names = counts(posts, Post::contact);
    assertThat(names).as("a seller's name is shared by many sellers").hasSizeLessThanOrEqualTo(150);
  }

  @Test
  void generate_realistic_sellersHaveAFewPostsAtAnySize() {
    for (int records : new int[] {10_000, 100_000}) {
      Map<String, Integer> perSeller = counts(realistic(5, records), PostGeneratorTest::seller);
      double mean = perSeller.values().stream().mapToInt(Integer::intValue).average().orElseThrow();
      long upToFive = perSeller.values().stream().filter(n -> n <= 5).count();
      assertThat(mean).as("posts per seller at %d", records).isBetween(1.5, 4.0);
      assertThat((double) upToFive / perSeller.size())
          .as("sellers with at most 5 posts at %d", records)
          .isGreaterThan(0.85);
      assertThat(perSeller.values().stream().mapToInt(Integer::intValue).max().orElseThrow())
          .isLessThan(25);
    }
  }

  @Test
  void generate_realistic_hardNegativesOfEachKindDifferInTheirOneThingAndTheTruthKeepsThemApart() {
    List<Post> posts = realistic(3, 100_000);
    GroundTruth truth = new GroundTruth();
    Map<Long, Post> originals = new HashMap<>();
    for (Post post : posts) {
      truth.add(post);
      if (post.kind() == Kind.ORIGINAL || post.kind().hardNegative()) {
        originals.put(post.cluster(), post);
      }
    }
    Map<Kind, Integer> checked = new EnumMap<>(Kind.class);
    for (Post negative : originals.values()) {
      if (!negative.kind().hardNegative() || !originals.containsKey(negative.negativeOf())) {
        continue;
      }
      Post model = originals.get(negative.negativeOf());
      assertThat(negative.cluster()).isNotEqualTo(model.cluster());
      assertThat(truth.hardNegativeKind(negative.cluster(), model.cluster()))
          .isEqualTo(negative.kind());
      assertThat(truth.hardNegativeKind(model.cluster(), negative.cluster()))
          .isEqualTo(negative.kind());
      assertThat(negative.category()).isEqualTo(model.category());
      boolean sameSeller = negative.phone().equals(model.phone());
      double priceRatio =
          Math.max(price(negative), price(model)) / Math.min(price(negative), price(model));
      long quantityRatio =
          Math.max(quantity(negative), quantity(model))
              / Math.min(quantity(negative), quantity(model));
      switch (negative.kind()) {
        case HARD_NEGATIVE_SELLER -> {
          assertThat(negative.product()).isNotEqualTo(model.product());
          assertThat(sameSeller).isTrue();
        }
        case HARD_NEGATIVE_PRODUCT -> {
          assertThat(
                  negative.content().replace(negative.phone(), "").replace(negative.contact(), ""))
              .isEqualTo(model.content().replace(model.phone(), "").replace(model.contact(), ""));
          assertThat(sameSeller).isFalse();
        }
        case HARD_NEGATIVE_PLACE, HARD_NEGATIVE_PLACE_SAME_SELLER -> {
          assertThat(negative.product()).isEqualTo(model.product());
          assertThat(negative.region()).isNotEqualTo(model.region());
          assertThat(negative.price()).isEqualTo(model.price());
          assertThat(quantity(negative)).isEqualTo(quantity(model));
          assertThat(sameSeller).isEqualTo(negative.kind() == Kind.HARD_NEGATIVE_PLACE_SAME_SELLER);
        }
        case HARD_NEGATIVE_QUANTITY -> {
          assertThat(negative.product()).isEqualTo(model.product());
          assertThat(negative.region()).isEqualTo(model.region());
          assertThat(negative.price()).isEqualTo(model.price());
          assertThat(quantityRatio).isGreaterThanOrEqualTo(RealisticPosts.QUANTITY_APART);
          assertThat(sameSeller).isFalse();
        }
        case HARD_NEGATIVE_PRICE -> {
          assertThat(negative.product()).isEqualTo(model.product());
          assertThat(negative.region()).isEqualTo(model.region());
          assertThat(quantity(negative)).isEqualTo(quantity(model));
          assertThat(priceRatio).isGreaterThanOrEqualTo(RealisticPosts.PRICE_APART - 1e-9);
          assertThat(sameSeller).isFalse();
        }
        case HARD_NEGATIVE_GRADE_SAME_SELLER -> {
          // Another grade, stated in the text, at another price: another offer of the seller's.
          assertThat(negative.product()).isEqualTo(model.product());
          assertThat(negative.region()).isEqualTo(model.region());
          assertThat(quantity(negative)).isEqualTo(quantity(model));
          assertThat(priceRatio).isGreaterThanOrEqualTo(RealisticPosts.PRICE_APART - 1e-9);
          assertThat(grade(negative)).isNotEqualTo(grade(model));
          assertThat(RealisticPosts.KEYED_GRADES).contains(grade(negative), grade(model));
          assertThat(sameSeller).isTrue();
        }
        default -> throw new AssertionError(negative.kind());
      }
      checked.merge(negative.kind(), 1, Integer::sum);
    }
    assertThat(checked.keySet()).containsExactlyInAnyOrder(RealisticPosts.HARD_NEGATIVE_KINDS);
    assertThat(checked.values()).allMatch(n -> n > 100);
    assertThat(truth.hardNegatives().keySet())
        .containsExactlyInAnyOrder(RealisticPosts.HARD_NEGATIVE_KINDS);
  }

  @Test
  void
      products_priceStepAtMostATenthOfTheLowestPrice_rangeSpansMoreThanTwoPriceHardNegativeFactors() {
    for (RealisticVocabulary.Product product : RealisticVocabulary.PRODUCTS) {
      assertThat(product.stepCents() * 10)
          .as(product.name())
          .isLessThanOrEqualTo(product.lowCents());
      double span =
          (product.lowCents() + (RealisticVocabulary.PRICE_STEPS - 1.0) * product.stepCents())
              / product.lowCents();
      assertThat(span)
          .as(product.name())
          .isGreaterThan(RealisticPosts.PRICE_APART * RealisticPosts.PRICE_APART);
    }
  }

  @Test
  void generate_realistic_nearPriceVariantMovesLessThanAPriceHardNegative() {
    List<Post> posts = realistic(9, 30_000);
    Map<Long, Post> originals = new HashMap<>();
    posts.stream()
        .filter(p -> p.kind() == Kind.ORIGINAL || p.kind().hardNegative())
        .forEach(p -> originals.put(p.cluster(), p));
    int checked = 0;
    for (Post post : posts) {
      if (post.kind() == Kind.NEAR_PRICE) {
        Post original = originals.get(post.cluster());
        double ratio =
            Math.max(price(post), price(original)) / Math.min(price(post), price(original));
        assertThat(ratio)
            .as("%s vs %s", post.price(), original.price())
            .isGreaterThan(1.0)
            .isLessThanOrEqualTo(1.1);
        assertThat(quantity(post)).isEqualTo(quantity(original));
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(500);
  }

  /**
   * The same seller's post of an offer at another price or with another lot is a repost: a near
   * variant of its original's cluster (seed 002: title, contact and phone), as far from it as the
   * price and quantity hard negatives of another seller are from theirs.
   */
  @Test
  void generate_realistic_sellersNewPriceOrLot_isANearVariantOfItsOriginal() {
    List<Post> posts = realistic(9, 30_000);
    GroundTruth truth = new GroundTruth();
    posts.forEach(truth::add);
    Map<Long, Post> originals = new HashMap<>();
    posts.stream()
        .filter(p -> p.kind() == Kind.ORIGINAL || p.kind().hardNegative())
        .forEach(p -> originals.put(p.cluster(), p));
    Map<Kind, Integer> checked = new EnumMap<>(Kind.class);
    List<Long> removed = new ArrayList<>();
    List<Long> kept = new ArrayList<>();
    for (Post post : posts) {
      if (post.kind() != Kind.NEAR_NEW_PRICE && post.kind() != Kind.NEAR_NEW_LOT) {
        continue;
      }
      Post original = originals.get(post.cluster());
      assertThat(post.kind().nearDuplicate).isTrue();
      assertThat(truth.cluster(post.id())).isEqualTo(truth.cluster(original.id()));
      assertThat(seller(post)).isEqualTo(seller(original));
      assertThat(post.contact()).isEqualTo(original.contact());
      assertThat(post.product()).isEqualTo(original.product());
      assertThat(post.region()).isEqualTo(original.region());
      double priceRatio =
          Math.max(price(post), price(original)) / Math.min(price(post), price(original));
      long quantityRatio =
          Math.max(quantity(post), quantity(original))
              / Math.min(quantity(post), quantity(original));
      if (post.kind() == Kind.NEAR_NEW_PRICE) {
        assertThat(priceRatio).isGreaterThanOrEqualTo(RealisticPosts.PRICE_APART - 1e-9);
        assertThat(quantity(post)).isEqualTo(quantity(original));
      } else {
        assertThat(quantityRatio).isGreaterThanOrEqualTo(RealisticPosts.QUANTITY_APART);
        assertThat(post.price()).isEqualTo(original.price());
      }
      removed.add(original.id());
      kept.add(post.id());
      checked.merge(post.kind(), 1, Integer::sum);
    }
    assertThat(checked.get(Kind.NEAR_NEW_PRICE)).isGreaterThan(200);
    assertThat(checked.get(Kind.NEAR_NEW_LOT)).isGreaterThan(200);
    // Each original removed for its repost at the new price or lot is a right near removal.
    GroundTruth.NearCheck check =
        truth.checkAll(
            GroundTruth.Removals.of(removed.size(), removed::get, kept::get, i -> "near"));
    assertThat(check.nearWrong()).isZero();
    assertThat(check.nearCorrect()).isEqualTo(removed.size());
  }

  @Test
  void generate_realistic_everyKindOfVariantIsMade() {
    Set<Kind> kinds = EnumSet.noneOf(Kind.class);
    realistic(1, 20_000).forEach(p -> kinds.add(p.kind()));
    Set<Kind> expected = EnumSet.allOf(Kind.class);
    assertThat(kinds).isEqualTo(expected);
  }

  @Test
  void checkAll_aHardNegativeMergedWithItsModel_countedOnceByItsKind() {
    List<Post> posts = realistic(4, 20_000);
    GroundTruth truth = new GroundTruth();
    posts.forEach(truth::add);
    Map<Long, Long> originalIds = new HashMap<>();
    Map<Long, List<Long>> clusterIds = new HashMap<>();
    for (Post p : posts) {
      if (p.kind() == Kind.ORIGINAL || p.kind().hardNegative()) {
        originalIds.put(p.cluster(), p.id());
      }
      clusterIds.computeIfAbsent(p.cluster(), c -> new ArrayList<>()).add(p.id());
    }
    Post negative =
        posts.stream()
            .filter(
                p ->
                    p.kind() == Kind.HARD_NEGATIVE_PLACE_SAME_SELLER
                        && originalIds.containsKey(p.negativeOf())
                        && clusterIds.get(p.cluster()).size() >= 2)
            .findFirst()
            .orElseThrow();
    long modelId = originalIds.get(negative.negativeOf());
    List<Long> removed = clusterIds.get(negative.cluster()).subList(0, 2);

    GroundTruth.NearCheck check =
        truth.checkAll(GroundTruth.Removals.of(2, removed::get, i -> modelId, i -> "near"));

    assertThat(check.nearWrong()).isEqualTo(2);
    assertThat(check.nearWrongElsewhere()).isZero();
    assertThat(check.hardNegativeMerges()).isEqualTo(2);
    assertThat(check.hardNegativeMergesByKind())
        .containsEntry(Kind.HARD_NEGATIVE_PLACE_SAME_SELLER, 1L);
    assertThat(check.hardNegativeMergesByKind().keySet())
        .containsExactlyInAnyOrder(RealisticPosts.HARD_NEGATIVE_KINDS);
    assertThat(check.hardNegativeMergesByKind().values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(1);
    assertThat(check.hardNegatives().get(Kind.HARD_NEGATIVE_PLACE_SAME_SELLER)).isGreaterThan(10);
  }

  @Test
  void checkAll_twoUnrelatedOffersMerged_wrongElsewhereAndNoHardNegativeKind() {
    List<Post> posts = realistic(4, 5_000);
    GroundTruth truth = new GroundTruth();
    posts.forEach(truth::add);
    List<Post> originals = posts.stream().filter(p -> p.kind() == Kind.ORIGINAL).limit(2).toList();

    GroundTruth.NearCheck check =
        truth.checkAll(
            GroundTruth.Removals.of(
                1, i -> originals.get(0).id(), i -> originals.get(1).id(), i -> "near"));

    assertThat(check.nearWrong()).isEqualTo(1);
    assertThat(check.nearWrongElsewhere()).isEqualTo(1);
    assertThat(check.hardNegativeMergesByKind().values()).containsOnly(0L);
  }

  @Test
  void checkAll_rightRemovalsOnly_noHardNegativeMergeOfAnyKind() {
    List<Post> posts = realistic(4, 5_000);
    GroundTruth truth = new GroundTruth();
    posts.forEach(truth::add);
    Map<Long, Long> originalIds = new HashMap<>();
    posts.stream()
        .filter(p -> p.kind() == Kind.ORIGINAL || p.kind().hardNegative())
        .forEach(p -> originalIds.put(p.cluster(), p.id()));
    List<Post> variants =
        posts.stream().filter(p -> p.kind().exactDuplicate || p.kind().nearDuplicate).toList();

    GroundTruth.NearCheck check =
        truth.checkAll(
            GroundTruth.Removals.of(
                variants.size(),
                i -> variants.get(i).id(),
                i -> originalIds.get(variants.get(i).cluster()),
                i -> "near"));

    assertThat(check.wrong()).isZero();
    assertThat(check.hardNegativeMergesByKind().values()).containsOnly(0L);
  }

  @Test
  void generate_sameSeed_samePosts_otherSeed_otherPosts() {
    List<Post> a = realistic(42, 5_000);
    assertThat(realistic(42, 5_000)).isEqualTo(a);
    assertThat(realistic(43, 5_000)).isNotEqualTo(a);
  }

  /**
   * The legacy vocabulary draws the same stream as it always did: the digest of its posts for two
   * seeds (every field but negativeOf) is pinned, so the figures measured on it stay comparable.
   */
  @Test
  void generate_legacy_sameStreamAsItsPinnedDigest() throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    for (long seed : new long[] {7, 20081118}) {
      new PostGenerator(seed, 50_000)
          .generate(
              50_000,
              p ->
                  digest.update(
                      (p.id()
                              + "|"
                              + p.cluster()
                              + "|"
                              + p.kind()
                              + "|"
                              + p.title()
                              + "|"
                              + p.category()
                              + "|"
                              + p.product()
                              + "|"
                              + p.region()
                              + "|"
                              + p.price()
                              + "|"
                              + p.contact()
                              + "|"
                              + p.phone()
                              + "|"
                              + p.content()
                              + "|"
                              + p.regTime()
                              + "\n")
                          .getBytes(StandardCharsets.UTF_8)));
    }
    assertThat(java.util.HexFormat.of().formatHex(digest.digest()))
        .isEqualTo("26817e7c42732e3aa4f61b55b9813eb8307945048d59104623209bd3fc22be30");
  }

  @Test
  void vocabularyParse_namesAnyCase_unknownNameSaysWhatIsExpected() {
    assertThat(Vocabulary.parse("Realistic")).isEqualTo(Vocabulary.REALISTIC);
    assertThat(Vocabulary.parse("legacy")).isEqualTo(Vocabulary.LEGACY);
    assertThatThrownBy(() -> Vocabulary.parse("real")).hasMessageContaining("legacy or realistic");
  }
}
