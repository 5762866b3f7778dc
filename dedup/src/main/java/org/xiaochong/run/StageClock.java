package org.xiaochong.run;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wall seconds of a run's stages ("index", "exact", "near_index", "plan", "apply", "total"), in
 * the order they ended, and where each began and ended on {@link System#nanoTime}'s clock, for a
 * listener that profiles them (the bench's CPU per stage).
 */
public final class StageClock {
  /** Told of each stage as it ends. */
  public interface Listener {
    Listener NONE = (stage, startNanos, endNanos) -> {};

    void ended(String stage, long startNanos, long endNanos);
  }

  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private final Listener listener;

  public StageClock() {
    this(Listener.NONE);
  }

  public StageClock(Listener listener) {
    this.listener = listener;
  }

  /** Stage {@code stage} began at {@code startNanos} and ends now. */
  public void ended(String stage, long startNanos) {
    ended(stage, startNanos, System.nanoTime());
  }

  /** Stage {@code stage} ran from {@code startNanos} to {@code endNanos}. */
  public void ended(String stage, long startNanos, long endNanos) {
    seconds.put(stage, seconds(startNanos, endNanos));
    listener.ended(stage, startNanos, endNanos);
  }

  /** Seconds per stage so far, in the order they ended. */
  public Map<String, Double> seconds() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(seconds));
  }

  private static double seconds(long startNanos, long endNanos) {
    return Math.round((endNanos - startNanos) / 1e6) / 1e3;
  }
}
