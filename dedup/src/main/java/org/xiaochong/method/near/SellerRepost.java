package org.xiaochong.method.near;

import java.util.Arrays;
import org.xiaochong.method.near.NearRule.Keys;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.NearSimilarity;

/**
 * Whether two posts are the same seller's repost of one offer, whose price or lot may have moved
 * any distance: then the near rule does not count their amounts against them ({@link
 * Evidence#against(Evidence, java.util.function.LongToDoubleFunction, boolean)}, {@link
 * Evidence#contradicts(Evidence, boolean)}). Seed 002 (section 2.2, {@code pre = 3}) compares
 * supply/demand posts by title, contact and phone: a seller who posts the same product again with a
 * new price or lot has reposted it, and the latest post is the one to keep.
 *
 * <p>A repost when both hold:
 *
 * <ul>
 *   <li><b>same seller</b>: when both posts carry phone numbers in their near fields ({@code tel:}
 *       terms), they share one; else the first seller item of their {@link Evidence} both have
 *       agrees (a phone column's digits, then a {@code fields.seller} column such as the contact's
 *       name: {@link Evidence#sameSeller});
 *   <li><b>no word stands in place of another</b>: each post holds a word key (numbers aside) the
 *       other lacks. Another grade (一级 for 特级), another variety or another place in the text is
 *       another offer of the seller's, whatever its price; a sentence added or dropped is not (one
 *       side only), so the repost joins the other posts of its cluster, which a repost with another
 *       sentence would otherwise leave apart.
 * </ul>
 *
 * Without a known shared seller the amounts still count: a price more than 10 % off keeps two
 * housing ads apart, which carry no seller identity. Another place or another grade or size named
 * in both texts ({@link org.xiaochong.method.near.fingerprint.Grades}: 一级 against 二级, 精品 against
 * 特级, 70mm against 80mm) contradicts outright, seller or not: the same seller's other grade is
 * often priced within 10 %, so no amount tells it apart. Stateless and thread-safe.
 */
final class SellerRepost {
  private SellerRepost() {}

  /** Whether the pair is the same seller's repost of one offer (see the class comment). */
  static boolean test(Keys record, Keys candidate) {
    return sameSeller(record, candidate) && !wordReplaced(record, candidate);
  }

  /** Whether the two posts are known to come from one seller (see the class comment). */
  static boolean sameSeller(Keys record, Keys candidate) {
    long[] tel = record.tel();
    long[] candidateTel = candidate.tel();
    if (tel.length > 0 && candidateTel.length > 0) {
      return NearSimilarity.sharedCount(tel, candidateTel) > 0;
    }
    return record.evidence().sameSeller(candidate.evidence());
  }

  /**
   * Whether each post holds a word key, not a number's, that the other lacks: a word of one stands
   * in place of a word of the other.
   */
  static boolean wordReplaced(Keys record, Keys candidate) {
    return holdsOtherWord(record, candidate) && holdsOtherWord(candidate, record);
  }

  private static boolean holdsOtherWord(Keys post, Keys other) {
    long[] numbers = post.numbers();
    long[] otherKeys = other.keys();
    for (long key : KeySets.wordKeys(post)) {
      if (Arrays.binarySearch(otherKeys, key) < 0 && Arrays.binarySearch(numbers, key) < 0) {
        return true;
      }
    }
    return false;
  }
}
