package org.xiaochong.method.near.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.document.Document;
import org.xiaochong.index.DocumentMaker;
import org.xiaochong.index.IndexSchema;
import org.xiaochong.method.near.NearColumns;
import org.xiaochong.method.near.fingerprint.Evidence;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.normalize.TextNormalizer;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * Near index documents ({@link NearSchema}): the multi-MD5 fingerprints of the {@code fields.near}
 * columns. Phone columns among them contribute one {@code tel:} term each; the {@code
 * fields.must-match} columns give one match key each, the {@code fields.place}, {@code
 * fields.number}, {@code fields.phone} and {@code fields.seller} columns their {@link Evidence}.
 * The {@link TopTermsMd5} is thread-safe and may be shared; this class keeps small per-instance
 * buffers, so one per thread.
 */
public final class NearDocumentMaker implements DocumentMaker {
  private final TopTermsMd5 fingerprinter;
  private final int[] textColumns;
  private final int[] phoneColumns;
  private final String[] texts;
  private final String[] phones;
  private final int[] mustMatchColumns;
  private final List<String> placeFields;
  private final int[] placeColumns;
  private final List<String> numberFields;
  private final int[] numberColumns;
  private final List<String> sellerFields;
  private final int[] sellerColumns;
  private final int sellerPhones;
  private final org.xiaochong.policy.KeepPolicy keepPolicy;
  private final List<String> columns;

  public NearDocumentMaker(TableSpec spec, TopTermsMd5 fingerprinter) {
    this.fingerprinter = fingerprinter;
    List<String> columns = spec.fingerprintColumns();
    this.columns = columns;
    this.keepPolicy = spec.keepPolicy();
    List<Integer> text = new ArrayList<>();
    List<Integer> phone = new ArrayList<>();
    NearColumns near = NearColumns.of(spec);
    for (String field : near.near()) {
      (spec.phoneFields().contains(field) ? phone : text).add(columns.indexOf(field));
    }
    this.textColumns = text.stream().mapToInt(Integer::intValue).toArray();
    this.phoneColumns = phone.stream().mapToInt(Integer::intValue).toArray();
    this.texts = new String[textColumns.length];
    this.phones = new String[phoneColumns.length];
    this.mustMatchColumns = near.mustMatch().stream().mapToInt(columns::indexOf).toArray();
    this.placeFields = near.place();
    this.placeColumns = placeFields.stream().mapToInt(columns::indexOf).toArray();
    this.numberFields = near.number();
    this.numberColumns = numberFields.stream().mapToInt(columns::indexOf).toArray();
    // The seller: phone columns first (compared by their digits), then fields.seller.
    List<String> sellers = new ArrayList<>();
    spec.phoneFields().stream().filter(columns::contains).forEach(sellers::add);
    this.sellerPhones = sellers.size();
    near.seller().stream()
        .filter(f -> columns.contains(f) && !sellers.contains(f))
        .forEach(sellers::add);
    this.sellerFields = sellers;
    this.sellerColumns = sellers.stream().mapToInt(columns::indexOf).toArray();
  }

  /**
   * What the record says about its item ({@link Evidence}): the amounts of its text and the grades
   * its near text columns name ({@link org.xiaochong.method.near.fingerprint.Grades}), then per
   * place column the key of its folded value and per number column its first number (slots in the
   * order fields.place then fields.number), and its seller: per phone column the key of its digits,
   * per fields.seller column the key of its folded value.
   */
  public Evidence evidence(SourceRecord record, Fingerprints fingerprints) {
    Evidence.Builder builder = new Evidence.Builder().addText(fingerprints);
    List<String> normalized = new ArrayList<>(textColumns.length);
    for (int column : textColumns) {
      normalized.add(TextNormalizer.normalizeText(record.values()[column]));
    }
    builder.addGrades(normalized);
    for (int i = 0; i < sellerColumns.length; i++) {
      String value = record.values()[sellerColumns[i]];
      builder.addSeller(
          i,
          TopTermsMd5.evidenceKey(
              sellerFields.get(i),
              i < sellerPhones
                  ? TextNormalizer.normalizePhone(value)
                  : fingerprinter.foldedValue(value)));
    }
    for (int i = 0; i < placeColumns.length; i++) {
      String column = placeFields.get(i);
      builder.addPlace(
          i,
          TopTermsMd5.evidenceKey(
              column, fingerprinter.foldedValue(record.values()[placeColumns[i]])));
    }
    for (int i = 0; i < numberColumns.length; i++) {
      String column = numberFields.get(i);
      builder.addNumber(
          placeColumns.length + i,
          fingerprinter.foldedValue(record.values()[numberColumns[i]]),
          term -> TopTermsMd5.evidenceKey(column, term));
    }
    return builder.build();
  }

  public Fingerprints fingerprint(SourceRecord record) {
    for (int i = 0; i < textColumns.length; i++) {
      texts[i] = record.values()[textColumns[i]];
    }
    for (int i = 0; i < phoneColumns.length; i++) {
      phones[i] = record.values()[phoneColumns[i]];
    }
    return fingerprinter.fingerprint(Arrays.asList(texts), Arrays.asList(phones));
  }

  /** The keys of the record's fields.must-match values, in config order (0 for an empty value). */
  public long[] matchKeys(SourceRecord record) {
    long[] keys = new long[mustMatchColumns.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = fingerprinter.matchKey(record.values()[mustMatchColumns[i]]);
    }
    return keys;
  }

  @Override
  public Document make(SourceRecord record) {
    Fingerprints fingerprints = fingerprint(record);
    Document doc =
        NearSchema.document(
            record.id(),
            record.regTime(),
            record.rowCrc(),
            fingerprints,
            fingerprinter.config().pre(),
            matchKeys(record),
            evidence(record, fingerprints));
    IndexSchema.addRank(doc, IndexSchema.storedRank(keepPolicy, record, columns));
    return doc;
  }
}
