package org.xiaochong.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xiaochong.archive.DeletionPlan;

class FingerprintMethodsTest {
  private static List<String> names(String spec) {
    return FingerprintMethods.parse(spec).stream().map(FingerprintMethod::name).toList();
  }

  @Test
  void parse_listedNames_keepsTheOrderGiven() {
    assertThat(names("exact,near")).containsExactly("exact", "near");
    assertThat(names("near, exact")).containsExactly("near", "exact");
    assertThat(names(FingerprintMethods.DEFAULT)).containsExactly("exact");
  }

  @Test
  void parse_both_isExactThenNear() {
    assertThat(names("both")).containsExactly("exact", "near");
    assertThat(FingerprintMethods.label(FingerprintMethods.parse("both"))).isEqualTo("exact,near");
  }

  @Test
  void parse_unknownName_namesTheKnownOnes() {
    assertThatThrownBy(() -> FingerprintMethods.parse("exact,fuzzy"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown method 'fuzzy' (known: exact, near, simhash, ")
        .hasMessageContaining(", pairs")
        .hasMessageEndingWith("; both = exact,near)");
  }

  @Test
  void parse_repeatedOrEmptyName_fails() {
    assertThatThrownBy(() -> FingerprintMethods.parse("both,near"))
        .hasMessageContaining("'near' is named twice");
    assertThatThrownBy(() -> FingerprintMethods.parse("exact,"))
        .hasMessageContaining("unknown method ''");
  }

  @Test
  void known_builtInFirst_thenServiceProviders() {
    List<String> names = FingerprintMethods.known().stream().map(FingerprintMethod::name).toList();
    assertThat(names.subList(0, 4)).containsExactly("exact", "near", "simhash", "linkage");
    assertThat(names.subList(4, names.size()))
        .contains("pairs")
        .isSorted(); // the test class path's, by name
    assertThat(
            FingerprintMethods.known().stream()
                .filter(FingerprintMethods::isBuiltIn)
                .map(FingerprintMethod::name))
        .containsExactly("exact", "near", "simhash", "linkage");
  }

  @Test
  void namesOf_storedLabels_expandTheAlias() {
    assertThat(FingerprintMethods.namesOf("both")).containsExactly("exact", "near");
    assertThat(FingerprintMethods.namesOf("near,pairs")).containsExactly("near", "pairs");
  }

  @Test
  void ruleOf_sameLabel_isTheSameRule() {
    assertThat(DeletionPlan.Rule.of("exact")).isSameAs(org.xiaochong.method.exact.ExactMethod.RULE);
    assertThat(DeletionPlan.Rule.of(NeighbourPairsMethod.NAME))
        .isSameAs(DeletionPlan.Rule.of("pairs"));
    assertThatThrownBy(() -> DeletionPlan.Rule.of("Near-2"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
