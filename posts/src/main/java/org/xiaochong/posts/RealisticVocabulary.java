package org.xiaochong.posts;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of {@link RealisticPosts}, bounded as in real supply/demand posts:
 *
 * <ul>
 *   <li>30 products, each with its price unit, a narrow price range ({@value #PRICE_STEPS} steps of
 *       at most 10 % of its lowest price) and its quantity unit;
 *   <li>12 provinces with 5 cities (counties) each; a post's region is province + city;
 *   <li>7 template sentences (4 supply, 3 demand), each with a second title form;
 *   <li>quantities from {@link #QUANTITIES}, grades, qualities and packagings from short lists.
 * </ul>
 */
final class RealisticVocabulary {
  /** Price steps of a product's range: the range spans at least 1.75 times its lowest price. */
  static final int PRICE_STEPS = 16;

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

  private RealisticVocabulary() {}

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
}
