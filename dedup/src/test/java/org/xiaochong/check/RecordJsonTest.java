package org.xiaochong.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.RecordSource;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

class RecordJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TableSpec TABLE =
      new TableSpec(
          "posts",
          "id",
          "reg_time",
          List.of("title"),
          List.of(),
          Map.of("fields.near", List.of("title")));
  private static final long NOW = 1_700_000_000_000L;

  private static Deduplicator.Record parse(String json, boolean idRequired) throws Exception {
    return RecordJson.parse(JSON.readTree(json), TABLE, idRequired, NOW);
  }

  @Test
  void parse_theTimeColumn_isItsTimeNullIsTheOldestAndMissingIsNow() throws Exception {
    assertThat(
            parse("{\"id\": 7, \"title\": \"苹果\", \"reg_time\": \"2024-05-01 08:30:00\"}", true)
                .time())
        .isEqualTo(RecordSource.toMillis(LocalDateTime.of(2024, 5, 1, 8, 30)));
    assertThat(parse("{\"id\": 7, \"reg_time\": \"2024-05-01\"}", true).time())
        .isEqualTo(RecordSource.toMillis(LocalDateTime.of(2024, 5, 1, 0, 0)));
    assertThat(parse("{\"id\": 7, \"reg_time\": null}", true).time())
        .isEqualTo(SourceRecord.NULL_TIME);
    assertThat(parse("{\"id\": 7}", true).time()).isEqualTo(NOW);
  }

  @Test
  void parse_valuesAreTextAndNullStaysNull() throws Exception {
    Deduplicator.Record record = parse("{\"id\": 7, \"title\": null, \"price\": 2.5}", true);
    assertThat(record.id()).isEqualTo(7L);
    assertThat(record.fields()).containsEntry("title", null).containsEntry("price", "2.5");
  }

  @Test
  void parse_badInput_namesTheProblem() {
    assertThatThrownBy(() -> parse("{\"title\": \"苹果\"}", true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the record has no id column 'id'");
    assertThatThrownBy(() -> parse("{\"id\": 5.7}", false))
        .hasMessageContaining("integer JSON number");
    assertThatThrownBy(() -> parse("{\"id\": \"5\"}", false))
        .hasMessageContaining("integer JSON number");
    assertThatThrownBy(() -> parse("[1, 2]", false))
        .hasMessageContaining("JSON object")
        .hasMessageContaining("array");
    assertThatThrownBy(() -> parse("{\"id\": 1, \"reg_time\": \"yesterday\"}", false))
        .hasMessageContaining("reg_time 'yesterday' is not a time");
  }

  @Test
  void parse_withoutIdWhenNotRequired_isARecordWithoutId() throws Exception {
    assertThat(parse("{\"title\": \"苹果\"}", false).id()).isNull();
  }
}
