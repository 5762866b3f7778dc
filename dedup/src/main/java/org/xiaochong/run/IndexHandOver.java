package org.xiaochong.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.lucene.store.LockObtainFailedException;
import org.xiaochong.index.FingerprintIndex;
import org.xiaochong.source.BadInputException;

/**
 * How a run gets the indexes' write lock from a {@code dedup serve} that holds it for its adds,
 * instead of stopping with "in use": the run leaves a request file in the index folder ({@link
 * #FILE}, its process id inside) and waits; the service looks for it every second, commits what it
 * added, gives the lock back and takes no writer while the file is there; the run, once it holds
 * the lock, deletes the file. The service then logs the adds it takes (durable, answered as ever)
 * and adds them to the index when the run is done and the lock is free again.
 *
 * <p>Neither side can wedge the other: the request names a live process or is ignored (a run killed
 * while waiting), and a run that does not get the lock within its wait stops as before. Stateless.
 */
public final class IndexHandOver {
  /** The request file, in the index folder. */
  public static final String FILE = "hand-over.request";

  /** How long a run waits for a service to hand the index over. */
  public static final Duration WAIT = Duration.ofSeconds(60);

  private IndexHandOver() {}

  /**
   * Opens the index with {@code open}; when its write lock is held by another process, asks a
   * service holding it to hand it over and tries again every 100 ms for up to {@code wait}.
   *
   * @throws BadInputException the lock was not handed over within {@code wait} (the first failure,
   *     which says the index is in use)
   */
  public static FingerprintIndex open(
      Path indexDir, Supplier<FingerprintIndex> open, Duration wait, Consumer<String> notes) {
    try {
      return open.get();
    } catch (BadInputException busy) {
      if (!(busy.getCause() instanceof LockObtainFailedException)) {
        throw busy;
      }
      Path request = indexDir.resolve(FILE);
      try {
        Files.writeString(request, Long.toString(ProcessHandle.current().pid()));
      } catch (IOException e) {
        throw busy;
      }
      notes.accept(
          "index.dir "
              + indexDir
              + " is in use (a dedup serve adding?): asked it to hand the index over, waiting up"
              + " to "
              + wait.toSeconds()
              + " s");
      try {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
          try {
            Thread.sleep(100);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw busy;
          }
          try {
            return open.get();
          } catch (BadInputException again) {
            if (!(again.getCause() instanceof LockObtainFailedException)
                || System.nanoTime() > deadline) {
              throw again;
            }
          }
        }
      } finally {
        try {
          Files.deleteIfExists(request);
        } catch (IOException e) {
          // the service ignores a request whose process is gone
        }
      }
    }
  }

  /**
   * Whether a live process asks for the index's write lock. A request of a process that is gone is
   * deleted.
   */
  public static boolean requested(Path indexDir) {
    Path request = indexDir.resolve(FILE);
    if (!Files.exists(request)) {
      return false;
    }
    try {
      long pid = Long.parseLong(Files.readString(request, StandardCharsets.UTF_8).strip());
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        return true;
      }
      Files.deleteIfExists(request);
      return false;
    } catch (IOException | NumberFormatException e) {
      return Files.exists(request); // being written or deleted now: ask again next time
    }
  }
}
