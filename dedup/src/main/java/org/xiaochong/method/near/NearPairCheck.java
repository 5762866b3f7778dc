package org.xiaochong.method.near;

import org.xiaochong.archive.PairCheck;
import org.xiaochong.method.near.fingerprint.Fingerprints;
import org.xiaochong.method.near.fingerprint.NearConfig;
import org.xiaochong.method.near.fingerprint.TopTermsMd5;
import org.xiaochong.method.near.index.NearDocumentMaker;
import org.xiaochong.source.SourceRecord;
import org.xiaochong.source.TableSpec;

/**
 * The apply's re-check of a near removal: the near rule ({@link NearRule#isNearDuplicate}) on fresh
 * fingerprints of both rows, made as the indexer makes them; an exact copy is a near duplicate too.
 * Segmenting is costly and only changed rows are re-checked, so the fingerprinter loads at the
 * first pair. Not thread-safe: one instance per apply.
 */
final class NearPairCheck implements PairCheck {
  private final TableSpec spec;
  private final NearConfig config;
  private TopTermsMd5 fingerprinter;
  private NearDocumentMaker maker;

  NearPairCheck(TableSpec spec, NearConfig config) {
    this.spec = spec;
    this.config = config;
  }

  @Override
  public boolean duplicates(SourceRecord removed, SourceRecord kept) {
    if (maker == null) {
      fingerprinter = new TopTermsMd5(config);
      maker = new NearDocumentMaker(spec, fingerprinter);
    }
    return NearRule.isNearDuplicate(keys(removed), keys(kept), config);
  }

  private NearRule.Stored keys(SourceRecord row) {
    Fingerprints fingerprints = maker.fingerprint(row);
    return NearRule.Stored.of(
        fingerprints, config.pre(), maker.matchKeys(row), maker.evidence(row, fingerprints));
  }

  @Override
  public void close() {
    if (fingerprinter != null) {
      fingerprinter.close();
    }
  }
}
