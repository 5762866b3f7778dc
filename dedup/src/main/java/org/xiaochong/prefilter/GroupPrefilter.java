package org.xiaochong.prefilter;

/**
 * Asked before each term query of a pass: may this key have another record in the index? Answering
 * {@code false} is a promise (never a guess) that the key's record is alone, so its lookup is
 * skipped. The counting Bloom filter (IMP-CBFilter) implements it; {@link #NONE} asks the index
 * every time.
 */
@FunctionalInterface
public interface GroupPrefilter {
  GroupPrefilter NONE = key -> true;

  /**
   * @param md5 the 16-byte key of a record that is itself in the index
   * @return false only when no other record can share the key
   */
  boolean mightHaveTwin(byte[] md5);
}
