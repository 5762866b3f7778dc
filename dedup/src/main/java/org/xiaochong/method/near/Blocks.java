package org.xiaochong.method.near;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Work over the positions {@code [0, n)} in blocks on a pool, with each block's result handed on in
 * block order by the calling thread: the results are the same for any number of workers, and at
 * most a few blocks per worker are held at once.
 */
final class Blocks {
  private Blocks() {}

  /** The work of one block of positions {@code [from, to)}. */
  @FunctionalInterface
  interface Work<T> {
    T run(int from, int to) throws Exception;
  }

  /** What is done with one block's result, in block order, on the calling thread. */
  @FunctionalInterface
  interface Use<T> {
    void accept(int from, T result);
  }

  static <T> void inOrder(
      ExecutorService pool, int workers, int n, int blockSize, Work<T> work, Use<T> use) {
    ArrayDeque<Future<T>> pending = new ArrayDeque<>();
    ArrayDeque<Integer> starts = new ArrayDeque<>();
    int next = 0;
    int ahead = Math.max(2, 3 * workers);
    try {
      while (next < n || !pending.isEmpty()) {
        while (next < n && pending.size() < ahead) {
          int from = next;
          int to = Math.min(n, from + blockSize);
          pending.add(pool.submit(() -> work.run(from, to)));
          starts.add(from);
          next = to;
        }
        use.accept(starts.poll(), pending.poll().get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      if (cause instanceof java.io.IOException io) {
        throw new java.io.UncheckedIOException(io);
      }
      throw new IllegalStateException(cause);
    } finally {
      pending.forEach(future -> future.cancel(true));
    }
  }
}
