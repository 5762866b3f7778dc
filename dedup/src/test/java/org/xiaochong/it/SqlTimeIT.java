package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.SqlTime;

/**
 * Times bound as parameters keep their fractional seconds on MariaDB, which Connector/J takes for a
 * server older than fractional seconds (it announces itself as "5.5.5-10.x").
 */
@Tag("db")
class SqlTimeIT extends DbTestSupport {
  private static final LocalDateTime TIME = LocalDateTime.of(2024, 5, 1, 8, 0, 0, 123_456_000);

  @Test
  void boundTimes_keepTheirFractions_throughJdbiAndPlainJdbc() throws Exception {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS sql_time_probe");
          h.execute(
              "CREATE TABLE sql_time_probe (how VARCHAR(8), t3 DATETIME(3) NULL, t6 DATETIME(6) NULL)");
          h.createUpdate("INSERT INTO sql_time_probe VALUES ('jdbi', ?, ?)")
              .bind(0, TIME)
              .bind(1, TIME)
              .execute();
          h.createUpdate("INSERT INTO sql_time_probe VALUES ('null', ?, ?)")
              .bind(0, (LocalDateTime) null)
              .bind(1, (LocalDateTime) null)
              .execute();
        });
    try (Connection connection = database().openConnection();
        PreparedStatement insert =
            connection.prepareStatement("INSERT INTO sql_time_probe VALUES ('jdbc', ?, ?)")) {
      SqlTime.bind(insert, 1, TIME);
      SqlTime.bindObject(insert, 2, TIME);
      insert.executeUpdate();
    }

    List<List<String>> rows =
        withHandle(
            h ->
                h.createQuery(
                        "SELECT how, CAST(t3 AS CHAR), CAST(t6 AS CHAR) FROM sql_time_probe ORDER BY how")
                    .map(
                        (rs, ctx) ->
                            Arrays.asList(rs.getString(1), rs.getString(2), rs.getString(3)))
                    .list());
    assertThat(rows)
        .containsExactly(
            Arrays.asList("jdbc", "2024-05-01 08:00:00.123", "2024-05-01 08:00:00.123456"),
            Arrays.asList("jdbi", "2024-05-01 08:00:00.123", "2024-05-01 08:00:00.123456"),
            Arrays.asList("null", null, null));
    // A bound time finds its row again: the comparison sees the same fraction.
    int found =
        withHandle(
            h ->
                h.createQuery("SELECT COUNT(*) FROM sql_time_probe WHERE t6 = ?")
                    .bind(0, TIME)
                    .mapTo(Integer.class)
                    .one());
    assertThat(found).isEqualTo(2);
  }
}
