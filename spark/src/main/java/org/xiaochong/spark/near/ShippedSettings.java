package org.xiaochong.spark.near;

import java.io.Serializable;
import java.util.HashMap;
import org.xiaochong.method.near.NearSettings;
import org.xiaochong.method.near.fingerprint.NearConfig;

/** The near settings as shipped to the executors, read once per executor. */
final class ShippedSettings implements Serializable {
  private final HashMap<String, String> values;
  private transient volatile NearConfig config;

  ShippedSettings(HashMap<String, String> values) {
    this.values = values;
  }

  NearConfig get() {
    NearConfig c = config;
    if (c == null) {
      c = NearSettings.of(values);
      config = c;
    }
    return c;
  }
}
