package org.xiaochong.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The service's access token: a request carries it as {@code Authorization: Bearer <token>}. The
 * comparison takes the same time wherever the two differ (SHA-256 of both, then {@link
 * MessageDigest#isEqual}, which is constant-time), so timing tells nothing of the token or its
 * length. {@link #toString} never shows it. Immutable.
 */
public final class AccessToken {
  /** The shortest token accepted: 16 characters (about 96 bits when random base64). */
  public static final int MIN_LENGTH = 16;

  private final byte[] digest;

  private AccessToken(String token) {
    this.digest = sha256(token);
  }

  /**
   * The token of {@code value}.
   *
   * @throws IllegalArgumentException for a token shorter than {@link #MIN_LENGTH} or with blanks
   *     (the message never shows it)
   */
  public static AccessToken of(String value, String source) {
    if (value.length() < MIN_LENGTH
        || !value.strip().equals(value)
        || value.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          "the access token of "
              + source
              + " must be at least "
              + MIN_LENGTH
              + " characters without blanks (e.g. `openssl rand -base64 24`)");
    }
    return new AccessToken(value);
  }

  /** Whether an {@code Authorization} header value (may be null) carries this token. */
  boolean matches(String authorization) {
    String prefix = "Bearer ";
    String given =
        authorization != null && authorization.regionMatches(true, 0, prefix, 0, prefix.length())
            ? authorization.substring(prefix.length()).strip()
            : "";
    return MessageDigest.isEqual(digest, sha256(given));
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "AccessToken[hidden]";
  }
}
