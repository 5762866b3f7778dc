package org.xiaochong.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.LocalDateTime;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SqlTimeTest {

  @Test
  void appendedTextIsTheBoundText() {
    SplittableRandom random = new SplittableRandom(36);
    for (int i = 0; i < 20_000; i++) {
      LocalDateTime time =
          LocalDateTime.of(
              random.nextInt(0, 10_000),
              random.nextInt(1, 13),
              random.nextInt(1, 29),
              random.nextInt(24),
              random.nextInt(60),
              random.nextInt(60),
              random.nextInt(1_000_000_000));
      assertEquals(SqlTime.text(time), appended(time), time::toString);
    }
  }

  @Test
  void edgesAndYearsBeyondFourDigitsAreTheBoundText() {
    for (LocalDateTime time :
        new LocalDateTime[] {
          LocalDateTime.of(0, 1, 1, 0, 0, 0, 0),
          LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999),
          LocalDateTime.of(1000, 1, 1, 0, 0, 0, 1_000),
          LocalDateTime.of(2024, 5, 1, 8, 0, 0, 123_000_000),
          LocalDateTime.of(10_000, 1, 1, 0, 0),
          LocalDateTime.of(-1, 1, 1, 0, 0)
        }) {
      assertEquals(SqlTime.text(time), appended(time), time::toString);
    }
    assertEquals(
        "2024-05-01 08:00:00.123000", appended(LocalDateTime.of(2024, 5, 1, 8, 0, 0, 123_000_000)));
  }

  private static String appended(LocalDateTime time) {
    return SqlTime.appendText(new StringBuilder("x"), time).substring(1);
  }
}
