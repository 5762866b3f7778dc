package org.xiaochong.method;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.LongFunction;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.bloom.CountingBloomFilter;
import org.xiaochong.bloom.FilterShape;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.prefilter.IndexKeyFilter;

/**
 * A method outside the prefilter package can bring a counting filter of its own keys: a kind with
 * its own file name, built from its index's doc values, following the index's changes, saved and
 * loaded like the built-in two.
 */
class OwnFilterKindTest {
  private static final String FIELD = "colour";

  /** A filter of one 16-byte key per record, read from the doc values of {@link #FIELD}. */
  static final class ColourFilter extends IndexKeyFilter {
    static final Kind<ColourFilter> KIND =
        new Kind<>("colour", true, ColourFilter::build, ColourFilter::new);

    private ColourFilter(CountingBloomFilter filter, int countersPerKey) {
      super(KIND, filter, countersPerKey);
    }

    private static CountingBloomFilter build(
        DirectoryReader reader, LongFunction<FilterShape> shapeForKeys) {
      CountingBloomFilter filter = new CountingBloomFilter(shapeForKeys.apply(reader.numDocs()));
      forEachValue(
          reader,
          FIELD,
          (bytes, offset, length) ->
              filter.put(Arrays.copyOfRange(bytes, offset, offset + length)));
      return filter;
    }

    @Override
    protected void followChange(
        DirectoryReader before, DirectoryReader after, long[] leftIds, long[] cameIds) {
      forEachValue(
          before,
          FIELD,
          leftIds,
          (bytes, offset, length) ->
              filter.remove(Arrays.copyOfRange(bytes, offset, offset + length)));
      forEachValue(
          after,
          FIELD,
          cameIds,
          (bytes, offset, length) ->
              filter.put(Arrays.copyOfRange(bytes, offset, offset + length)));
    }

    boolean mightHold(String colour) {
      return counted(filter.mightContain(key(colour)));
    }
  }

  private static byte[] key(String colour) {
    return Arrays.copyOf(colour.getBytes(StandardCharsets.UTF_8), 16);
  }

  private static Document record(long id, String colour) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    doc.add(new StringField("key", Long.toString(id), Field.Store.NO));
    doc.add(new BinaryDocValuesField(FIELD, new BytesRef(key(colour))));
    return doc;
  }

  @Test
  void ownKind_rebuildsFollowsAChangeAndLoadsItsSavedFile(@TempDir Path dir) throws IOException {
    try (FSDirectory directory = FSDirectory.open(dir.resolve("index"));
        IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
      writer.addDocument(record(1, "red"));
      writer.addDocument(record(2, "green"));
      writer.commit();
      try (DirectoryReader before = DirectoryReader.open(directory)) {
        ColourFilter filter = ColourFilter.KIND.rebuild(before, 20, 8);
        assertThat(filter.mightHold("red")).isTrue();
        assertThat(filter.mightHold("blue")).isFalse();

        writer.deleteDocuments(new Term("key", "1"));
        writer.addDocument(record(3, "blue"));
        writer.commit();
        try (DirectoryReader after = DirectoryReader.open(directory)) {
          filter.follow(before, after);
          assertThat(filter.mightHold("blue")).isTrue();
          assertThat(filter.mightHold("red")).isFalse();
          assertThat(filter.sameCounters(filter.rebuiltFrom(after))).isTrue();

          filter.save(dir, 7);
          ColourFilter loaded =
              ColourFilter.KIND.openOrRebuild(
                  dir,
                  7,
                  after,
                  20,
                  8,
                  note -> {
                    throw new AssertionError("rebuilt instead of loaded: " + note);
                  });
          assertThat(loaded.sameCounters(filter)).isTrue();
          assertThat(loaded.skipped()).isZero();
        }
      }
    }
  }
}
