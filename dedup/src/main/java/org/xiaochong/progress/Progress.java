package org.xiaochong.progress;

import java.util.function.LongConsumer;

/** Reports the progress of long stages (a progress bar on a terminal, nothing otherwise). */
public interface Progress {
  Progress NONE =
      (task, total) ->
          new Stage() {
            @Override
            public void accept(long n) {}

            @Override
            public void close() {}
          };

  /** A running stage: accept the number of items just done; close when finished. */
  interface Stage extends LongConsumer, AutoCloseable {
    @Override
    void close();
  }

  /** Starts a stage of {@code total} items (-1 when unknown). */
  Stage start(String task, long total);
}
