package org.xiaochong.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.xiaochong.check.Deduplicator;
import org.xiaochong.check.RecordJson;
import org.xiaochong.source.TableSpec;

/**
 * Reads a request of {@link DedupService}: its query parameters, and its body read whole (at most
 * {@link DedupService.Settings#maxBodyBytes}), decoded as strict UTF-8 and parsed, with every
 * record of it validated before any is checked. Whatever is wrong is thrown as a 4xx {@link
 * Problem} naming it. Thread-safe.
 */
final class RequestReader {
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
            "limit must be an integer in [1, 100], not '" + limitParam + "'");
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
        name + " must be true or false, not '" + value + "'");
  }

  /** The body as JSON: at most maxBodyBytes, strict UTF-8, one JSON value. */
  JsonNode readJson(Context ctx) throws IOException {
    String text = decodeUtf8(readBody(ctx));
    if (text.isBlank()) {
      throw new Problem(
          400,
          "invalid-json",
          "Invalid JSON",
          "the body is empty: send one record or an array of them");
    }
    try {
      return json.readTree(text);
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null
              ? ""
              : " at line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr();
      throw new Problem(
          400, "invalid-json", "Invalid JSON", Problem.oneLine(e.getOriginalMessage()) + where);
    }
  }

  private byte[] readBody(Context ctx) throws IOException {
    long max = settings.maxBodyBytes();
    long declared = ctx.req().getContentLengthLong();
    if (declared > max) {
      throw tooLarge(declared + " bytes");
    }
    try (InputStream in = ctx.req().getInputStream()) {
      byte[] body = in.readNBytes((int) max + 1);
      if (body.length > max) {
        throw tooLarge("more than " + max + " bytes");
      }
      return body;
    }
  }

  private Problem tooLarge(String size) {
    return new Problem(
        413,
        "body-too-large",
        "Request body too large",
        "the body has "
            + size
            + "; at most "
            + settings.maxBodyBytes()
            + " are read (serve --max-body-bytes): send fewer records per request");
  }

  /**
   * Strict UTF-8: a malformed byte is a 400 naming its offset, never a replacement character in a
   * post.
   */
  private static String decodeUtf8(byte[] body) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    CharBuffer out = CharBuffer.allocate(body.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw new Problem(
          400,
          "invalid-utf8",
          "Body is not UTF-8",
          "the body is not valid UTF-8 at byte offset " + in.position() + ": send JSON in UTF-8");
    }
    return out.flip().toString();
  }

  /**
   * The records of a body (one object or an array of them), every one validated before any is
   * checked: a bad one fails the whole request, naming its place in the array and the problem.
   */
  List<Deduplicator.Record> records(JsonNode body, boolean idRequired) {
    List<JsonNode> nodes = new ArrayList<>();
    if (body.isArray()) {
      if (body.size() > settings.maxRecords()) {
        throw new Problem(
            413,
            "too-many-records",
            "Too many records",
            "the array has "
                + body.size()
                + " records; at most "
                + settings.maxRecords()
                + " per request (serve --max-records)");
      }
      body.forEach(nodes::add);
    } else {
      nodes.add(body);
    }
    long now = System.currentTimeMillis();
    List<Deduplicator.Record> records = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      JsonNode node = nodes.get(i);
      String where = body.isArray() ? "record " + i + ": " : "";
      long bytes = node.toString().getBytes(StandardCharsets.UTF_8).length;
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
        records.add(RecordJson.parse(node, table, idRequired, now));
      } catch (IllegalArgumentException e) {
        String type =
            node.isObject() && node.get(table.idColumn()) == null ? "missing-id" : "invalid-record";
        throw new Problem(
            400,
            type,
            type.equals("missing-id") ? "Record without an id" : "Invalid record",
            where + Problem.oneLine(e.getMessage()));
      }
    }
    return records;
  }
}
