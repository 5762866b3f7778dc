package org.xiaochong.report;

import static org.xiaochong.report.HtmlText.escape;

/** The characters two texts do not share, marked for the review's side-by-side pairs. Stateless. */
final class DiffMarks {
  /** Longer texts are shown without highlighting (the diff is quadratic). */
  private static final int DIFF_LIMIT = 2000;

  private DiffMarks() {}

  /**
   * Both texts, escaped, with the characters outside their longest common subsequence in {@code
   * <mark>}. Plain dynamic programming, O(n·m): texts longer than {@link #DIFF_LIMIT} are shown as
   * is.
   */
  static String[] highlight(String a, String b) {
    if (a.length() > DIFF_LIMIT || b.length() > DIFF_LIMIT || a.equals(b)) {
      return new String[] {escape(a), escape(b)};
    }
    int[][] lcs = new int[a.length() + 1][b.length() + 1];
    for (int i = a.length() - 1; i >= 0; i--) {
      for (int j = b.length() - 1; j >= 0; j--) {
        lcs[i][j] =
            a.charAt(i) == b.charAt(j)
                ? lcs[i + 1][j + 1] + 1
                : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    boolean[] inA = new boolean[a.length()];
    boolean[] inB = new boolean[b.length()];
    for (int i = 0, j = 0; i < a.length() && j < b.length(); ) {
      if (a.charAt(i) == b.charAt(j)) {
        inA[i++] = true;
        inB[j++] = true;
      } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
        i++;
      } else {
        j++;
      }
    }
    return new String[] {marked(a, inA), marked(b, inB)};
  }

  private static String marked(String text, boolean[] common) {
    StringBuilder out = new StringBuilder();
    boolean open = false;
    for (int i = 0; i < text.length(); i++) {
      if (!common[i] && !open) {
        out.append("<mark>");
        open = true;
      } else if (common[i] && open) {
        out.append("</mark>");
        open = false;
      }
      out.append(escape(String.valueOf(text.charAt(i))));
    }
    if (open) {
      out.append("</mark>");
    }
    return out.toString();
  }
}
