package org.xiaochong.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AccessTokenTest {
  private static final String SECRET = "s3cret-token-0123456789";

  @Test
  void matches_theBearerHeaderOfTheToken_isTrueAndAnyOtherFalse() {
    AccessToken token = AccessToken.of(SECRET, "test");
    assertThat(token.matches("Bearer " + SECRET)).isTrue();
    assertThat(token.matches("bearer " + SECRET))
        .isTrue(); // the scheme is case-insensitive (RFC 9110)
    assertThat(token.matches(null)).isFalse();
    assertThat(token.matches("")).isFalse();
    assertThat(token.matches(SECRET)).isFalse(); // no scheme
    assertThat(token.matches("Basic " + SECRET)).isFalse();
    assertThat(token.matches("Bearer " + SECRET + "x")).isFalse();
    assertThat(token.matches("Bearer " + SECRET.substring(1))).isFalse();
  }

  @Test
  void of_aShortOrBlankToken_isRefusedWithoutShowingIt() {
    assertThatThrownBy(() -> AccessToken.of("short-secret", "DEDUP_SERVE_TOKEN"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DEDUP_SERVE_TOKEN")
        .hasMessageContaining("16")
        .hasMessageNotContaining("short-secret");
    assertThatThrownBy(() -> AccessToken.of("a token with blanks inside", "serve.token"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("blanks inside");
  }

  @Test
  void toString_neverShowsTheToken() {
    assertThat(AccessToken.of(SECRET, "test").toString()).doesNotContain(SECRET).contains("hidden");
  }
}
