package org.xiaochong.spark.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.xiaochong.method.FingerprintMethod;
import org.xiaochong.method.FingerprintMethods;
import org.xiaochong.source.BadInputException;

class SparkMethodsTest {
  @Test
  void names_areEverySingleMachineMethodInRegistryOrder() {
    List<String> known = FingerprintMethods.known().stream().map(FingerprintMethod::name).toList();
    assertThat(SparkMethods.names()).containsExactly("exact", "near", "simhash", "linkage");
    assertThat(SparkMethods.names()).containsExactlyElementsOf(known);
  }

  @Test
  void of_eachName_givesTheMethodOfThatName() {
    for (String name : SparkMethods.names()) {
      assertThat(SparkMethods.of(name).name()).isEqualTo(name);
    }
  }

  @Test
  void of_unknownName_refusesInOneLineNamingTheMethods() {
    assertThatThrownBy(() -> SparkMethods.of("minhash"))
        .isInstanceOf(BadInputException.class)
        .hasMessage("dedup-spark runs the methods [exact, near, simhash, linkage], not minhash");
  }
}
