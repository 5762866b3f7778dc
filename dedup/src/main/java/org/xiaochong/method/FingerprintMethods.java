package org.xiaochong.method;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.xiaochong.archive.DeletionPlan;
import org.xiaochong.archive.PairCheck;
import org.xiaochong.method.exact.ExactMethod;
import org.xiaochong.method.linkage.LinkageMethod;
import org.xiaochong.method.near.NearMethod;
import org.xiaochong.method.simhash.SimhashMethod;

/**
 * The known fingerprint methods, by name: the built-in ones, then any found on the class path as
 * {@code ServiceLoader} providers of {@link FingerprintMethod} (as Lucene finds codecs). A name
 * must be a valid rule label and unique. Immutable once loaded; thread-safe.
 */
public final class FingerprintMethods {
  /** The built-in methods. Adding a method is one line here (or one service entry). */
  private static final List<FingerprintMethod> BUILT_IN =
      List.of(new ExactMethod(), new NearMethod(), new SimhashMethod(), new LinkageMethod());

  /** The method of {@code run --method} when none is given. */
  public static final String DEFAULT = "exact";

  /** Names that stand for a list of methods: {@code both} is exact then near. */
  private static final Map<String, List<String>> ALIASES = Map.of("both", List.of("exact", "near"));

  private static final Map<String, FingerprintMethod> KNOWN = load();

  private FingerprintMethods() {}

  private static Map<String, FingerprintMethod> load() {
    Map<String, FingerprintMethod> known = new LinkedHashMap<>();
    List<FingerprintMethod> all = new ArrayList<>(BUILT_IN);
    ServiceLoader.load(FingerprintMethod.class, FingerprintMethods.class.getClassLoader())
        .forEach(all::add);
    for (FingerprintMethod method : all) {
      String name = method.name();
      DeletionPlan.Rule.of(name); // validates the name as a rule label
      if (name.length() > DeletionPlan.Rule.MAX_METHOD_NAME || name.contains("+")) {
        throw new IllegalStateException(
            "fingerprint method name '"
                + name
                + "' must be a lower-case identifier of at most "
                + DeletionPlan.Rule.MAX_METHOD_NAME
                + " characters, so that a combined rule ('exact+"
                + name
                + "') fits the 16-character rule columns");
      }
      if (ALIASES.containsKey(name) || known.putIfAbsent(name, method) != null) {
        throw new IllegalStateException(
            "two fingerprint methods are named '"
                + name
                + "': "
                + known.getOrDefault(name, method).getClass().getName()
                + " and "
                + method.getClass().getName());
      }
    }
    return Map.copyOf(known);
  }

  /**
   * Whether {@code method} is built in, as opposed to found on the class path: a built-in method's
   * settings are documented in {@code config/dedup.properties}, another's with its own jar.
   */
  public static boolean isBuiltIn(FingerprintMethod method) {
    return BUILT_IN.contains(method);
  }

  /** Every known method: the built-in ones first, in their order. */
  public static List<FingerprintMethod> known() {
    List<FingerprintMethod> known = new ArrayList<>(BUILT_IN);
    KNOWN.values().stream()
        .filter(m -> !BUILT_IN.contains(m))
        .sorted(java.util.Comparator.comparing(FingerprintMethod::name))
        .forEach(known::add);
    return List.copyOf(known);
  }

  /**
   * The methods named in {@code spec}, comma-separated, in the order given ({@code exact,near}); an
   * alias ({@code both}) stands for its methods.
   *
   * @throws IllegalArgumentException naming the known methods, for an unknown, empty or repeated
   *     name
   */
  public static List<FingerprintMethod> parse(String spec) {
    Set<FingerprintMethod> methods = new LinkedHashSet<>();
    for (String part : spec.split(",", -1)) {
      String name = part.trim();
      for (String one : ALIASES.getOrDefault(name, List.of(name))) {
        FingerprintMethod method = KNOWN.get(one);
        if (method == null) {
          throw new IllegalArgumentException(
              "unknown method '" + name + "' (known: " + knownNames() + ")");
        }
        if (!methods.add(method)) {
          throw new IllegalArgumentException(
              "method '" + one + "' is named twice in '" + spec + "'");
        }
      }
    }
    return List.copyOf(methods);
  }

  /**
   * The pair checks of the known methods, by rule (method name), for the apply's re-check; null for
   * an unknown name or a method whose rule is the exact key.
   */
  public static PairCheck.Factory pairChecks(MethodContext context) {
    return rule -> {
      FingerprintMethod method = KNOWN.get(rule);
      return method == null ? PairCheck.EXACT_KEY : method.openPairCheck(context);
    };
  }

  /** The methods of a stored label ({@link #label}, or an alias); unknown names are left out. */
  public static List<String> namesOf(String label) {
    List<String> names = new ArrayList<>();
    for (String part : label.split(",")) {
      names.addAll(ALIASES.getOrDefault(part.trim(), List.of(part.trim())));
    }
    return names;
  }

  /**
   * The label of a list of methods, as stored in {@code dedup_run.method}: their names,
   * comma-separated.
   */
  public static String label(List<FingerprintMethod> methods) {
    return methods.stream().map(FingerprintMethod::name).collect(Collectors.joining(","));
  }

  /** "exact, near, …; both = exact,near", for messages. */
  public static String knownNames() {
    return known().stream().map(FingerprintMethod::name).collect(Collectors.joining(", "))
        + ALIASES.entrySet().stream()
            .map(e -> "; " + e.getKey() + " = " + String.join(",", e.getValue()))
            .collect(Collectors.joining());
  }
}
