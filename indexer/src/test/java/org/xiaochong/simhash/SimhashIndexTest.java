package org.xiaochong.simhash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

class SimhashIndexTest {

  /** Flips {@code bits} distinct random bits of {@code value}. */
  static long flip(long value, int bits, SplittableRandom random) {
    long result = value;
    while (Long.bitCount(result ^ value) < bits) {
      result ^= 1L << random.nextInt(64);
    }
    return result;
  }

  @Test
  void search_randomWithPlantedNeighbours_equalsBruteForce() throws IOException {
    long seed = 20070508L; // logged in the assertion descriptions
    SplittableRandom random = new SplittableRandom(seed);
    int bases = 3000;
    List<Long> values = new ArrayList<>();
    for (int i = 0; i < bases; i++) {
      long base = random.nextLong();
      values.add(base);
      // planted neighbours at distance 0..5: 0..3 must be found, 4 and 5 must not
      for (int d = 0; d <= 5; d++) {
        if (random.nextInt(3) == 0) {
          values.add(flip(base, d, random));
        }
      }
    }
    Set<Integer> deleted = new HashSet<>();
    try (Directory directory = new ByteBuffersDirectory()) {
      IndexWriterConfig config =
          new IndexWriterConfig().setMaxBufferedDocs(997); // several segments
      try (IndexWriter writer = new IndexWriter(directory, config)) {
        for (int i = 0; i < values.size(); i++) {
          Document document = new Document();
          document.add(new StringField("id", Integer.toString(i), Field.Store.YES));
          SimhashIndex.addFields(document, values.get(i));
          writer.addDocument(document);
        }
        for (int i = 0; i < values.size(); i += 50) {
          writer.deleteDocuments(new Term("id", Integer.toString(i)));
          deleted.add(i);
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        int pairs = 0;
        for (int q = 0; q < values.size(); q += 7) {
          long query = values.get(q);
          Set<Integer> expected = new HashSet<>();
          for (int i = 0; i < values.size(); i++) {
            if (!deleted.contains(i)
                && Long.bitCount(query ^ values.get(i)) <= SimhashIndex.MAX_DISTANCE) {
              expected.add(i);
            }
          }
          List<Integer> actual = new ArrayList<>();
          for (SimhashIndex.Hit hit : SimhashIndex.search(reader, query)) {
            actual.add(Integer.parseInt(reader.storedFields().document(hit.doc()).get("id")));
            assertThat(hit.distance()).isEqualTo(Long.bitCount(query ^ hit.simhash()));
          }
          assertThat(actual).as("seed %d, query %d", seed, q).doesNotHaveDuplicates();
          assertThat(new HashSet<>(actual)).as("seed %d, query %d", seed, q).isEqualTo(expected);
          pairs += expected.size();
        }
        assertThat(pairs).as("planted pairs within k were found").isGreaterThan(values.size() / 7);
      }
    }
  }

  @Test
  void search_distanceAbove3_refused() {
    assertThatThrownBy(() -> SimhashIndex.search(null, 0L, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxDistance (4) must be in [0, 3]");
  }

  @Test
  void blockTerm_blockIndexThenSixteenBitsBigEndian() {
    long value = 0x1234_5678_9abc_def0L;
    assertThat(SimhashIndex.blockTerm(0, value).bytes).containsExactly(0, 0xde, 0xf0);
    assertThat(SimhashIndex.blockTerm(3, value).bytes).containsExactly(3, 0x12, 0x34);
  }
}
