package org.xiaochong.urls;

import crawlercommons.filters.basic.BasicURLNormalizer;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Canonical form of a URL for seen-URL dedup, by crawler-commons' {@link BasicURLNormalizer}:
 * scheme and host lower-cased, IDN hosts to punycode, default ports dropped, fragment dropped, dot
 * segments resolved, percent-encoding normalised (unreserved characters decoded, the rest
 * upper-case escaped). Before it, ASCII tab/CR/LF are removed and C0 controls and spaces trimmed,
 * as the WHATWG URL parser does. With {@code sortQuery} the query parameters are sorted
 * (BasicURLNormalizer 1.4 sorts them by name, and always does; without the option this class keeps
 * their order by normalizing each parameter on its own), so {@code ?b=1&a=2} and {@code ?a=2&b=1}
 * collide: right only when the site ignores the order. BasicURLNormalizer also drops user info
 * ({@code user:pass@}) and adds {@code http://} to scheme-less inputs such as {@code
 * www.sec.gov/edgar.shtml}.
 *
 * <p>This is not a WHATWG URL parser: {@code UrlCanonicalizerTest} measures its agreement with the
 * web-platform-tests expectations on crawler-relevant (absolute http/https) inputs.
 *
 * <p>Thread-safe: BasicURLNormalizer keeps no per-call state.
 */
public final class UrlCanonicalizer {

  private final BasicURLNormalizer normalizer;
  private final boolean sortQuery;

  public UrlCanonicalizer(boolean sortQuery) {
    this.normalizer =
        BasicURLNormalizer.newBuilder()
            .idnNormalization(BasicURLNormalizer.IdnNormalization.PUNYCODE)
            .build();
    this.sortQuery = sortQuery;
  }

  /** Whether query parameters are sorted. */
  boolean sortsQuery() {
    return sortQuery;
  }

  /** The canonical URL, or empty if {@code url} is not an absolute URL the normalizer accepts. */
  public Optional<String> canonicalize(String url) {
    String cleaned = stripWhatwgNoise(url);
    if (cleaned.isEmpty()) {
      return Optional.empty();
    }
    if (sortQuery) {
      return normalize(cleaned); // BasicURLNormalizer 1.4 always sorts the query parameters
    }
    // Keep the parameter order: normalize the URL without its query, then each parameter on its
    // own.
    int hash = cleaned.indexOf('#');
    String withoutFragment = hash < 0 ? cleaned : cleaned.substring(0, hash);
    int question = withoutFragment.indexOf('?');
    if (question < 0) {
      return normalize(withoutFragment);
    }
    Optional<String> base = normalize(withoutFragment.substring(0, question));
    if (base.isEmpty()) {
      return base;
    }
    StringBuilder out = new StringBuilder(base.get());
    char separator = '?';
    for (String parameter : withoutFragment.substring(question + 1).split("&")) {
      if (parameter.isEmpty()) {
        continue;
      }
      Optional<String> alone = normalize(PARAMETER_PROBE + parameter);
      if (alone.isEmpty()) {
        return alone;
      }
      int start = alone.get().indexOf('?');
      if (start < 0) {
        continue; // the normalizer dropped it
      }
      out.append(separator).append(alone.get(), start + 1, alone.get().length());
      separator = '&';
    }
    return Optional.of(out.toString());
  }

  /** A fixed prefix to normalize one query parameter in isolation. */
  private static final String PARAMETER_PROBE = "http://parameter.invalid/?";

  private Optional<String> normalize(String url) {
    String normalized;
    try {
      normalized = normalizer.filter(url);
    } catch (RuntimeException e) {
      return Optional.empty(); // the normalizer throws on some malformed hosts and escapes
    }
    if (normalized == null || !WITH_HOST.matcher(normalized).lookingAt()) {
      return Optional
          .empty(); // e.g. "http://" comes back as "http:/": no host, not a crawlable URL
    }
    return Optional.of(normalized);
  }

  /** scheme "://" and a non-empty authority. */
  private static final Pattern WITH_HOST = Pattern.compile("[a-z][a-z0-9+.-]*://[^/?#]+");

  /** Removes ASCII tab and newlines anywhere and trims C0 controls and space at both ends. */
  static String stripWhatwgNoise(String url) {
    int start = 0;
    int end = url.length();
    while (start < end && url.charAt(start) <= ' ') {
      start++;
    }
    while (end > start && url.charAt(end - 1) <= ' ') {
      end--;
    }
    StringBuilder out = new StringBuilder(end - start);
    for (int i = start; i < end; i++) {
      char c = url.charAt(i);
      if (c != '\t' && c != '\n' && c != '\r') {
        out.append(c);
      }
    }
    return out.toString();
  }
}
