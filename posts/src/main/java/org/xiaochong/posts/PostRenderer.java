package org.xiaochong.posts;

import java.time.LocalDateTime;
import org.xiaochong.posts.PostGenerator.Kind;
import org.xiaochong.posts.PostGenerator.Post;

/**
 * Writes the post of an {@link Offer}: title, category, price text, contact name and phone, and the
 * content (the legacy vocabulary's two sentence forms, or the realistic template filled by {@link
 * RealisticPosts#render}), then the offer's extra sentences and the contact line. Draws nothing at
 * random: the same offer gives the same post. Stateless.
 */
final class PostRenderer {
  private static final String[] SURNAMES = {
    "王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴", "徐", "孙", "胡", "朱", "高", "林", "何", "郭", "马",
    "罗", "梁", "宋", "郑", "谢", "韩", "唐", "冯", "于", "董", "萧"
  };
  private static final String[] TITLES_OF_ADDRESS = {"先生", "女士", "经理", "老板", "师傅"};
  private static final String[] MOBILE_PREFIXES = {
    "138", "139", "137", "136", "135", "150", "151", "158", "159", "186", "187", "188", "189",
    "133", "153", "177", "180", "181"
  };

  private PostRenderer() {}

  static Post render(Offer base, Kind kind, LocalDateTime time) {
    return render(base, kind, time, false);
  }

  /** The post of an offer ({@code otherTitle}: the realistic template's second title form). */
  static Post render(Offer base, Kind kind, LocalDateTime time, boolean otherTitle) {
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
  static String priceText(Offer base) {
    return String.format(
        "%d.%02d元/%s", base.priceCents() / 100, base.priceCents() % 100, base.unit());
  }

  private static String phoneOf(int seller) {
    // 7919 is prime, so seller * 7919 mod 10^8 is a bijection: every seller has its own number.
    long local = (seller * 7919L) % 100_000_000L;
    return MOBILE_PREFIXES[seller % MOBILE_PREFIXES.length] + String.format("%08d", local);
  }
}
