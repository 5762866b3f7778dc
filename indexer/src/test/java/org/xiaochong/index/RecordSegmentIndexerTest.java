package org.xiaochong.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

class RecordSegmentIndexerTest {
  @TempDir Path dir;

  @Test
  void docsInKeyOrder_sharedPrefixesAndTies_matchSortingByUnsignedKeyThenDoc() {
    Random random = new Random(3);
    int n = 5000;
    byte[] keys = new byte[16 * n];
    byte[][] pool = new byte[300][16];
    for (int i = 0; i < pool.length; i++) {
      random.nextBytes(pool[i]);
      if (i % 3 == 0 && i > 0) {
        // Same first 8 bytes as another key, different last 8: only the full comparison orders
        // them.
        System.arraycopy(pool[i - 1], 0, pool[i], 0, 8);
      }
      if (i % 5 == 0) {
        pool[i][0] =
            (byte) 0xFF; // a high first byte: negative as a signed byte, last in unsigned order
      }
    }
    for (int doc = 0; doc < n; doc++) {
      System.arraycopy(pool[random.nextInt(pool.length)], 0, keys, 16 * doc, 16);
    }

    int[] order = KeyOrder.docsInKeyOrder(keys, n);

    Integer[] expected = new Integer[n];
    for (int doc = 0; doc < n; doc++) {
      expected[doc] = doc;
    }
    Comparator<Integer> byKey =
        (a, b) -> Arrays.compareUnsigned(keys, 16 * a, 16 * a + 16, keys, 16 * b, 16 * b + 16);
    Arrays.sort(expected, byKey.thenComparing(Comparator.naturalOrder()));
    assertThat(order)
        .containsExactly(Arrays.stream(expected).mapToInt(Integer::intValue).toArray());
  }

  @Test
  void docsInKeyOrder_oneAndNoDocs() {
    assertThat(KeyOrder.docsInKeyOrder(new byte[16], 1)).containsExactly(0);
    assertThat(KeyOrder.docsInKeyOrder(new byte[0], 0)).isEmpty();
  }

  @Test
  void segments_holdTheSameTermsPostingsAndValuesAsDocumentsAddedOneByOne() throws IOException {
    List<SourceRecord> records = records(2500);
    TableSpec spec = TableSpec.sample();

    Path byDocuments = dir.resolve("documents");
    try (FingerprintIndex index = FingerprintIndex.open(byDocuments, "test", true)) {
      RecordIndexer indexer = RecordIndexer.documents(index, new RecordDocumentMaker(spec, 7));
      records.forEach(indexer::add);
      indexer.finish();
      index.commit();
    }
    Path bySegments = dir.resolve("segments");
    try (FingerprintIndex index = FingerprintIndex.open(bySegments, "test", true)) {
      while (index.syncSeq() < 7) {
        index.nextSyncSeq(); // the segments carry the index's sync number
      }
      RecordSegmentIndexer indexer =
          new RecordSegmentIndexer(
              index,
              spec,
              RecordSegmentIndexer.SegmentKeys.NONE,
              1000); // 3 segments: 1000, 1000, 500
      records.forEach(indexer::add);
      indexer.finish();
      index.commit();
    }

    Contents expected = contents(byDocuments);
    Contents actual = contents(bySegments);
    assertThat(actual.segments).isEqualTo(3);
    assertThat(actual.valuesById).isEqualTo(expected.valuesById).hasSize(records.size());
    assertThat(actual.idsByKey).isEqualTo(expected.idsByKey);
    assertThat(actual.fieldInfos).isEqualTo(expected.fieldInfos);
    assertThat(actual.valuesById.values()).allMatch(v -> v.endsWith(" seq 7"));
    assertThat(actual.valuesById.values())
        .anyMatch(v -> v.contains(" crc -1 ")); // an unknown checksum is kept
    // Some keys repeat (the duplicates the exact pass must find), within and across segments.
    assertThat(actual.idsByKey.values()).anyMatch(ids -> ids.size() > 2);
    try (FSDirectory directory = FSDirectory.open(bySegments);
        CheckIndex check = new CheckIndex(directory)) {
      check.setInfoStream(null);
      assertThat(check.checkIndex().clean).isTrue();
    }
  }

