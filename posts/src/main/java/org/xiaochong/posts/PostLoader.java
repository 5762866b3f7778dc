package org.xiaochong.posts;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.xiaochong.source.Database;

/**
 * Loads generated posts into a fresh {@code supply_demand} table (schema from sql/schema.sql) and
 * writes the ground truth ({@code id,cluster,kind}) beside. Not thread-safe.
 */
public final class PostLoader {
  private static final int BATCH = 2000;

  private PostLoader() {}

  /**
   * Drops and recreates {@code supply_demand} and its archive. Only for demo and bench databases.
   */
  public static void recreateTable(Database database) {
    database
        .jdbi()
        .useHandle(
            h -> {
              h.execute("DROP TABLE IF EXISTS supply_demand");
              h.execute("DROP TABLE IF EXISTS supply_demand_removed");
              h.execute("DROP TABLE IF EXISTS dedup_plan");
              h.execute("DROP TABLE IF EXISTS dedup_run");
            });
    database.runScript("/sql/schema.sql");
  }

  /**
   * Recreates the table ({@link #recreateTable}) and loads {@code records} posts of {@code new
   * PostGenerator(seed, records)}: the fresh generated table of the demo, the bench and the tests.
   *
   * @return the number of rows inserted
   */
  public static long reload(
      Database database,
      long seed,
      long records,
      Path truthFile,
      LongConsumer progress,
      java.util.function.Consumer<PostGenerator.Post> also) {
    return reload(
        database, seed, records, PostGenerator.Vocabulary.LEGACY, truthFile, progress, also);
  }

  /**
   * {@link #reload(Database, long, long, Path, LongConsumer, java.util.function.Consumer)} in
   * {@code vocabulary}.
   */
  public static long reload(
      Database database,
      long seed,
      long records,
      PostGenerator.Vocabulary vocabulary,
      Path truthFile,
      LongConsumer progress,
      java.util.function.Consumer<PostGenerator.Post> also) {
    recreateTable(database);
    return load(
        database,
        new PostGenerator(seed, records, PostGenerator.DEFAULT_EXACT_SHARE, vocabulary),
        records,
        truthFile,
        progress,
        also);
  }

  /**
   * Generates {@code records} posts and inserts them with their explicit ids.
   *
   * @param truthFile where to write {@code id,cluster,kind} lines (null: don't)
   * @return the number of rows inserted
   */
  static long load(
      Database database,
      PostGenerator generator,
      long records,
      Path truthFile,
      LongConsumer progress,
      java.util.function.Consumer<PostGenerator.Post> also) {
    try (Handle handle = database.jdbi().open();
        BufferedWriter truth =
            truthFile == null ? null : Files.newBufferedWriter(truthFile, StandardCharsets.UTF_8)) {
      if (truth != null) {
        truth.write("id,cluster,kind\n");
      }
      PreparedBatch batch =
          handle.prepareBatch(
              "INSERT INTO supply_demand (id, title, category, product, region, price, contact, phone, content, reg_time)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      long[] count = {0};
      generator.generate(
          records,
          post -> {
            batch
                .bind(0, post.id())
                .bind(1, post.title())
                .bind(2, post.category())
                .bind(3, post.product())
                .bind(4, post.region())
                .bind(5, post.price())
                .bind(6, post.contact())
                .bind(7, post.phone())
                .bind(8, post.content())
                .bind(9, post.regTime())
                .add();
            if (truth != null) {
              try {
                truth.write(post.id() + "," + post.cluster() + "," + post.kind() + "\n");
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
            also.accept(post);
            count[0]++;
            if (batch.size() == BATCH) {
              batch.execute();
              progress.accept(BATCH);
            }
          });
      if (batch.size() > 0) {
        int n = batch.size();
        batch.execute();
        progress.accept(n);
      }
      return count[0];
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
