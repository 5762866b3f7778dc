package org.xiaochong.posts;

import java.util.List;
import java.util.SplittableRandom;
import org.xiaochong.posts.PostGenerator.Kind;

/**
 * The legacy vocabulary of {@link PostGenerator}: 60 products, 30 regions, prices over a wide range
 * and a stock quantity unique to each cluster, so two clusters never collide by chance and every
 * post keeps rare keys besides its phone. Sellers are drawn from a pool sized by the expected
 * records. Hard negatives ({@value #HARD_NEGATIVE_SHARE} of the clusters) copy a recent offer with
 * another product by the same seller, or the same offer by another seller. Not thread-safe.
 */
final class LegacyPosts {
  /** Share of clusters that are hard negatives of an earlier cluster. */
  static final double HARD_NEGATIVE_SHARE = 0.05;

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
  private static final String[] GRADES = {"一级", "特级", "精品", "统货", "优等", "二级"};
  private static final String[] QUALITIES = {
    "个大皮薄", "色泽鲜艳", "口感好", "无农药残留", "新鲜采摘", "品质保证", "耐储存", "适合长途运输", "绿色无公害", "自家种植"
  };
  private static final String[] UNITS = {"斤", "公斤", "吨", "箱"};

  private final SplittableRandom random;
  private final PostGenerator generator;
  private final int sellers;

  /** The offers (seller, product, region, price …) of every original so far, as 64-bit hashes. */
  private final java.util.Set<Long> offers = new java.util.HashSet<>();

  LegacyPosts(SplittableRandom random, PostGenerator generator, int sellers) {
    this.random = random;
    this.generator = generator;
    this.sellers = sellers;
  }

  /** The next cluster's offer: a hard negative of a recent one, or a new one. */
  Offer next(long cluster, List<Offer> recentBases) {
    Offer base;
    Offer hardNegative = null;
    if (!recentBases.isEmpty() && random.nextDouble() < HARD_NEGATIVE_SHARE) {
      Offer other = recentBases.get(random.nextInt(recentBases.size()));
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
        Offer candidate =
            new Offer(
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
                generator.randomTime(),
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
      List<String> extras = generator.randomExtras();
      base =
          new Offer(
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
              generator.randomTime(),
              Kind.ORIGINAL,
              0,
              null);
    }
    offers.add(offerOf(base));
    return base;
  }

  private static long offerOf(Offer b) {
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

  private String pickOther(String[] values, String not) {
    String v;
    do {
      v = values[random.nextInt(values.length)];
    } while (v.equals(not));
    return v;
  }
}
