package org.xiaochong.bench;

import static org.xiaochong.bench.SeedExperiment.LONG_BE;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.util.BytesRef;
import org.xiaochong.bench.impcb.Fingerprint;
import org.xiaochong.bloom.CountingBloomFilter;

/**
 * The fingerprint stores of {@link SeedExperiment}: Lucene on disk (the seed's store) and a
 * HashSet.
 */
final class SeedStores {
  private static final String FIELD = "md5";

  private SeedStores() {}

  /** The exact fingerprint store: lookup and add. */
  interface Store extends Closeable {
    boolean contains(long hi, long lo) throws IOException;

    void add(long hi, long lo) throws IOException;

    /** Makes the additions durable (Lucene commit); no-op in memory. Part of the timed run. */
    void commit() throws IOException;

    String describe() throws IOException;
  }

  /** The on-disk store: see the class Javadoc. Not thread-safe. */
  static final class LuceneStore implements Store {
    private final Path path;
    private final Directory directory;
    private final IndexWriter writer;
    private final int batch;
    private final Set<Fingerprint> pending = new HashSet<>();
    private final byte[] key = new byte[CountingBloomFilter.KEY_BYTES];
    private final BytesRef keyRef = new BytesRef(key);
    private final byte[] docKey = new byte[CountingBloomFilter.KEY_BYTES];
    private final Document doc = new Document();
    private DirectoryReader reader;
    private TermsEnum[] enums = new TermsEnum[0];
    private long reopens;

    LuceneStore(Path path, int batch, boolean nio) throws IOException {
      this.path = path;
      this.batch = batch;
      this.directory = nio ? new NIOFSDirectory(path) : FSDirectory.open(path);
      this.writer =
          new IndexWriter(
              directory, new IndexWriterConfig().setOpenMode(IndexWriterConfig.OpenMode.CREATE));
      this.reader = DirectoryReader.open(writer);
      // addDocument copies the bytes into the indexing buffer, so one field can be reused.
      doc.add(new StringField(FIELD, new BytesRef(docKey), Field.Store.NO));
    }

    @Override
    public boolean contains(long hi, long lo) throws IOException {
      if (!pending.isEmpty() && pending.contains(new Fingerprint(hi, lo))) {
        return true;
      }
      LONG_BE.set(key, 0, hi);
      LONG_BE.set(key, 8, lo);
      for (TermsEnum e : enums) {
        if (e.seekExact(keyRef)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public void add(long hi, long lo) throws IOException {
      LONG_BE.set(docKey, 0, hi);
      LONG_BE.set(docKey, 8, lo);
      writer.addDocument(doc);
      pending.add(new Fingerprint(hi, lo));
      if (pending.size() >= batch) {
        refresh();
      }
    }

    private void refresh() throws IOException {
      DirectoryReader newer = DirectoryReader.openIfChanged(reader, writer);
      if (newer != null) {
        reader.close();
        reader = newer;
        List<LeafReaderContext> leaves = reader.leaves();
        List<TermsEnum> list = new ArrayList<>(leaves.size());
        for (int i = leaves.size() - 1; i >= 0; i--) { // newest segment first
          Terms terms = leaves.get(i).reader().terms(FIELD);
          if (terms != null) {
            list.add(terms.iterator());
          }
        }
        enums = list.toArray(new TermsEnum[0]);
        reopens++;
      }
      pending.clear();
    }

    @Override
    public void commit() throws IOException {
      writer.commit();
    }

    int segments() {
      return enums.length;
    }

    @Override
    public String describe() throws IOException {
      long bytes = 0;
      for (String f : directory.listAll()) {
        bytes += directory.fileLength(f);
      }
      return String.format(
          Locale.ROOT,
          "%s at %s: %d docs, %.1f MB on disk, %d segments in the last reader, %d reopens",
          directory.getClass().getSimpleName(),
          path,
          writer.getDocStats().numDocs,
          bytes / 1e6,
          enums.length,
          reopens);
    }

    @Override
    public void close() throws IOException {
      reader.close();
      writer.close();
      directory.close();
      deleteTree(path);
    }
  }

  /** In-memory store: a HashSet of fingerprints. */
  static final class MemoryStore implements Store {
    private final Set<Fingerprint> set = new HashSet<>();

    @Override
    public boolean contains(long hi, long lo) {
      return set.contains(new Fingerprint(hi, lo));
    }

    @Override
    public void add(long hi, long lo) {
      set.add(new Fingerprint(hi, lo));
    }

    @Override
    public void commit() {}

    @Override
    public String describe() {
      return "HashSet<Fingerprint> with " + set.size() + " entries";
    }

    @Override
    public void close() {}
  }

  /** Deletes a folder and everything in it; nothing when it does not exist. */
  private static void deleteTree(Path p) {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(p)) {
      walk.sorted(Comparator.reverseOrder())
          .forEach(
              f -> {
                try {
                  Files.delete(f);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
