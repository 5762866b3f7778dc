package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.xiaochong.tools.ServerQuiesce;

class ServerQuiesceIT extends DbTestSupport {
  private static final String SETTINGS =
      "SELECT CONCAT_WS(' ', @@GLOBAL.innodb_max_dirty_pages_pct, @@GLOBAL.innodb_io_capacity, @@GLOBAL.innodb_io_capacity_max)";

  @Test
  void waitUntilIdle_afterBulkInsertAndDelete_leavesNoDirtyPagesAndRestoresSettings() {
    createPostsTable("quiesce_posts");
    String before =
        database().jdbi().withHandle(h -> h.createQuery(SETTINGS).mapTo(String.class).one());
    database()
        .jdbi()
        .useHandle(
            h -> {
              h.execute(
                  "INSERT INTO quiesce_posts (title, content) SELECT CONCAT('供应苹果 ', seq), REPEAT('红富士', 300)"
                      + " FROM seq_1_to_20000");
              h.execute("DELETE FROM quiesce_posts WHERE id % 2 = 0");
            });
    assertThat(dirtyPages()).as("the insert left dirty pages to wait for").isGreaterThan(64);

    ServerQuiesce.Result wait = ServerQuiesce.waitUntilIdle(database(), Duration.ofMinutes(1));

    assertThat(wait.timedOut()).isFalse();
    assertThat(wait.dirtyPagesBefore()).isGreaterThan(64);
    assertThat(dirtyPages()).isLessThanOrEqualTo(64);
    String after =
        database().jdbi().withHandle(h -> h.createQuery(SETTINGS).mapTo(String.class).one());
    assertThat(after).isEqualTo(before);
  }

  private static long dirtyPages() {
    return database()
        .jdbi()
        .withHandle(
            (Handle h) ->
                h.createQuery("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
                    .map((rs, ctx) -> rs.getLong(2))
                    .one());
  }
}
