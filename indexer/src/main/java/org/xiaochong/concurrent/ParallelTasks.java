package org.xiaochong.concurrent;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a fixed set of tasks on their own daemon threads and waits for them: the index sync's slices
 * and the apply's workers. Results come back in task order; the first failure (in task order) is
 * rethrown as it is when unchecked, and every task still running is then interrupted, so a failed
 * run does not wait for the others to finish their work.
 */
public final class ParallelTasks {
  private ParallelTasks() {}

  /**
   * @param threads threads to run them on (at most the number of tasks is useful)
   * @param threadName the threads' name, as seen in a thread dump
   * @param what what the tasks do, for the messages ("indexing", "applying run 7")
   */
  public static <T> List<T> runAll(
      List<Callable<T>> tasks, int threads, String threadName, String what) {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.max(1, threads),
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<T>> futures = new ArrayList<>(tasks.size());
      for (Callable<T> task : tasks) {
        futures.add(pool.submit(task));
      }
      List<T> results = new ArrayList<>(tasks.size());
      for (Future<T> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + what, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
