package org.xiaochong.posts;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.xiaochong.posts.PostGenerator.Kind;
import org.xiaochong.posts.PostGenerator.Post;

/**
 * The duplicates of an original, drawn from the generator's random stream: exact ones (a repost
 * with a new time, white-space, full-width, punctuation or phone format changes, all equal after
 * normalization) and near ones (changed price, added, dropped or reordered sentence, reformatted
 * phone in the text, reworded title, one-character typo; in the realistic vocabulary also the same
 * seller's repost at a new price or with a new lot). A variant's time is its original's (5 %) or up
 * to 30 days before or after it. Not thread-safe.
 */
final class Variants {
  private final SplittableRandom random;
  private final PostGenerator generator;
  private final double exactShare;

  /** The realistic vocabulary's price steps and titles; null for the legacy vocabulary. */
  private final RealisticPosts realistic;

  private final Kind[] exactKinds = {
    Kind.EXACT_REPOST,
    Kind.EXACT_WHITESPACE,
    Kind.EXACT_FULLWIDTH,
    Kind.EXACT_PUNCTUATION,
    Kind.EXACT_PHONE_FORMAT
  };
  private final Kind[] nearKinds;

  /** The near kinds of the legacy vocabulary, whose stream stays as it was. */
  private static final Kind[] LEGACY_NEAR_KINDS = {
    Kind.NEAR_PRICE,
    Kind.NEAR_ADDED_SENTENCE,
    Kind.NEAR_DROPPED_SENTENCE,
    Kind.NEAR_REORDERED,
    Kind.NEAR_PHONE_IN_TEXT,
    Kind.NEAR_TITLE,
    Kind.NEAR_TYPO
  };

  /** The near kinds of the realistic vocabulary: the legacy ones and the seller's reposts. */
  private static final Kind[] REALISTIC_NEAR_KINDS = {
    Kind.NEAR_PRICE,
    Kind.NEAR_ADDED_SENTENCE,
    Kind.NEAR_DROPPED_SENTENCE,
    Kind.NEAR_REORDERED,
    Kind.NEAR_PHONE_IN_TEXT,
    Kind.NEAR_TITLE,
    Kind.NEAR_TYPO,
    Kind.NEAR_NEW_PRICE,
    Kind.NEAR_NEW_LOT
  };

  Variants(
      SplittableRandom random,
      PostGenerator generator,
      double exactShare,
      RealisticPosts realistic) {
    this.random = random;
    this.generator = generator;
    this.exactShare = exactShare;
    this.realistic = realistic;
    this.nearKinds = realistic == null ? LEGACY_NEAR_KINDS : REALISTIC_NEAR_KINDS;
  }

  /**
   * The kinds of a cluster's one to three variants, all different: exact or near with the given
   * share, then a kind of that family not used yet in this cluster (drawing a kind and retrying on
   * a repeat would favour the larger near family).
   */
  List<Kind> kinds() {
    int variants = 1 + random.nextInt(3);
    List<Kind> kinds = new ArrayList<>();
    while (kinds.size() < variants) {
      Kind[] family = random.nextDouble() < exactShare ? exactKinds : nearKinds;
      Kind kind = family[random.nextInt(family.length)];
      while (kinds.contains(kind)) {
        kind = family[random.nextInt(family.length)];
      }
      kinds.add(kind);
    }
    return kinds;
  }

  /** A duplicate of {@code base} of the given kind, its time near the original's. */
  Post variant(Offer base, Kind kind) {
    LocalDateTime time;
    double r = random.nextDouble();
    if (base.time() == null || r < 0.05) {
      time = base.time() == null ? generator.randomTime() : base.time(); // exact tie
    } else {
      time = base.time().plusMinutes(random.nextInt(60 * 24 * 60) - 60 * 24 * 30);
    }
    Post original = PostRenderer.render(base, kind, time);
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
          yield PostRenderer.render(base.withPrice(realistic.revisedPrice(base), time), kind, time);
        }
        int cents = base.priceCents() + (random.nextBoolean() ? 1 : -1) * (10 + random.nextInt(40));
        Offer changed =
            base.withPrice(Math.max(10, cents == base.priceCents() ? cents + 7 : cents), time);
        yield PostRenderer.render(changed, kind, time);
      }
      case NEAR_NEW_PRICE ->
          PostRenderer.render(base.withPrice(realistic.newPrice(base), time), kind, time);
      case NEAR_NEW_LOT -> PostRenderer.render(base.withStock(realistic.newLot(base)), kind, time);
      case NEAR_ADDED_SENTENCE -> {
        List<String> extras = new ArrayList<>(base.extras());
        extras.add(pickNotIn(PostGenerator.EXTRA_SENTENCES, extras));
        yield PostRenderer.render(base.withExtras(extras), kind, time);
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
        yield PostRenderer.render(base.withExtras(extras), kind, time);
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
              ? PostRenderer.render(base, kind, time, true)
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
