package org.xiaochong.fingerprint;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/** Small helpers shared by the fingerprinters that hash analyzer terms (multi-MD5, simhash). */
public final class TermText {
  private TermText() {}

  /**
   * Whether the term holds a letter or a digit (a term of punctuation or symbols only carries no
   * content).
   */
  public static boolean hasLetterOrDigit(CharTermAttribute term) {
    for (int i = 0; i < term.length(); ) {
      int cp = Character.codePointAt(term.buffer(), i, term.length());
      if (Character.isLetterOrDigit(cp)) {
        return true;
      }
      i += Character.charCount(cp);
    }
    return false;
  }

  /** A new MD5 digest (not thread-safe: keep one per thread). */
  public static MessageDigest newMd5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide MD5", e);
    }
  }
}
