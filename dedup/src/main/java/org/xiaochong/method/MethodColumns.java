package org.xiaochong.method;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The config keys that name the columns a method reads ({@link FingerprintMethod#columns()}), with
 * their defaults (columns of the sample table {@code supply_demand}, comma-separated). Every run
 * reads these columns with each record, whichever methods it runs, so the row checksums and the
 * record index do not depend on the methods a run selects.
 *
 * <p>A key left at its default keeps only the default columns the table reads anyway (in {@code
 * fields.exact}, or in the method's main columns), so a config for another table need not clear the
 * sample table's defaults. The one exception is a main key ({@link #withMain}): the near method's
 * {@code fields.near}, whose default has always applied as it is. Its columns are also part of the
 * record index's digest, so an index built for other main columns is refused, as one built for
 * another {@code fields.exact} is. A new method declares its keys with {@link #of}. A key may also
 * be one of the method's settings ({@code simhash.fields}, {@code linkage.columns}), read there
 * with the method's own default and checks.
 *
 * @param main the key of the columns the method fingerprints, or null for none
 * @param mainDefault its default columns (null when {@code main} is)
 * @param keys the other keys with their defaults, in the order the config documents them
 */
public record MethodColumns(String main, String mainDefault, Map<String, String> keys) {

  public MethodColumns {
    if ((main == null) != (mainDefault == null)) {
      throw new IllegalArgumentException("a main key needs a default, and only a main key");
    }
    keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
  }

  /** Keys whose defaults apply only where the table reads the column anyway. */
  public static MethodColumns of(Map<String, String> keys) {
    return new MethodColumns(null, null, keys);
  }

  /**
   * A main key, its default applied as it is and its columns in the record index's digest, then
   * {@code roles}: keys of columns with a part in the method's rule.
   */
  public static MethodColumns withMain(String main, String mainDefault, Map<String, String> roles) {
    return new MethodColumns(
        Objects.requireNonNull(main), Objects.requireNonNull(mainDefault), roles);
  }

  /** Every key with its default: the main key first, then the others in order. */
  public Map<String, String> defaults() {
    Map<String, String> defaults = new LinkedHashMap<>();
    if (main != null) {
      defaults.put(main, mainDefault);
    }
    defaults.putAll(keys);
    return defaults;
  }
}
