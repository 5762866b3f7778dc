package org.xiaochong.check;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The answers of the last adds by record id, so that an add tried again (its answer lost to a
 * timeout, a proxy's 502, a dropped connection) gets the first try's answer word for word, even
 * when a record that came in between would change it (a newer twin, which the next run keeps).
 *
 * <p>Only for the same record: one sent again under the same id with other columns or another time
 * is judged afresh (a 64-bit digest of its columns and time tells them apart). Bounded: the last
 * {@link #CAPACITY} adds (about 10 MB); an older retry, or one after a restart, is judged again,
 * and since a record never matches itself ({@link org.xiaochong.method.Excluded}) that gives the
 * first answer unless a twin arrived since. Not thread-safe: the {@link Deduplicator} uses it under
 * its lock.
 */
final class AnsweredAdds {
  /** Adds remembered: over a minute of adds at 1,500 a second. */
  static final int CAPACITY = 100_000;

  private record Answer(long digest, Deduplicator.Verdict verdict) {}

  private final Map<Long, Answer> answers =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Answer> eldest) {
          return size() > CAPACITY;
        }
      };

  /** The answer of an earlier add of this very record (same id, columns and time), or null. */
  Deduplicator.Verdict answerOf(Deduplicator.Record record) {
    Answer answer = answers.get(record.id());
    return answer != null && answer.digest() == digest(record) ? answer.verdict() : null;
  }

  /** Remembers the answer of an add of {@code record} (which has an id). */
  void answered(Deduplicator.Record record, Deduplicator.Verdict verdict) {
    answers.put(record.id(), new Answer(digest(record), verdict));
  }

  /** Forgets every answer: the index changed under them (a run reconciled it). */
  void clear() {
    answers.clear();
  }

  /** The first 64 bits of the MD5 of the record's time and columns (sorted by name). */
  private static long digest(Deduplicator.Record record) {
    MessageDigest md5;
    try {
      md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has MD5", e);
    }
    md5.update(ByteBuffer.allocate(Long.BYTES).putLong(record.time()).array());
    for (Map.Entry<String, String> column : new TreeMap<>(record.fields()).entrySet()) {
      md5.update(column.getKey().getBytes(StandardCharsets.UTF_8));
      md5.update((byte) 0);
      // NULL and "" differ: a marker byte before the value.
      md5.update(column.getValue() == null ? (byte) 0 : (byte) 1);
      if (column.getValue() != null) {
        md5.update(column.getValue().getBytes(StandardCharsets.UTF_8));
      }
      md5.update((byte) 0);
    }
    return ByteBuffer.wrap(md5.digest()).getLong();
  }
}