  /**
   * Records with a few hundred distinct contents, so that many share their exact key; NULL times
   * too.
   */
  private static List<SourceRecord> records(int n) {
    Random random = new Random(11);
    List<SourceRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int variant = random.nextInt(700);
      String[] values = new String[TableSpec.sample().fingerprintColumns().size()];
      values[0] = "供应红富士苹果 " + variant;
      values[values.length - 1] = variant % 7 == 0 ? null : "联系人王先生 电话138" + variant;
      long time =
          i % 97 == 0 ? SourceRecord.NULL_TIME : 1_700_000_000_000L + random.nextInt(1_000_000);
      long crc = i % 89 == 0 ? SourceRecord.UNKNOWN_CRC : random.nextInt() & 0xFFFFFFFFL;
      records.add(new SourceRecord(10L * i + 3, time, crc, values));
    }
    return records;
  }

  private record Contents(
      int segments,
      Map<Long, String> valuesById,
      Map<String, List<Long>> idsByKey,
      List<String> fieldInfos) {}

  /**
   * What the exact pass reads: per id its time and md5 doc values, per md5 term the ids of its
   * postings.
   */
  private static Contents contents(Path path) throws IOException {
    Map<Long, String> valuesById = new TreeMap<>();
    Map<String, List<Long>> idsByKey = new TreeMap<>();
    java.util.Set<String> fieldInfos = new java.util.TreeSet<>();
    try (FSDirectory directory = FSDirectory.open(path);
        DirectoryReader reader = DirectoryReader.open(directory)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        LeafReader segment = leaf.reader();
        long[] ids = new long[segment.maxDoc()];
        NumericDocValues idValues = segment.getNumericDocValues(IndexSchema.ID);
        NumericDocValues times = segment.getNumericDocValues(IndexSchema.REG_TIME);
        BinaryDocValues md5s = segment.getBinaryDocValues(IndexSchema.MD5);
        NumericDocValues crcs = segment.getNumericDocValues(IndexSchema.ROW_CRC);
        NumericDocValues seqs = segment.getNumericDocValues(IndexSchema.SYNC_SEQ);
        for (int doc = 0; doc < segment.maxDoc(); doc++) {
          assertThat(
                  idValues.advanceExact(doc)
                      && times.advanceExact(doc)
                      && md5s.advanceExact(doc)
                      && crcs.advanceExact(doc)
                      && seqs.advanceExact(doc))
              .isTrue();
          ids[doc] = idValues.longValue();
          valuesById.put(
              ids[doc],
              times.longValue()
                  + " "
                  + hex(md5s.binaryValue())
                  + " crc "
                  + crcs.longValue()
                  + " seq "
                  + seqs.longValue());
        }
        for (org.apache.lucene.index.FieldInfo info : segment.getFieldInfos()) {
          fieldInfos.add(
              info.name
                  + " "
                  + info.getIndexOptions()
                  + " "
                  + info.getDocValuesType()
                  + " norms="
                  + info.hasNorms()
                  + " points="
                  + info.getPointDimensionCount());
        }
        TermsEnum terms = segment.terms(IndexSchema.MD5).iterator();
        BytesRef previous = null;
        for (BytesRef term = terms.next(); term != null; term = terms.next()) {
          assertThat(previous == null || previous.compareTo(term) < 0)
              .as("terms increase")
              .isTrue();
          previous = BytesRef.deepCopyOf(term);
          PostingsEnum postings = terms.postings(null, PostingsEnum.NONE);
          int last = -1;
          for (int doc = postings.nextDoc();
              doc != PostingsEnum.NO_MORE_DOCS;
              doc = postings.nextDoc()) {
            assertThat(doc).as("postings increase").isGreaterThan(last);
            last = doc;
            idsByKey.computeIfAbsent(hex(term), k -> new ArrayList<>()).add(ids[doc]);
          }
          assertThat(terms.docFreq()).isEqualTo(countPostings(terms));
        }
      }
      idsByKey.values().forEach(list -> list.sort(null));
      return new Contents(reader.leaves().size(), valuesById, idsByKey, List.copyOf(fieldInfos));
    }
  }

  private static int countPostings(TermsEnum terms) throws IOException {
    PostingsEnum postings = terms.postings(null, PostingsEnum.NONE);
    int count = 0;
    while (postings.nextDoc() != PostingsEnum.NO_MORE_DOCS) {
      count++;
    }
    return count;
  }

  private static String hex(BytesRef bytes) {
    StringBuilder out = new StringBuilder();
    for (int i = bytes.offset; i < bytes.offset + bytes.length; i++) {
      out.append(String.format("%02x", bytes.bytes[i] & 0xFF));
    }
    return out.toString();
  }

  @Test
  void segmentKeys_toldEveryRecordsKeyOncePerSegment() throws IOException {
    List<SourceRecord> records = records(2500);
    TableSpec spec = TableSpec.sample();
    List<Integer> counts = new java.util.ArrayList<>();
    java.util.Map<String, Integer> told = new java.util.HashMap<>();
    try (FingerprintIndex index = FingerprintIndex.open(dir.resolve("told"), "test", true)) {
      RecordSegmentIndexer indexer =
          new RecordSegmentIndexer(
              index,
              spec,
              (md5s, count) -> {
                counts.add(count);
                for (int i = 0; i < count; i++) {
                  told.merge(
                      java.util.HexFormat.of().formatHex(md5s, 16 * i, 16 * i + 16),
                      1,
                      Integer::sum);
                }
              },
              1000);
      records.forEach(indexer::add);
      indexer.finish();
      index.commit();
    }
    java.util.Map<String, Integer> expected = new java.util.HashMap<>();
    RecordDocumentMaker keys = new RecordDocumentMaker(spec);
    records.forEach(
        r -> expected.merge(java.util.HexFormat.of().formatHex(keys.exactKey(r)), 1, Integer::sum));
    assertThat(counts).containsExactly(1000, 1000, 500);
    assertThat(told).isEqualTo(expected);
  }
}
