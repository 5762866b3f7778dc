package org.xiaochong.bloom;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Test helpers: MD5 keys and the reproducible seed. */
public final class TestKeys {
  private TestKeys() {}

  public static byte[] md5(String text) {
    try {
      return MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** -Dprefilter.seed=N replays a failing run; otherwise a fresh seed, logged in the messages. */
  public static long seed() {
    String fixed = System.getProperty("prefilter.seed");
    return fixed != null ? Long.parseLong(fixed) : System.nanoTime();
  }
}
