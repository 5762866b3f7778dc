package org.xiaochong.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.ArchiveColumns.Column;

/**
 * Which columns a restore writes, on the {@code information_schema.COLUMNS} rows each server
 * returns. None of the test servers runs MySQL 8, so its rows are written out here as MySQL 8.0
 * returns them (EXTRA, GENERATION_EXPRESSION).
 */
class ArchiveColumnsTest {
  private static ArchiveColumns withSource(Column... columns) {
    Map<String, Column> source = new LinkedHashMap<>();
    for (Column column : columns) {
      source.put(column.name(), column);
    }
    return new ArchiveColumns("posts", "posts_removed", source, Map.of());
  }

  @Test
  void writable_mysql8DefaultGeneratedTimestamps_areWrittenBack() {
    ArchiveColumns columns =
        withSource(
            new Column("id", "bigint", null, "auto_increment", ""),
            new Column("reg_time", "datetime", null, "DEFAULT_GENERATED", ""),
            new Column(
                "updated_at",
                "timestamp",
                null,
                "DEFAULT_GENERATED on update CURRENT_TIMESTAMP",
                ""),
            new Column("title", "varchar(255)", "utf8mb4", "", ""));

    assertThat(columns.writable(List.of("id", "reg_time", "updated_at", "title")))
        .containsExactly("id", "reg_time", "updated_at", "title");
  }

  @Test
  void writable_mysql8VirtualAndStoredColumns_areLeftToTheServer() {
    ArchiveColumns columns =
        withSource(
            new Column("id", "bigint", null, "auto_increment", ""),
            new Column("title_len", "int", null, "VIRTUAL GENERATED", "char_length(`title`)"),
            new Column("title_md5", "char(32)", "utf8mb4", "STORED GENERATED", "md5(`title`)"),
            new Column("title", "varchar(255)", "utf8mb4", "", ""));

    assertThat(columns.writable(List.of("id", "title_len", "title_md5", "title")))
        .containsExactly("id", "title");
  }

  @Test
  void writable_mariadbGeneratedColumns_oldAndNewWords_areLeftToTheServer() {
    ArchiveColumns columns =
        withSource(
            new Column("id", "bigint(20)", null, "auto_increment", null),
            new Column("a", "int(11)", null, "VIRTUAL GENERATED", "octet_length(`title`)"),
            new Column("b", "int(11)", null, "STORED GENERATED", "octet_length(`title`)"),
            new Column("c", "int(11)", null, "PERSISTENT", null),
            new Column("d", "int(11)", null, "VIRTUAL", null),
            new Column("reg_time", "datetime", null, "", null));

    assertThat(columns.writable(List.of("id", "a", "b", "c", "d", "reg_time")))
        .containsExactly("id", "reg_time");
  }
}
