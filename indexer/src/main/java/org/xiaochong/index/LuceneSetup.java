package org.xiaochong.index;

import java.util.logging.Level;
import java.util.logging.Logger;

/** What the command-line programs set before Lucene starts. Thread-safe. */
public final class LuceneSetup {
  /** Held: java.util.logging keeps only weak references to its loggers. */
  private static final Logger VECTORIZATION =
      Logger.getLogger("org.apache.lucene.internal.vectorization");

  private LuceneSetup() {}

  /**
   * Keeps off stderr Lucene's two-line note, at every start, that the Vector API incubator module
   * is not enabled. Enabling it would print the JVM's own warning at every start instead, and the
   * indexes hold no vectors. Call before Lucene is first used.
   */
  public static void quietVectorizationNote() {
    VECTORIZATION.setLevel(Level.SEVERE);
  }
}
