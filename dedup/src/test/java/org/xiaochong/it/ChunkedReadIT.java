package org.xiaochong.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xiaochong.source.RecordSource;

/**
 * The table is read in short id-range chunks ({@link RecordSource#withChunkRows}): every row once,
 * in id order, and no statement holds the table's metadata lock for the whole read.
 */
@Tag("db")
class ChunkedReadIT extends DbTestSupport {
  private static final String TABLE = "chunked_read";

  /** Rows with ids 3, 6, 9, … 3n (sparse, so that chunks and id arithmetic differ). */
  private static void rows(int n, int contentChars) {
    createPostsTable(TABLE);
    useHandle(
        h ->
            h.execute(
                "INSERT INTO "
                    + TABLE
                    + " (id, title, category, product, region, price, contact,"
                    + " phone, content, reg_time) SELECT 3 * seq, CONCAT('供应苹果', seq), '供应', '苹果', '山东', '2元', '王',"
                    + " '13800138000', CONCAT('第', seq, '批', REPEAT('红富士苹果', "
                    + contentChars / 5
                    + ")),"
                    + " '2024-05-01 08:00:00' FROM seq_1_to_"
                    + n));
  }

  @Test
  void ranges_inChunksOfSevenRows_readEveryRowOnceInOrder() {
    rows(100, 10);
    RecordSource source = new RecordSource(database(), spec(TABLE)).withChunkRows(7);
    List<Long> expected = new ArrayList<>();
    for (long id = 3; id <= 300; id += 3) {
      expected.add(id);
    }

    List<Long> all = new ArrayList<>();
    source.forEachRecord(record -> all.add(record.id()));
    List<Long> included = new ArrayList<>();
    source.forEachIdInRange(30, 150, true, included::add);
    List<Long> excluded = new ArrayList<>();
    source.forEachRowStateInRange(30, 150, false, (id, time, crc) -> excluded.add(id));
    List<Long> records = new ArrayList<>();
    source.forEachRecordInRange(0, 301, record -> records.add(record.id()));

    assertThat(all).isEqualTo(expected);
    assertThat(included).isEqualTo(expected.subList(9, 50));
    assertThat(excluded).isEqualTo(expected.subList(9, 49));
    assertThat(records).isEqualTo(expected);
  }

  @Test
  void read_anAlterTableMeanwhile_goesThroughBetweenChunks() throws Exception {
    // 4,000 rows of 6 KB: far more than the socket buffers hold, so one statement over all of them
    // would stay open, holding the table's metadata lock, until the consumer has read nearly all.
    rows(4000, 2000);
    RecordSource source = new RecordSource(database(), spec(TABLE)).withChunkRows(400);
    AtomicInteger read = new AtomicInteger();
    CompletableFuture<Long>[] alterDone = new CompletableFuture[1];
    // Its own thread: the common pool may be busy with other tests' tasks.
    java.util.concurrent.ExecutorService alterer =
        java.util.concurrent.Executors.newSingleThreadExecutor();

    source.forEachRecord(
        record -> {
          if (read.incrementAndGet() == 600) {
            // A schema change while the read is under way: it needs the table's metadata lock.
            alterDone[0] =
                CompletableFuture.supplyAsync(
                    () -> {
                      useHandle(
                          h -> {
                            h.execute("SET SESSION lock_wait_timeout = 60");
                            h.execute("ALTER TABLE " + TABLE + " ADD COLUMN probe INT NULL");
                          });
                      return System.nanoTime();
                    },
                    alterer);
          }
          try {
            Thread.sleep(1); // a slow consumer: the read takes about 5 s
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    long readDone = System.nanoTime();

    assertThat(read.get()).isEqualTo(4000);
    long alterFinished = alterDone[0].get(60, TimeUnit.SECONDS);
    alterer.shutdown();
    assertThat(TimeUnit.NANOSECONDS.toMillis(readDone - alterFinished))
        .as("the ALTER finished this long before the read did")
        .isGreaterThan(1_000);
  }
}
