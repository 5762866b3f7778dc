package org.xiaochong.serve;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The checks of {@link DedupService} that keep a loopback service for its own host's programs:
 *
 * <ul>
 *   <li><b>Host</b>: on a loopback address, a request must name the loopback (localhost, 127.0.0.1,
 *       [::1]) in its {@code Host} header. A browser page that rebinds its own name to 127.0.0.1
 *       (DNS rebinding) sends its own name there: 421. No {@code Host} at all (HTTP/1.0): 400.
 *   <li><b>Content-Type</b>: a body must be {@code application/json} (UTF-8 if a charset is given):
 *       a page in a browser can send {@code text/plain}, a form or multipart to any address without
 *       asking first (a CORS "simple request"), never {@code application/json}.
 * </ul>
 *
 * Stateless apart from the names allowed; thread-safe.
 */
final class Safeguards {
  /** Host names (lower case, without port) allowed, or null when any is (not loopback). */
  private final Set<String> loopbackNames;

  private Safeguards(Set<String> loopbackNames) {
    this.loopbackNames = loopbackNames;
  }

  /** The checks for a service listening on {@code host}. */
  static Safeguards forHost(String host) {
    boolean loopback;
    try {
      loopback = InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      loopback = false;
    }
    String bound = host.toLowerCase(Locale.ROOT);
    if (bound.contains(":") && !bound.startsWith("[")) {
      bound = "[" + bound + "]";
    }
    Set<String> names = new HashSet<>(List.of("localhost", "127.0.0.1", "[::1]", bound));
    return new Safeguards(loopback ? Set.copyOf(names) : null);
  }

  /** Throws the problem of a {@code Host} header (may be null) this service does not answer to. */
  void checkHost(String hostHeader) {
    if (loopbackNames == null) {
      return;
    }
    if (hostHeader == null || hostHeader.isBlank()) {
      throw new Problem(
          400,
          "invalid-host",
          "Host header missing",
          "send a Host header naming this service (localhost or 127.0.0.1)");
    }
    if (!loopbackNames.contains(withoutPort(hostHeader.strip().toLowerCase(Locale.ROOT)))) {
      throw new Problem(
          421,
          "misdirected-request",
          "Not this service's host",
          "the service listens on the loopback address and answers only to localhost, 127.0.0.1"
              + " or [::1] in the Host header");
    }
  }

  /** {@code name[:port]} or {@code [v6][:port]} without the port. */
  private static String withoutPort(String host) {
    if (host.startsWith("[")) {
      int close = host.indexOf(']');
      return close < 0 ? host : host.substring(0, close + 1);
    }
    int colon = host.lastIndexOf(':');
    return colon < 0 ? host : host.substring(0, colon);
  }

  /** Throws a 415 problem unless {@code contentType} (may be null) is JSON in UTF-8. */
  static void checkJson(String contentType) {
    if (contentType != null) {
      String[] parts = contentType.split(";");
      boolean json = parts[0].strip().equalsIgnoreCase("application/json");
      boolean utf8 = true;
      for (int i = 1; i < parts.length; i++) {
        String[] param = parts[i].strip().split("=", 2);
        if (param[0].strip().equalsIgnoreCase("charset")) {
          String charset = param.length < 2 ? "" : param[1].strip().replace("\"", "");
          utf8 = charset.equalsIgnoreCase("utf-8");
        }
      }
      if (json && utf8) {
        return;
      }
    }
    throw new Problem(
        415,
        "unsupported-media-type",
        "Body must be JSON",
        "send the header 'Content-Type: application/json' (UTF-8), not "
            + (contentType == null ? "none" : "'" + Problem.clipped(contentType) + "'"));
  }
}
