package org.xiaochong.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The licence allow list of the parent POM at work: a project that inherits it fails to build when
 * it bundles a dependency whose licence is off the list. It runs the goal that module dist's build
 * runs, with the same configuration, so adding such a dependency to xiaochong fails {@code ./mvnw
 * verify} the same way (that dist's own build passes shows the other side: every licence it bundles
 * is on the list).
 */
class LicenceAllowListIT {
  private static final Path ROOT = Path.of(System.getProperty("xiaochong.root", ".."));
  private static final String VERSION = System.getProperty("xiaochong.version");

  @TempDir Path project;

  @Test
  void aDependencyUnderALicenceOffTheList_failsTheBuild_namingItAndItsLicence() throws Exception {
    // Its POM says "CDDL + GPLv2 with classpath exception", which the list does not hold.
    Result build = build("javax.annotation", "javax.annotation-api", "1.3.2");
    assertThat(build.exitCode()).as(build.output()).isNotZero();
    assertThat(build.output())
        .contains("There are some forbidden licenses used")
        .contains("CDDL + GPLv2 with classpath exception")
        .contains("javax.annotation:javax.annotation-api:1.3.2");
  }

  private record Result(int exitCode, String output) {}

  /**
   * Runs license-maven-plugin's add-third-party, configured by the parent POM, on a project that
   * depends on {@code group:artifact:version} alone.
   */
  private Result build(String group, String artifact, String version) throws Exception {
    Path pom = project.resolve("pom.xml");
    Files.writeString(
        pom,
        """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <parent>
            <groupId>org.xiaochong</groupId><artifactId>xiaochong-parent</artifactId><version>%s</version>
            <relativePath>%s</relativePath>
          </parent>
          <artifactId>licence-allow-list-check</artifactId>
          <packaging>pom</packaging>
          <dependencies>
            <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>
          </dependencies>
        </project>
        """
            .formatted(
                VERSION,
                // Maven reads relativePath against the project's folder, even an absolute one.
                project.relativize(ROOT.resolve("pom.xml").toAbsolutePath().normalize()),
                group,
                artifact,
                version));
    List<String> command =
        List.of(
            ROOT.resolve("mvnw").toAbsolutePath().normalize().toString(),
            "-B",
            "-ntp",
            "-f",
            pom.toString(),
            "org.codehaus.mojo:license-maven-plugin:add-third-party");
    Process process =
        new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(300, TimeUnit.SECONDS)).as("the build finished").isTrue();
    return new Result(process.exitValue(), out);
  }
}
