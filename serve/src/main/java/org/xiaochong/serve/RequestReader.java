package org.xiaochong.serve;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.check.RecordJson;
import org.xiaochong.source.TableSpec;

/**
 * Reads a request of {@link DedupService}: its query parameters, and its body parsed as it arrives
 * (Jackson's streaming parser over a {@link RequestBody}), one record at a time: an array's record
 * count is refused at the first record over {@link DedupService.Settings#maxRecords}, a record over
 * {@link DedupService.Settings#maxRecordBytes} once it is read, the body at the first byte over
 * {@link DedupService.Settings#maxBodyBytes}; nothing after that is read. Only the records are held
 * (as trees), never the whole body. Every record is validated before any is checked. Whatever is
 * wrong is thrown as a 4xx {@link Problem} naming it. Thread-safe.
 */
final class RequestReader {
  /**
   * The records of a body.
   *
   * @param array whether the body was an array (answered with an array) or one record
   */
  record Body(List<Deduplicator.Record> records, boolean array) {}

  private final TableSpec table;
  private final DedupService.Settings settings;
  private final ObjectMapper json;

  RequestReader(TableSpec table, DedupService.Settings settings, ObjectMapper json) {
    this.table = table;
    this.settings = settings;
    this.json = json;
  }

  /**
   * The query parameter {@code limit}: an integer in [1, 100], or {@code defaultLimit} when absent.
   */
  int limit(Context ctx, int defaultLimit) {
    String limitParam = ctx.queryParam("limit");
    int limit = defaultLimit;
    if (limitParam != null) {
      try {
        limit = Integer.parseInt(limitParam);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > 100) {
        throw new Problem(
            400,
            "invalid-parameter",
            "Invalid query parameter",
            "limit must be an integer in [1, 100], not '" + Problem.clipped(limitParam) + "'");
      }
    }
    return limit;
  }

  /** A query flag: absent or {@code false} is false, {@code true} true, anything else a 400. */
  static boolean flag(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw new Problem(
        400,
        "invalid-parameter",
        "Invalid query parameter",
        name + " must be true or false, not '" + Problem.clipped(value) + "'");
  }

  /**
   * The records of the body (one JSON object or an array of them), each validated.
   *
   * @param arrayAllowed false where one record only is taken (explain)
   */
  Body records(Context ctx, boolean idRequired, boolean arrayAllowed) throws IOException {
    long declared = ctx.req().getContentLengthLong();
    if (declared > settings.maxBodyBytes()) {
      throw DedupService.bodyTooLarge(declared + " bytes", settings.maxBodyBytes());
    }
    try (InputStream in =
            new RequestBody(
                ctx.req().getInputStream(),
                settings.maxBodyBytes(),
                settings.minBodyBytesPerSecond());
        JsonParser parser = json.getFactory().createParser(in)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new Problem(
            400,
            "invalid-json",
            "Invalid JSON",
            "the body is empty: send one record or an array of them");
      }
      long now = System.currentTimeMillis();
      List<Deduplicator.Record> records = new ArrayList<>();
      boolean array = first == JsonToken.START_ARRAY;
      if (array && !arrayAllowed) {
        throw new Problem(
            400, "invalid-record", "Invalid record", "explain takes one record (a JSON object)");
      }
      if (array) {
        for (JsonToken token = parser.nextToken();
            token != JsonToken.END_ARRAY;
            token = parser.nextToken()) {
          if (records.size() == settings.maxRecords()) {
            throw new Problem(
                413,
                "too-many-records",
                "Too many records",
                "the array has more than "
                    + settings.maxRecords()
                    + " records; at most "
                    + settings.maxRecords()
                    + " per request (serve --max-records)");
          }
          records.add(record(parser, "record " + records.size() + ": ", idRequired, now));
        }
      } else {
        records.add(record(parser, "", idRequired, now));
      }
      if (parser.nextToken() != null) {
        throw new Problem(
            400,
            "invalid-json",
            "Invalid JSON",
            "more after the "
                + (array ? "array" : "record")
                + where(parser)
                + ": send one record or one array");
      }
      return new Body(records, array);
    } catch (JsonProcessingException e) {
      throw new Problem(
          400,
          "invalid-json",
          "Invalid JSON",
          Problem.oneLine(e.getOriginalMessage())
              + (e.getLocation() == null
                  ? ""
                  : " at line "
                      + e.getLocation().getLineNr()
                      + ", column "
                      + e.getLocation().getColumnNr()));
    }
  }

  private static String where(JsonParser parser) {
    return " at line "
        + parser.currentTokenLocation().getLineNr()
        + ", column "
        + parser.currentTokenLocation().getColumnNr();
  }

  /** The record whose first token the parser is at, validated. */
  private Deduplicator.Record record(JsonParser parser, String where, boolean idRequired, long now)
      throws IOException {
    long start = parser.currentTokenLocation().getByteOffset();
    JsonNode node = json.readTree(parser);
    long bytes = parser.currentLocation().getByteOffset() - start;
    if (bytes > settings.maxRecordBytes()) {
      throw new Problem(
          413,
          "record-too-large",
          "Record too large",
          where
              + "the record has "
              + bytes
              + " bytes of JSON; at most "
              + settings.maxRecordBytes()
              + " (serve --max-record-bytes)");
    }
    try {
      return RecordJson.parse(node, table, idRequired, now);
    } catch (IllegalArgumentException e) {
      String type =
          node != null && node.isObject() && node.get(table.idColumn()) == null
              ? "missing-id"
              : "invalid-record";
      throw new Problem(
          400,
          type,
          type.equals("missing-id") ? "Record without an id" : "Invalid record",
          where + Problem.oneLine(e.getMessage()));
    }
  }
}
