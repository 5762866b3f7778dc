package org.xiaochong.urls;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class UrlsCommandTest {

  @TempDir Path dir;

  /** Exit code, stdout and stderr of one run. */
  record Run(int exitCode, String out, String err) {}

  static Run run(String stdin, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exitCode =
        new CommandLine(
                new UrlsCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8))))
            .setOut(new PrintWriter(out))
            .setErr(new PrintWriter(err))
            .execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  @Test
  void call_duplicatesInInput_printsUnseenOnlyCanonical() {
    Run run = run("http://a.example/x\nHTTP://A.example:80/x#top\n\nhttp://b.example\n");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("http://a.example/x\nhttp://b.example/\n");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void call_tag_tagsEveryLine() {
    Run run = run("http://a.example/\nhttp://a.example/\n", "--tag");
    assertThat(run.out()).isEqualTo("new\thttp://a.example/\nseen\thttp://a.example/\n");
  }

  @Test
  void call_inputFile_readsIt() throws IOException {
    Path input = dir.resolve("urls.txt");
    Files.writeString(input, "http://a.example/\n");
    assertThat(run("", input.toString()).out()).isEqualTo("http://a.example/\n");
  }

  @Test
  void call_stateAcrossTwoRuns_secondPrintsOnlyNew() {
    String state = dir.resolve("seen.bin").toString();
    assertThat(run("http://a.example/\nhttp://b.example/\n", "--state", state).out())
        .isEqualTo("http://a.example/\nhttp://b.example/\n");
    Run second = run("http://b.example/\nhttp://c.example/\n", "--state", state);
    assertThat(second.exitCode()).isZero();
    assertThat(second.out()).isEqualTo("http://c.example/\n");
  }

  @Test
  void call_sortQuery_collidesReorderedParameters() {
    String input = "http://a.example/?b=1&a=2\nhttp://a.example/?a=2&b=1\n";
    assertThat(run(input).out())
        .isEqualTo("http://a.example/?b=1&a=2\nhttp://a.example/?a=2&b=1\n");
    assertThat(run(input, "--sort-query").out()).isEqualTo("http://a.example/?a=2&b=1\n");
  }

  @Test
  void call_forget_urlIsNewAgain() {
    String state = dir.resolve("seen.bin").toString();
    run("http://a.example/\nhttp://b.example/\n", "--state", state, "--counting");
    Run forget =
        run("http://a.example/\nhttp://z.example/\n", "--state", state, "--forget", "--tag");
    assertThat(forget.exitCode()).isZero();
    assertThat(forget.out()).isEqualTo("forgotten\thttp://a.example/\nabsent\thttp://z.example/\n");
    assertThat(run("http://a.example/\nhttp://b.example/\n", "--state", state).out())
        .isEqualTo("http://a.example/\n");
  }

  @Test
  void call_forgetOnPlainState_usageError() {
    String state = dir.resolve("seen.bin").toString();
    run("http://a.example/\n", "--state", state);
    Run run = run("http://a.example/\n", "--state", state, "--forget");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("urls: --forget needs a counting filter").hasLineCount(1);
  }

  @Test
  void call_countingOnPlainState_usageError() {
    String state = dir.resolve("seen.bin").toString();
    run("http://a.example/\n", "--state", state);
    Run run = run("http://a.example/\n", "--state", state, "--counting");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("urls: --counting applies to a new state").hasLineCount(1);
  }

  @Test
  void call_forgetWithoutState_usageError() {
    Run run = run("http://a.example/\n", "--forget");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo("urls: --forget needs --state FILE holding a counting filter\n");
  }

  @Test
  void call_badHashes_usageErrorNamesRange() {
    Run run = run("http://a.example/\n", "--hashes", "0");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("urls: k (0) must be in [1, 64]\n");
  }

  @Test
  void call_unknownOption_exit2() {
    assertThat(run("", "--nope").exitCode()).isEqualTo(2);
  }

  @Test
  void call_corruptState_oneLineExit1() throws IOException {
    Path state = dir.resolve("seen.bin");
    run("http://a.example/\n", "--state", state.toString());
    byte[] bytes = Files.readAllBytes(state);
    Files.write(state, java.util.Arrays.copyOf(bytes, bytes.length - 3));
    Run run = run("http://a.example/\n", "--state", state.toString());
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("urls: prefilter file " + state + ": truncated")
        .hasLineCount(1);
  }

  @Test
  void call_notAUrlLine_reportedExit3() {
    Run run = run("http://a.example/\nhttp://\nhttp://b.example/\n");
    assertThat(run.exitCode()).isEqualTo(3);
    assertThat(run.out()).isEqualTo("http://a.example/\nhttp://b.example/\n");
    assertThat(run.err()).isEqualTo("urls: line 2: not a URL: http://\n");
  }
}
