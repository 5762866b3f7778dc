package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.config.DedupConfig;
import org.xiaochong.method.linkage.LinkageExplain;

/**
 * {@code run --method linkage} on a table of people, as the febrl sets are made: 400 people and 120
 * later copies, each with a typo in the surname, two digits of the birth date swapped or written in
 * another format, and the phone written another way. The kinds are inferred and printed; a column
 * empty in most rows and one of a single repeated value each get a line; the copies are found, the
 * latest of each pair kept, and no two people merged.
 */
@Tag("db")
class LinkageMethodIT extends DbTestSupport {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "linkage_people";
  private static final List<String> GIVEN =
      List.of(
          "james",
          "mary",
          "robert",
          "patricia",
          "john",
          "jennifer",
          "michael",
          "linda",
          "david",
          "elizabeth",
          "william",
          "barbara",
          "richard",
          "susan",
          "joseph",
          "jessica",
          "thomas",
          "sarah",
          "charles",
          "karen",
          "wei",
          "fang",
          "lei",
          "jing",
          "min");
  private static final List<String> SURNAMES =
      List.of(
          "smith",
          "johnson",
          "williams",
          "brown",
          "jones",
          "garcia",
          "miller",
          "davis",
          "rodriguez",
          "martinez",
          "hernandez",
          "lopez",
          "gonzalez",
          "wilson",
          "anderson",
          "thomas",
          "taylor",
          "moore",
          "jackson",
          "martin",
          "wang",
          "li",
          "zhang",
          "liu",
          "chen");
  private static final LocalDateTime T0 = LocalDateTime.of(2024, 3, 1, 8, 0);

  @TempDir Path dir;

