package org.xiaochong.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

/** Live holders of a term across segments, with deletions, as global doc ids. */
class TermHoldersTest {
  private static final String FIELD = "key";

  @Test
  void holdersOfATerm_acrossSegments_liveOnly_globalIds() throws IOException {
    try (Directory directory = new ByteBuffersDirectory()) {
      try (IndexWriter writer = writer(directory)) {
        // Segment 0: docs 0..2; segment 1: docs 3..5; segment 2 has no "key" field at all.
        // Docs 2 and 3 are deleted.
        add(writer, "a", "x0");
        add(writer, "b", "x1");
        add(writer, "a", "x2");
        writer.commit();
        add(writer, "d", "x3");
        add(writer, "a", "x4");
        add(writer, "c", "x5");
        writer.commit();
        Document other = new Document();
        other.add(new StringField("id", "x6", Field.Store.NO));
        writer.addDocument(other);
        writer.commit();
        writer.deleteDocuments(new Term("id", "x2"), new Term("id", "x3"));
        writer.commit();
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        assertThat(reader.leaves()).hasSize(3);
        TermHolders holders = new TermHolders(reader.leaves(), FIELD);

        assertThat(walk(holders, "a")).containsExactly(0, 4);
        assertThat(holders.first(new BytesRef("a"))).isEqualTo(0);
        assertThat(holders.segment()).isZero();
        assertThat(holders.next()).isEqualTo(4);
        assertThat(holders.segment()).isEqualTo(1);
        assertThat(holders.next()).isEqualTo(TermHolders.NO_MORE_DOCS);
        assertThat(holders.next()).isEqualTo(TermHolders.NO_MORE_DOCS);

        assertThat(walk(holders, "b")).containsExactly(1);
        assertThat(walk(holders, "c")).containsExactly(5);
        assertThat(walk(holders, "missing")).isEmpty();
        // Reused for another term, then again for the first one: same answer.
        assertThat(walk(holders, "a")).containsExactly(0, 4);

        assertThat(holders.anyLive(new BytesRef("a"))).isTrue();
        assertThat(holders.anyLive(new BytesRef("missing"))).isFalse();
        // "d" is held by a deleted document only: no live holder.
        assertThat(holders.anyLive(new BytesRef("d"))).isFalse();
        assertThat(walk(holders, "d")).isEmpty();
        // Deleted holders still count in the term dictionary's frequency.
        assertThat(holders.docFreq(new BytesRef("a"))).isEqualTo(3);
        assertThat(holders.docFreq(new BytesRef("d"))).isEqualTo(1);
        assertThat(holders.docFreq(new BytesRef("missing"))).isZero();
      }
    }
  }

  /** A writer that keeps segments as flushed, so deleted documents stay in them. */
  private static IndexWriter writer(Directory directory) throws IOException {
    return new IndexWriter(
        directory, new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE));
  }

  private static void add(IndexWriter writer, String key, String id) throws IOException {
    Document doc = new Document();
    doc.add(new StringField(FIELD, key, Field.Store.NO));
    doc.add(new StringField("id", id, Field.Store.NO));
    writer.addDocument(doc);
  }

  private static List<Integer> walk(TermHolders holders, String term) throws IOException {
    List<Integer> docs = new ArrayList<>();
    for (int d = holders.first(new BytesRef(term));
        d != TermHolders.NO_MORE_DOCS;
        d = holders.next()) {
      docs.add(d);
    }
    return docs;
  }
}
