package org.xiaochong.method.near.index;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.near.fingerprint.Fingerprints;

/** The field masks of {@link NearSchema#FIELDS}: one byte per key for up to 8 fields, else four. */
class NearSchemaFieldsTest {
  @Test
  void encodeFields_upToEightFields_oneBytePerKey_andRoundTrips() {
    int[] fields = {1, 0b101, 0x80, Fingerprints.ANY_FIELD};
    byte[] bytes = NearSchema.encodeFields(fields);
    assertThat(bytes).hasSize(4);
    assertThat(NearSchema.decodeFields(new BytesRef(bytes), 4)).containsExactly(fields);
  }

  @Test
  void encodeFields_moreFields_fourBytesPerKey_andRoundTrips() {
    int[] fields = {1, 1 << 12, Fingerprints.fieldBit(40), Fingerprints.ANY_FIELD};
    byte[] bytes = NearSchema.encodeFields(fields);
    assertThat(bytes).hasSize(16);
    assertThat(NearSchema.decodeFields(new BytesRef(bytes), 4)).containsExactly(fields);
    assertThat(Fingerprints.fieldBit(40)).isEqualTo(Fingerprints.fieldBit(30));
  }
}
