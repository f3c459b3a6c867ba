package org.nd4j.evaluation.classification;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** Counts of (actual, predicted) class pairs, as ND4J's ConfusionMatrix (read-only view here). */
public class ConfusionMatrix<T extends Comparable<? super T>> implements Serializable {
  private static final long serialVersionUID = 1L;
  private final long[][] counts;
  private final List<Integer> classes;

  ConfusionMatrix(long[][] counts) {
    this.counts = counts;
    this.classes = new ArrayList<>();
    for (int i = 0; i < counts.length; i++) {
      classes.add(i);
    }
  }

  public int getCount(Integer actual, Integer predicted) {
    return (int) counts[actual][predicted];
  }

  public int getPredictedTotal(Integer predicted) {
    long n = 0;
    for (long[] row : counts) {
      n += row[predicted];
    }
    return (int) n;
  }

  public int getActualTotal(Integer actual) {
    long n = 0;
    for (long v : counts[actual]) {
      n += v;
    }
    return (int) n;
  }

  /** The classes, 0 to n-1. */
  @SuppressWarnings("unchecked")
  public List<T> getClasses() {
    return (List<T>) new ArrayList<>(classes);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int a = 0; a < counts.length; a++) {
      for (int p = 0; p < counts.length; p++) {
        sb.append(p == 0 ? "" : ",").append(counts[a][p]);
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
