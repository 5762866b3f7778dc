package org.xiaochong.method;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The config keys that name the columns a method reads ({@link FingerprintMethod#columns()}), with
 * their defaults (columns of the sample table {@code supply_demand}, comma-separated). Every run
 * reads these columns with each record, whichever methods it runs, so the row checksums and the
 * record index do not depend on the methods a run selects.
 *
 * <p>The {@code main} key names the columns the method fingerprints. They are part of the record
 * index's digest: an index built for other main columns is refused, as one built for another {@code
 * fields.exact} is. The {@code roles} keys name columns given a part in the method's rule (e.g.
 * must match, a place, a price). A role key left at its default keeps only the default columns the
 * table reads anyway (in {@code fields.exact} or the main columns), so a config for another table
 * need not clear the sample table's defaults.
 *
 * @param main the key of the columns the method fingerprints, e.g. {@code fields.near}
 * @param mainDefault its default columns
 * @param roles the keys of the columns with a role in the method's rule, with their defaults, in
 *     the order the config documents them
 */
public record MethodColumns(String main, String mainDefault, Map<String, String> roles) {

  public MethodColumns {
    roles = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(roles));
  }

  /** Every key with its default: the main key first, then the roles in order. */
  public Map<String, String> defaults() {
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put(main, mainDefault);
    defaults.putAll(roles);
    return defaults;
  }
}
