package org.xiaochong.report;

import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * The report's charts as inline SVG: horizontal bars (one labelled row per item) and columns (a
 * histogram or a time line, with optional vertical markers such as a threshold). Plain SVG elements
 * with their numbers in {@code <title>} (shown on hover), no script and no external resource, so
 * the report stays one file that opens offline. Every label passes through {@link HtmlText#escape}:
 * labels come from the data (rule names, months, column values). Stateless.
 */
final class SvgChart {
  /**
   * Width of every chart in CSS pixels: two fit side by side in the report's 1,400-pixel first
   * screen.
   */
  static final int WIDTH = 600;

  static final String BAR_COLOUR = "#4a7fb5";
  static final String MARKER_COLOUR = "#d9480f";

  /** One bar or column: its label, its length, and the text shown beside or over it. */
  record Bar(String label, double value, String text) {}

  /**
   * A vertical line across a column chart at {@code x} (in the x axis' units), e.g. a threshold.
   */
  record Marker(double x, String label) {}

  private SvgChart() {}

  /** Horizontal bars, longest value = full width; each row "label | bar | text". */
  static String bars(String id, String title, List<Bar> bars) {
    int labelWidth = 150;
    int textWidth = 110;
    int row = 26;
    int height = Math.max(1, bars.size()) * row + 8;
    double max = bars.stream().mapToDouble(Bar::value).max().orElse(0);
    StringBuilder svg = open(id, title, height);
    if (bars.isEmpty()) {
      text(svg, 8, 20, "start", "none");
    }
    for (int i = 0; i < bars.size(); i++) {
      Bar bar = bars.get(i);
      int y = 4 + i * row;
      double length = max <= 0 ? 0 : (WIDTH - labelWidth - textWidth) * bar.value() / max;
      text(svg, labelWidth - 8, y + 17, "end", bar.label());
      svg.append("<rect x=\"")
          .append(labelWidth)
          .append("\" y=\"")
          .append(y + 3)
          .append("\" width=\"")
          .append(format(Math.max(bar.value() > 0 ? 1 : 0, length)))
          .append("\" height=\"")
          .append(row - 8)
          .append("\" fill=\"")
          .append(BAR_COLOUR)
          .append("\"><title>")
          .append(HtmlText.escape(bar.label()))
          .append(": ")
          .append(HtmlText.escape(bar.text()))
          .append("</title></rect>\n");
      text(svg, labelWidth + length + 6, y + 17, "start", bar.text());
    }
    return svg.append("</svg>\n").toString();
  }

  /**
   * Columns over an axis from {@code from} to {@code to} ({@code columns.size()} equal steps),
   * their labels under them (every k-th when they would overlap), and the markers as vertical
   * lines.
   */
  static String columns(
      String id,
      String title,
      List<Bar> columns,
      double from,
      double to,
      List<Marker> markers,
      LongFunction<String> axisText) {
    int left = 56;
    int right = 12;
    int top = 22;
    int plot = 170;
    int height = top + plot + 40;
    StringBuilder svg = open(id, title, height);
    double max = columns.stream().mapToDouble(Bar::value).max().orElse(0);
    double step = columns.isEmpty() ? 0 : (WIDTH - left - right) / (double) columns.size();
    // Axis: the largest value at the top, 0 at the bottom.
    svg.append("<line x1=\"")
        .append(left)
        .append("\" y1=\"")
        .append(top + plot)
        .append("\" x2=\"")
        .append(WIDTH - right)
        .append("\" y2=\"")
        .append(top + plot)
        .append("\" stroke=\"#888\"/>\n");
    text(svg, left - 6, top + 10, "end", axisText.apply(Math.round(max)));
    text(svg, left - 6, top + plot, "end", "0");
    int every = Math.max(1, (int) Math.ceil(columns.size() * 56.0 / (WIDTH - left - right)));
    for (int i = 0; i < columns.size(); i++) {
      Bar column = columns.get(i);
      double h = max <= 0 ? 0 : plot * column.value() / max;
      double x = left + i * step;
      svg.append("<rect x=\"")
          .append(format(x + 1))
          .append("\" y=\"")
          .append(format(top + plot - h))
          .append("\" width=\"")
          .append(format(Math.max(1, step - 2)))
          .append("\" height=\"")
          .append(format(h))
          .append("\" fill=\"")
          .append(BAR_COLOUR)
          .append("\"><title>")
          .append(HtmlText.escape(column.label()))
          .append(": ")
          .append(HtmlText.escape(column.text()))
          .append("</title></rect>\n");
      if (i % every == 0) {
        text(svg, x + step / 2, top + plot + 16, "middle", column.label());
      }
    }
    for (Marker marker : markers) {
      if (to <= from || marker.x() < from || marker.x() > to) {
        continue;
      }
      double x = left + (WIDTH - left - right) * (marker.x() - from) / (to - from);
      svg.append("<line class=\"marker\" x1=\"")
          .append(format(x))
          .append("\" y1=\"")
          .append(top - 6)
          .append("\" x2=\"")
          .append(format(x))
          .append("\" y2=\"")
          .append(top + plot + 4)
          .append("\" stroke=\"")
          .append(MARKER_COLOUR)
          .append("\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>\n");
      svg.append("<text x=\"")
          .append(format(x + 4))
          .append("\" y=\"")
          .append(top - 8)
          .append("\" fill=\"")
          .append(MARKER_COLOUR)
          .append("\" font-size=\"12\">")
          .append(HtmlText.escape(marker.label()))
          .append("</text>\n");
    }
    return svg.append("</svg>\n").toString();
  }

  private static StringBuilder open(String id, String title, int height) {
    StringBuilder svg = new StringBuilder(4096);
    svg.append("<svg id=\"")
        .append(HtmlText.escape(id))
        .append("\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\"")
        .append(" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(height)
        .append("\" font-family=\"system-ui, sans-serif\" font-size=\"12\">")
        .append("<title>")
        .append(HtmlText.escape(title))
        .append("</title>\n");
    return svg;
  }

  private static void text(StringBuilder svg, double x, double y, String anchor, String text) {
    svg.append("<text x=\"")
        .append(format(x))
        .append("\" y=\"")
        .append(format(y))
        .append("\" text-anchor=\"")
        .append(anchor)
        .append("\" fill=\"#222\">")
        .append(HtmlText.escape(text))
        .append("</text>\n");
  }

  private static String format(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }
}
