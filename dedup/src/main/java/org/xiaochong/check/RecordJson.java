package org.xiaochong.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * One incoming record as JSON (column → value, as in the table) made into a {@link
 * Deduplicator.Record}: the form both {@code dedup check} (one per line) and {@code dedup serve} (a
 * request body) read. Stateless.
 */
public final class RecordJson {
  private RecordJson() {}

  /**
   * The record of a JSON object.
   *
   * <ul>
   *   <li>the id column, when present, is an integer JSON number that fits a long: 5.7 or 1e3 would
   *       be truncated to another record's id, and "5" or true are not numbers;
   *   <li>the time column is {@code 2024-05-01}, {@code 2024-05-01T08:30} or {@code 2024-05-01
   *       08:30:00}; JSON null is a NULL time (the oldest for the keep policy); without the column
   *       the record's time is {@code nowMillis} (it is being stored now);
   *   <li>other values are taken as text (a number as its JSON text), null as NULL.
   * </ul>
   *
   * @throws IllegalArgumentException naming the problem: not an object, a bad id or time, or no id
   *     when {@code idRequired}
   */
  public static Deduplicator.Record parse(
      JsonNode record, TableSpec table, boolean idRequired, long nowMillis) {
    if (record == null || !record.isObject()) {
      throw new IllegalArgumentException(
          "a record must be a JSON object (column -> value), not "
              + (record == null
                  ? "nothing"
                  : record.getNodeType().name().toLowerCase(java.util.Locale.ROOT)));
    }
    String idColumn = table.idColumn();
    JsonNode idNode = record.get(idColumn);
    if (idNode != null && !(idNode.isIntegralNumber() && idNode.canConvertToLong())) {
      throw new IllegalArgumentException(
          idColumn + " must be an integer JSON number, not " + idNode);
    }
    if (idNode == null && idRequired) {
      throw new IllegalArgumentException("the record has no id column '" + idColumn + "'");
    }
    Map<String, String> fields = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = record.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      fields.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText());
    }
    JsonNode timeNode = record.get(table.timeColumn());
    long time =
        timeNode == null
            ? nowMillis
            : timeNode.isNull()
                ? SourceRecord.NULL_TIME
                : RecordSource.toMillis(time(table.timeColumn(), timeNode.asText()));
    return new Deduplicator.Record(idNode == null ? null : idNode.asLong(), fields, time);
  }

  /**
   * A verdict as JSON: {@code id}, {@code verdict}, {@code kept_id}, {@code score}, {@code keep},
   * {@code supersedes}, and {@code added} when records were being added.
   */
  public static ObjectNode toJson(ObjectNode into, Deduplicator.Verdict verdict, boolean adding) {
    if (verdict.id() == null) {
      into.putNull("id");
    } else {
      into.put("id", verdict.id());
    }
    into.put("verdict", verdict.verdict());
    if (verdict.keptId() == null) {
      into.putNull("kept_id");
    } else {
      into.put("kept_id", verdict.keptId());
    }
    into.put("score", verdict.score());
    into.put("keep", verdict.keep());
    ArrayNode supersedes = into.putArray("supersedes");
    verdict.supersedes().forEach(supersedes::add);
    if (adding) {
      into.put("added", verdict.added());
    }
    return into;
  }

  /**
   * A time as {@code --since} takes it: {@code 2024-05-01}, {@code 2024-05-01T08:30}, {@code
   * 2024-05-01 08:30:00}.
   */
  static LocalDateTime time(String column, String value) {
    String v = value.strip().replace(' ', 'T');
    try {
      return v.length() == 10 ? LocalDate.parse(v).atStartOfDay() : LocalDateTime.parse(v);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          column
              + " '"
              + value
              + "' is not a time: use 2024-05-01, 2024-05-01T08:30 or '2024-05-01 08:30:00'");
    }
  }
}
