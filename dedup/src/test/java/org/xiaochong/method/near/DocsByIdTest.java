package org.xiaochong.method.near;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;
import org.xiaochong.index.IndexSchema;

class DocsByIdTest {
  @Test
  void docsOf_everyDocOfTheId_acrossSegments_andNoneForAnIdNotIndexed() throws Exception {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
      for (long id : new long[] {42, 7, 1_000_000_007L}) {
        writer.addDocument(doc(id)); // docs 0, 1, 2
      }
      writer.commit(); // a second segment: docs 3, 4, 5
      for (long id : new long[] {-3, 7, 99}) {
        writer.addDocument(doc(id));
      }
      writer.addDocument(new Document()); // doc 6: no id
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertThat(reader.leaves()).hasSize(2);

        DocsById docs = DocsById.of(reader.leaves());

        assertThat(docs.docsOf(7)).containsExactly(1, 4);
        assertThat(docs.docsOf(42)).containsExactly(0);
        assertThat(docs.docsOf(1_000_000_007L)).containsExactly(2);
        assertThat(docs.docsOf(-3)).containsExactly(3);
        assertThat(docs.docsOf(99)).containsExactly(5);
        assertThat(docs.docsOf(8)).isEmpty();
        assertThat(docs.docsOf(0)).isEmpty();
      }
    }
  }

  private static Document doc(long id) {
    Document doc = new Document();
    doc.add(new NumericDocValuesField(IndexSchema.ID, id));
    return doc;
  }
}
