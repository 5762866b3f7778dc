package org.xiaochong.index;

import org.apache.lucene.document.Document;
import org.xiaochong.source.SourceRecord;

/**
 * Turns a source record into its index document (fingerprints included). Implementations may keep
 * per-thread state (a MessageDigest, an analyzer): {@link IndexSync} makes one per worker thread.
 */
public interface DocumentMaker {
  Document make(SourceRecord record);
}
