package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input through the CLI: exit code 2, one line on stderr naming the problem, and the table as
 * it was (every call uses --apply, so a bug that deleted anyway would show).
 */
@Tag("db")
class BadInputIT extends DbTestSupport {
  private static final String TABLE = "bad_input_posts";
  private static final String PASSWORD = "S3cretPw!";

  @TempDir Path dir;
  private Path indexDir;

  @BeforeEach
  void createTableWithDuplicates() {
    createPostsTable(TABLE);
    insert(TABLE, 1, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", LocalDateTime.of(2024, 5, 1, 8, 0));
    insert(TABLE, 2, "供应红富士苹果", "苹果", "13800138000", "本人有苹果。", LocalDateTime.of(2024, 6, 1, 8, 0));
    insert(TABLE, 3, "求购脐橙", "脐橙", "13900139000", "长期求购。", LocalDateTime.of(2024, 6, 2, 8, 0));
    indexDir = dir.resolve("index");
  }

  private CliRun runApply(Map<String, String> extra, String... moreArgs) {
    Path config = writeConfig(dir, TABLE, indexDir, extra);
    String[] args = new String[4 + moreArgs.length];
    args[0] = "run";
    args[1] = "--config";
    args[2] = config.toString();
    args[3] = "--apply";
    System.arraycopy(moreArgs, 0, args, 4, moreArgs.length);
    return cli(args);
  }

  private static void assertRejected(CliRun run, String... mentions) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.errLines())
        .as("stderr")
        .singleElement()
        .asString()
        .startsWith("dedup: ")
        .contains(mentions);
    assertThat(count(TABLE)).isEqualTo(3);
    assertThat(tableExists(TABLE + "_removed")).as("nothing archived").isFalse();
  }

  @Test
  void run_unknownConfigKeyTypo_suggestsKnownKey() {
    assertRejected(
        runApply(Map.of("fileds.exact", "title")), "fileds.exact", "did you mean 'fields.exact'");
  }

  @Test
  void run_missingTable_namesTable() {
    assertRejected(runApply(Map.of("source.table", "nope")), "nope", "does not exist");
  }

  @Test
  void run_missingColumn_namesColumn() {
    assertRejected(
        runApply(Map.of("fields.exact", "title,nope", "fields.phone", "")),
        "'nope'",
        "fields.exact",
        TABLE);
  }

  @Test
  void run_invalidIdentifier_rejectedBeforeAnySql() {
    assertRejected(
        runApply(Map.of("source.table", "x; DROP TABLE " + TABLE)),
        "source.table",
        "not a valid SQL identifier");
    assertThat(tableExists(TABLE)).isTrue();
  }

  @Test
  void run_wrongPassword_namesUrlAndUser() {
    assertRejected(
        runApply(Map.of("db.password", PASSWORD)),
        "cannot connect to " + jdbcUrl(),
        "'root'",
        "Access denied");
  }

  @Test
  void run_unreachableServer_namesUrlAndUser() {
    assertRejected(
        runApply(Map.of("db.url", "jdbc:mysql://127.0.0.1:1/xiaochong", "db.user", "nobody")),
        "cannot connect to jdbc:mysql://127.0.0.1:1/xiaochong",
        "'nobody'");
  }

  /** Neither the right password (a run that works) nor a wrong one shows in any output. */
  @Test
  void run_passwordSet_neverPrintedEvenVerbose() {
    String rightPassword = database().jdbcSettings().password();
    CliRun ok = runApply(Map.of(), "--verbose");
    CliRun missingTable = runApply(Map.of("source.table", "nope"), "--verbose");
    CliRun wrongPassword = runApply(Map.of("db.password", PASSWORD), "--verbose");
    CliRun unreachable =
        runApply(
            Map.of("db.password", PASSWORD, "db.url", "jdbc:mysql://127.0.0.1:1/xiaochong"),
            "--verbose");
    CliRun badUrl =
        runApply(
            Map.of(
                "db.password",
                PASSWORD,
                "db.url",
                "jdbc:mysql://127.0.0.1:1/x?password=" + PASSWORD),
            "--verbose");

    assertThat(ok.exitCode()).as(ok.err()).isZero();
    assertThat(missingTable.exitCode()).isEqualTo(2);
    assertThat(wrongPassword.exitCode()).isEqualTo(2);
    assertThat(unreachable.exitCode()).isEqualTo(2);
    assertThat(badUrl.exitCode()).isEqualTo(2);
    assertThat(unreachable.err())
        .contains("at org.xiaochong"); // --verbose did print the stack trace
    for (CliRun run : new CliRun[] {ok, missingTable, wrongPassword, unreachable, badUrl}) {
      assertThat(run.out())
          .doesNotContain(PASSWORD)
          .doesNotContain("S3cret")
          .doesNotContain(rightPassword);
      assertThat(run.err())
          .doesNotContain(PASSWORD)
          .doesNotContain("S3cret")
          .doesNotContain(rightPassword);
    }
  }

  @Test
  void run_mariadbUrl_connectsThroughConnectorJ() {
    CliRun run = runApply(Map.of("db.url", jdbcUrl().replace("jdbc:mysql:", "jdbc:mariadb:")));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(ids(TABLE)).containsExactly(2L, 3L);
  }

  @Test
  void run_passwordInUrlUserInfo_refusedWithoutPrintingIt() {
    for (String scheme : List.of("jdbc:mysql:", "jdbc:mariadb:")) {
      String url = scheme + "//root:" + PASSWORD + "@127.0.0.1:1/xiaochong";
      assertRejected(runApply(Map.of("db.url", url)), "db.url", "password");
      CliRun verbose = runApply(Map.of("db.url", url), "--verbose");
      assertThat(verbose.out() + verbose.err()).doesNotContain("S3cret");
    }
  }

  @Test
  void run_indexDirUnderRegularFile_namesIndexDir() throws IOException {
    Path file = Files.writeString(dir.resolve("plain-file"), "x");
    indexDir = file.resolve("index");
    assertRejected(runApply(Map.of()), "index.dir", "plain-file");
  }

  @Test
  void run_sinceAfterUntil_namesBothEnds() {
    assertRejected(
        runApply(Map.of(), "--since", "2025-01-01", "--until", "2024-01-01"), "--since", "--until");
  }

  @Test
  void run_unparsableTime_exitCode2() {
    CliRun run = runApply(Map.of(), "--since", "yesterday");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).contains("yesterday");
    assertThat(count(TABLE)).isEqualTo(3);
  }

  @Test
  void run_unknownOption_exitCode2() {
    CliRun run = runApply(Map.of(), "--aply");
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).contains("--aply");
    assertThat(count(TABLE)).isEqualTo(3);
  }

  @Test
  void restore_missingRunOption_exitCode2() {
    CliRun run = cli("restore", "--config", writeConfig(dir, TABLE, indexDir, Map.of()).toString());
    assertThat(run.exitCode()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).contains("--run");
  }
}
