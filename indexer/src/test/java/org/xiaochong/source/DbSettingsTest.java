package org.xiaochong.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DbSettingsTest {
  private static DbSettings settings(String url) {
    return new DbSettings(url, "dedup", "pw", Path.of("data"));
  }

  @Test
  void mariadbUrl_isReadAsAConnectorJUrl() {
    assertThat(settings("jdbc:mariadb://db.example.com:3306/crawl?connectTimeout=5000").url())
        .isEqualTo("jdbc:mysql://db.example.com:3306/crawl?connectTimeout=5000");
    assertThat(settings(" jdbc:mysql://db.example.com/crawl ").url())
        .isEqualTo("jdbc:mysql://db.example.com/crawl");
    assertThat(settings("embedded").embedded()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "jdbc:mysql://dedup:S3cret@db.example.com/crawl",
        "jdbc:mariadb://dedup:S3cret@db.example.com:3306/crawl",
        "jdbc:mysql://db1.example.com:3306,dedup:S3cret@db2.example.com/crawl",
        "jdbc:mysql://db.example.com/crawl?user=dedup&password=S3cret",
        "jdbc:mysql://db.example.com/crawl?user=dedup&PASSWORD=S3cret",
        "jdbc:mysql://address=(host=db.example.com)(password=S3cret)/crawl",
        "jdbc:mysql://db.example.com/crawl?user=dedup&password1=S3cret",
        "jdbc:mysql://db.example.com/crawl?password2=S3cret&user=dedup",
        "jdbc:mysql://db.example.com/crawl?Password3 =S3cret",
        "jdbc:mysql://address=(host=db.example.com)(password1=S3cret)/crawl"
      })
  void passwordInUrl_isRefusedWithoutBeingPrinted(String url) {
    assertThatThrownBy(() -> settings(url))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("db.url must not carry the password")
        .hasMessageNotContaining("S3cret");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "jdbc:mysql://dedup@db.example.com/crawl",
        "jdbc:mysql://db.example.com:3306/crawl",
        "jdbc:mysql://[::1]:3306/crawl",
        "jdbc:mysql://db.example.com/crawl?user=dedup&sslMode=REQUIRED"
      })
  void urlWithoutPassword_isAccepted(String url) {
    assertThat(settings(url).url()).isEqualTo(url);
  }

  @Test
  void otherScheme_isRefusedWithTheUrlRedacted() {
    assertThatThrownBy(() -> settings("jdbc:postgresql://dedup:S3cret@db.example.com/crawl"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("jdbc:mysql:")
        .hasMessageNotContaining("S3cret");
  }

  @Test
  void redactUrl_hidesUserInfoAndPasswordParameters() {
    assertThat(DbSettings.redactUrl("jdbc:mysql://u:p@h/db?password=x&a=b"))
        .isEqualTo("jdbc:mysql://***@h/db?password=***&a=b");
    assertThat(settings("jdbc:mysql://dedup@h/db").toString()).doesNotContain("pw");
    assertThat(DbSettings.redactUrl("jdbc:mysql://h/db?password1=x&password2=y;a=b"))
        .isEqualTo("jdbc:mysql://h/db?password1=***&password2=***;a=b");
    assertThat(DbSettings.redactUrl("jdbc:mysql://address=(host=h)(password1=x)/db"))
        .isEqualTo("jdbc:mysql://address=(host=h)(password1=***)/db");
  }

  @Test
  void sessionVariablesInUrl_isRefused() {
    assertThatThrownBy(
            () -> settings("jdbc:mysql://db.example.com/crawl?sessionVariables=sql_mode=''"))
        .isInstanceOf(BadInputException.class)
        .hasMessageContaining("sessionVariables");
  }
}