  @Test
  void findsTheTypedCopiesKeepsTheLatestAndMergesNoTwoPeople() throws IOException {
    useHandle(
        h -> {
          h.execute("DROP TABLE IF EXISTS " + TABLE);
          h.execute("DROP TABLE IF EXISTS " + TABLE + "_removed");
          h.execute(
              "CREATE TABLE "
                  + TABLE
                  + " (id BIGINT PRIMARY KEY, given_name VARCHAR(40), surname VARCHAR(40),"
                  + " date_of_birth VARCHAR(20), postcode VARCHAR(10), phone VARCHAR(30),"
                  + " fax VARCHAR(30), source VARCHAR(10), reg_time DATETIME) ENGINE=InnoDB");
        });
    SplittableRandom random = new SplittableRandom(1969);
    Map<Long, Long> copyOf = new HashMap<>();
    long id = 0;
    String[][] people = new String[400][];
    for (int p = 0; p < people.length; p++) {
      people[p] =
          new String[] {
            GIVEN.get(random.nextInt(GIVEN.size())),
            SURNAMES.get(random.nextInt(SURNAMES.size())),
            String.format(
                "19%02d%02d%02d",
                40 + random.nextInt(60), 1 + random.nextInt(12), 1 + random.nextInt(28)),
            String.valueOf(2000 + random.nextInt(7000)),
            String.format("0%d%07d", 2 + random.nextInt(7), random.nextInt(10_000_000))
          };
      insert(++id, people[p], p % 10 == 0 ? "fax" + p : null, T0.plusMinutes(p));
    }
    for (int p = 0; p < 120; p++) {
      String[] copy = people[p].clone();
      copy[1] = typo(copy[1], random);
      String dob = copy[2];
      copy[2] =
          p % 2 == 0
              ? dob.substring(0, 6) + dob.charAt(7) + dob.charAt(6)
              : dob.substring(0, 4) + "-" + dob.substring(4, 6) + "-" + dob.substring(6);
      copy[4] =
          "("
              + copy[4].substring(0, 2)
              + ") "
              + copy[4].substring(2, 6)
              + "-"
              + copy[4].substring(6);
      insert(++id, copy, null, T0.plusDays(1).plusMinutes(p));
      copyOf.put((long) p + 1, id);
    }
    Path config =
        writeConfig(
            dir,
            TABLE,
            dir.resolve("index"),
            Map.of(
                "fields.exact", "given_name,surname,date_of_birth,postcode,phone,fax,source",
                "fields.near", "given_name,surname"));
    Path report = dir.resolve("report");
    CliRun run =
        cli(
            "run",
            "--config",
            config.toString(),
            "--method",
            "linkage",
            "--report",
            report.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    String output = run.out() + run.err();
    assertThat(output)
        .contains("surname: name")
        .contains("date_of_birth: date")
        .contains("phone: phone")
        .contains("column fax is empty in 92 %")
        .contains("column source holds one value in 100 %");

    int found = 0;
    int wrong = 0;
    long[] linked = null;
    for (String line :
        Files.readAllLines(report.resolve("decisions.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode decision = JSON.readTree(line);
      long removed = decision.get("removed_id").asLong();
      long kept = decision.get("kept_id").asLong();
      if (copyOf.get(removed) != null && copyOf.get(removed) == kept) {
        found++;
        linked = new long[] {removed, kept};
      } else {
        wrong++;
      }
      assertThat(decision.get("rule").asText()).isEqualTo("linkage");
      assertThat(decision.get("score").asDouble()).isGreaterThanOrEqualTo(0.5);
    }
    assertThat(wrong).as("people merged with another person").isZero();
    assertThat(found).as("typed copies found, of 120").isGreaterThanOrEqualTo(114);
    // Each review pair has its match-weight chart: the prior, a row per column, the probability.
    String html = Files.readString(report.resolve("report.html"), StandardCharsets.UTF_8);
    int pairs = html.split("<article class=\"pair\">", -1).length - 1;
    assertThat(pairs).isPositive();
    assertThat(html.split("<table class=\"weights\">", -1)).hasSize(pairs + 1);
    assertThat(html)
        .contains("<tr><td>prior</td>")
        .containsPattern("<tr><td>surname</td><td>[^<]+</td>")
        .containsPattern("<tr><td>date_of_birth</td><td>[^<]+</td>")
        .containsPattern("match probability (0\\.9[5-9]|1\\.0)");
    // Why two records were not joined, as eval reports the true pairs a run lost.
    DedupConfig loaded = DedupConfig.load(config, Map.of());
    try (LinkageExplain explain =
        LinkageExplain.open(
                dir.resolve("index").resolve("linkage"), loaded.table(), loaded.methodSettings())
            .orElseThrow()) {
      assertThat(explain.reason(linked[0], linked[1])).isEqualTo("linked, grouped apart");
      assertThat(explain.reason(1, 999_999)).isEqualTo("not indexed");
      Map<String, Long> reasons = explain.reasons(List.of(new long[] {1, 2}, new long[] {3, 4}));
      assertThat(reasons.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2);
      assertThat(reasons.keySet())
          .allMatch(
              reason ->
                  reason.equals("not a candidate")
                      || reason.startsWith("probability below the threshold, most against: "));
    }
    // The model was saved with the index and is reused as it is by the next run.
    Path model = dir.resolve("index").resolve("linkage").resolve("linkage-model.json");
    String saved = Files.readString(model);
    CliRun again = cli("run", "--config", config.toString(), "--method", "linkage");
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(Files.readString(model)).isEqualTo(saved);
  }

  private static String typo(String word, SplittableRandom random) {
    int at = 1 + random.nextInt(word.length() - 1);
    char replacement = (char) ('a' + (word.charAt(at) - 'a' + 1 + random.nextInt(24)) % 26);
    return word.substring(0, at) + replacement + word.substring(at + 1);
  }

  private static void insert(long id, String[] person, String fax, LocalDateTime time) {
    useHandle(
        h ->
            h.createUpdate(
                    "INSERT INTO "
                        + TABLE
                        + " (id, given_name, surname, date_of_birth, postcode, phone, fax, source,"
                        + " reg_time) VALUES (?, ?, ?, ?, ?, ?, ?, 'crawl', ?)")
                .bind(0, id)
                .bind(1, person[0])
                .bind(2, person[1])
                .bind(3, person[2])
                .bind(4, person[3])
                .bind(5, person[4])
                .bind(6, fax)
                .bind(7, time)
                .execute());
  }
}
