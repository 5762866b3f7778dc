package org.xiaochong.index;

import java.util.function.IntBinaryOperator;
import org.apache.lucene.util.IntroSorter;

/** Sorting of int arrays (doc numbers) by a comparator of their values, without boxing. */
public final class IntArrays {
  private IntArrays() {}

  /**
   * Sorts {@code values[from, to)} by {@code comparator} (negative, zero or positive, as {@link
   * java.util.Comparator}), with Lucene's {@link IntroSorter}: in place, not stable.
   */
  public static void sort(int[] values, int from, int to, IntBinaryOperator comparator) {
    new IntroSorter() {
      private int pivot;

      @Override
      protected void swap(int i, int j) {
        int t = values[i];
        values[i] = values[j];
        values[j] = t;
      }

      @Override
      protected void setPivot(int i) {
        pivot = values[i];
      }

      @Override
      protected int comparePivot(int j) {
        return comparator.applyAsInt(pivot, values[j]);
      }

      @Override
      protected int compare(int i, int j) {
        return comparator.applyAsInt(values[i], values[j]);
      }
    }.sort(from, to);
  }
}
