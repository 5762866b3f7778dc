package org.xiaochong.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.xiaochong.source.BadInputException;

/**
 * JSON lines: one object per line. The columns are the keys of the first object (or {@code columns}
 * when given); a later object with another key is an error naming its line, a missing key is NULL.
 * Strings as they are, numbers and booleans as their text, nested objects/arrays as JSON text.
 * Blank lines are skipped. A line longer than {@code maxLineBytes} is an error naming it (read
 * without being kept). Not thread-safe.
 */
public final class JsonLinesReader implements RowReader {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final LineReader in;
  private final List<String> header;
  private long recordLine;
  private JsonNode pending;

  public JsonLinesReader(Reader in, List<String> columns, long maxLineBytes) throws IOException {
    this.in = new LineReader(in, maxLineBytes);
    pending = readObject();
    if (columns != null && !columns.isEmpty()) {
      header = List.copyOf(columns);
    } else if (pending == null) {
      throw new BadInputException("the file is empty: no JSON object to take the columns from");
    } else {
      List<String> keys = new ArrayList<>();
      pending.fieldNames().forEachRemaining(keys::add);
      header = List.copyOf(keys);
    }
  }

  @Override
  public List<String> header() {
    return header;
  }

  @Override
  public String[] next() throws IOException {
    JsonNode node = pending != null ? pending : readObject();
    pending = null;
    if (node == null) {
      return null;
    }
    String[] values = new String[header.size()];
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      int at = header.indexOf(field.getKey());
      if (at < 0) {
        throw new BadInputException(
            "line "
                + recordLine
                + ": key '"
                + field.getKey()
                + "' is not one of the columns "
                + header);
      }
      JsonNode value = field.getValue();
      values[at] = value.isNull() ? null : value.isValueNode() ? value.asText() : value.toString();
    }
    return values;
  }

  private JsonNode readObject() throws IOException {
    String text;
    do {
      text = in.readLine();
      if (text == null) {
        return null;
      }
    } while (text.isBlank());
    long line = in.line();
    recordLine = line;
    if (line == 1 && text.startsWith("\uFEFF")) {
      text = text.substring(1);
    }
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new BadInputException("line " + line + ": not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new BadInputException("line " + line + ": not a JSON object");
    }
    return node;
  }

  @Override
  public long line() {
    return recordLine;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
