package org.xiaochong.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.xiaochong.progress.Progress;

/** Progress bars on stderr, only when it is a terminal (never in CI logs or pipes). */
public final class ConsoleProgress implements Progress {
  public static Progress forThisProcess() {
    boolean terminal = System.console() != null && System.getenv("CI") == null;
    return terminal ? new ConsoleProgress() : Progress.NONE;
  }

  @Override
  public Stage start(String task, long total) {
    ProgressBar bar =
        new ProgressBarBuilder()
            .setTaskName(task)
            .setInitialMax(total)
            .setStyle(ProgressBarStyle.ASCII)
            .setUpdateIntervalMillis(250)
            .continuousUpdate()
            .build();
    return new Stage() {
      @Override
      public void accept(long n) {
        bar.stepBy(n);
      }

      @Override
      public void close() {
        bar.close();
      }
    };
  }
}
