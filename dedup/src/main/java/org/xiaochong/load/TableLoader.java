package org.xiaochong.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jdbi.v3.core.Handle;
import org.xiaochong.source.BadInputException;
import org.xiaochong.source.Database;
import org.xiaochong.source.SqlTime;
import org.xiaochong.source.TableSpec;

/**
 * Inserts rows into a table in batches: creates it when missing ({@code id BIGINT PRIMARY KEY}, the
 * time column {@code DATETIME NULL}, every other column {@code TEXT}, utf8mb4) or checks that the
 * existing one has every column. Ids may be given per row or generated after the table's largest
 * id. Names are validated identifiers ({@link TableSpec#quote}); values are bound parameters.
 *
 * <p>All or nothing: the rows are sent in batches but are one transaction, committed by {@link
 * #finish()}; {@link #close()} without it rolls them back, so a failed load leaves an existing
 * table as it was (a table this loader created stays, empty, for the caller to drop). One
 * transaction holds the undo of the whole file on the server, which InnoDB keeps on disk; other
 * sessions see no row before the commit. Not thread-safe; close it to release the connection.
 */
public final class TableLoader implements AutoCloseable {
  static final int BATCH = 1000;

  private final Handle handle;
  private final Connection connection;
  private final PreparedStatement insert;
  private final int textCount;
  private final boolean created;
  private long nextId;
  private int pending;
  private long inserted;
  private boolean closed;

  public TableLoader(
      Database database,
      String table,
      String idColumn,
      String timeColumn,
      List<String> textColumns) {
    List<String> all = new ArrayList<>();
    all.add(idColumn);
    all.add(timeColumn);
    all.addAll(textColumns);
    for (String c : all) {
      TableSpec.quote(c);
    }
    if (all.stream().map(c -> c.toLowerCase(Locale.ROOT)).distinct().count() != all.size()) {
      throw new BadInputException("column names must be distinct (case-insensitive): " + all);
    }
    String quotedTable = TableSpec.quote(table);
    this.textCount = textColumns.size();
    this.handle = database.jdbi().open();
    try {
      List<String> existing =
          handle
              .createQuery(
                  "SELECT LOWER(column_name) FROM information_schema.columns"
                      + " WHERE table_schema = DATABASE() AND table_name = ?")
              .bind(0, table)
              .mapTo(String.class)
              .list();
      if (existing.isEmpty()) {
        StringBuilder ddl =
            new StringBuilder("CREATE TABLE ")
                .append(quotedTable)
                .append(" (")
                .append(TableSpec.quote(idColumn))
                .append(" BIGINT NOT NULL PRIMARY KEY, ")
                .append(TableSpec.quote(timeColumn))
                .append(" DATETIME NULL");
        for (String c : textColumns) {
          ddl.append(", ").append(TableSpec.quote(c)).append(" TEXT");
        }
        ddl.append(", KEY ")
            .append(
                TableSpec.quote(
                    ("k_" + timeColumn).substring(0, Math.min(64, timeColumn.length() + 2))))
            .append(" (")
            .append(TableSpec.quote(timeColumn))
            .append("))")
            .append(" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci");
        handle.execute(ddl.toString());
        created = true;
        nextId = 1;
      } else {
        for (String c : all) {
          if (!existing.contains(c.toLowerCase(Locale.ROOT))) {
            throw new BadInputException(
                "table "
                    + table
                    + " exists but has no column '"
                    + c
                    + "' (its columns: "
                    + String.join(", ", existing)
                    + ")");
          }
        }
        created = false;
        Long max =
            handle
                .createQuery("SELECT MAX(" + TableSpec.quote(idColumn) + ") FROM " + quotedTable)
                .mapTo(Long.class)
                .one();
        nextId = max == null ? 1 : max + 1;
      }
      StringBuilder sql = new StringBuilder("INSERT INTO ").append(quotedTable).append(" (");
      StringBuilder marks = new StringBuilder();
      for (int i = 0; i < all.size(); i++) {
        sql.append(i == 0 ? "" : ", ").append(TableSpec.quote(all.get(i)));
        marks.append(i == 0 ? "?" : ", ?");
      }
      sql.append(") VALUES (").append(marks).append(')');
      connection = handle.getConnection();
      connection.setAutoCommit(false);
      insert = connection.prepareStatement(sql.toString());
    } catch (SQLException e) {
      handle.close();
      throw new IllegalStateException(
          "cannot prepare the insert into " + table + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      handle.close();
      throw e;
    }
  }

  /** True when this loader created the table. */
  public boolean created() {
    return created;
  }

  /** Rows sent so far (committed by {@link #finish()}). */
  long inserted() {
    return inserted;
  }

  /** The id the next row without one gets. */
  long nextId() {
    return nextId;
  }

  /**
   * Adds one row.
   *
   * @param id the row's id, or null to take the next generated one
   * @param time the row's time or null
   * @param text the other columns' values, in the order given to the constructor (null = NULL)
   * @return the row's id
   */
  public long add(Long id, LocalDateTime time, String[] text) {
    if (text.length != textCount) {
      throw new IllegalArgumentException(text.length + " values for " + textCount + " columns");
    }
    long rowId = id == null ? nextId : id;
    nextId = Math.max(nextId, rowId + 1);
    try {
      insert.setLong(1, rowId);
      SqlTime.bind(insert, 2, time);
      for (int i = 0; i < textCount; i++) {
        insert.setString(3 + i, text[i]);
      }
      insert.addBatch();
      if (++pending == BATCH) {
        flush();
      }
    } catch (SQLException e) {
      throw failure(e);
    }
    return rowId;
  }

  /** Writes the last batch and commits every row; returns how many rows were inserted. */
  public long finish() {
    try {
      flush();
      connection.commit();
    } catch (SQLException e) {
      throw failure(e);
    }
    return inserted;
  }

  private void flush() throws SQLException {
    if (pending == 0) {
      return;
    }
    insert.executeBatch();
    inserted += pending;
    pending = 0;
  }

  private RuntimeException failure(SQLException e) {
    String message = Database.rootMessage(e);
    if ("23000".equals(e.getSQLState())
        || (message != null && message.contains("Duplicate entry"))) {
      return new BadInputException("a row has an id already in the table (" + message + ")");
    }
    return new IllegalStateException("insert failed: " + message, e);
  }

  /**
   * A header name as an SQL identifier: lower case, runs of other characters as one _, digits first
   * get c_.
   */
  public static String columnName(String name) {
    String n =
        name.strip()
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9_$]+", "_")
            .replaceAll("^_+|_+$", "");
    if (!n.isEmpty() && Character.isDigit(n.charAt(0))) {
      n = "c_" + n;
    }
    return n;
  }

  /**
   * Parses a time value: {@code 2024-05-01}, {@code 2024-05-01 08:00[:00[.fff]]} or the ISO form
   * with {@code T}; blank is null.
   *
   * @throws IllegalArgumentException when it is none of these
   */
  public static LocalDateTime parseTime(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String v = value.strip();
    try {
      if (v.length() == 10) {
        return LocalDate.parse(v).atStartOfDay();
      }
      return LocalDateTime.parse(v.replace(' ', 'T'));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("'" + value + "' is not a time (yyyy-MM-dd[ HH:mm[:ss]])");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      insert.close();
      connection.rollback();
      connection.setAutoCommit(true);
    } catch (SQLException e) {
      // the handle is closed anyway
    } finally {
      handle.close();
    }
  }
}
