package org.xiaochong.fingerprint;

/**
 * Versions of the normalization and fingerprint formats. The current one is stored in the Lucene
 * commit user data; an index built with another version must be rebuilt, because equal records
 * would no longer get equal keys. Only append constants: the names are persisted (a test pins the
 * order).
 */
public enum FingerprintVersion {
  /** NFKC, punctuation unification, white space rules of TextNormalizer; name+length framed MD5. */
  V1;

  public static final FingerprintVersion CURRENT = V1;
}
