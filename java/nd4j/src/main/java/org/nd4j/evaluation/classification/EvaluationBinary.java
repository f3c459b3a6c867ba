package org.nd4j.evaluation.classification;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.evaluation.BaseEvaluation;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.IMetric;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Independent binary classifications, one per output column (multi-label sigmoid outputs), as ND4J's
 * EvaluationBinary: an output is 1 where its probability exceeds 0.5 (or that column's decision
 * threshold); TP/TN/FP/FN counts per output come from runtime comparisons and column sums; masks per
 * example or per output. The ROC option ({@code new EvaluationBinary(size, rocBinarySteps)}) is
 * refused (no ROCBinary yet).
 */
public class EvaluationBinary extends BaseEvaluation<EvaluationBinary> {
  private static final long serialVersionUID = 1L;
  public static final int DEFAULT_PRECISION = 4;
  public static final double DEFAULT_EDGE_VALUE = 0.0;

  /** ND4J's per-output metrics. */
  @SuppressWarnings("rawtypes")
  public enum Metric implements IMetric {
    ACCURACY, F1, PRECISION, RECALL, GMEASURE, MCC, FAR;

    @Override
    public Class<? extends IEvaluation> getEvaluationClass() {
      return EvaluationBinary.class;
    }

    @Override
    public boolean minimize() {
      return this == FAR;
    }
  }

  private long[] tp, fp, tn, fn;
  private INDArray decisionThreshold;
  private List<String> labels;

  public EvaluationBinary() {}

  public EvaluationBinary(INDArray decisionThreshold) {
    if (decisionThreshold != null) {
      if (!decisionThreshold.isRowVectorOrScalar()) {
        throw new IllegalArgumentException("Decision threshold array must be a row vector; got array with shape "
            + Arrays.toString(decisionThreshold.shape()));
      }
      if (decisionThreshold.minNumber().doubleValue() < 0.0) {
        throw new IllegalArgumentException("Invalid decision threshold array: minimum value is less than 0");
      }
      if (decisionThreshold.maxNumber().doubleValue() > 1.0) {
        throw new IllegalArgumentException("invalid decision threshold array: maximum value is greater than 1.0");
      }
      this.decisionThreshold = decisionThreshold.reshape(1, decisionThreshold.length());
    }
  }

  public EvaluationBinary(int size, Integer rocBinarySteps) {
    if (rocBinarySteps != null) {
      throw new UnsupportedOperationException("EvaluationBinary(size, rocBinarySteps): ROCBinary is not in ndrt yet");
    }
    tp = new long[size];
    fp = new long[size];
    tn = new long[size];
    fn = new long[size];
  }

  public void setLabelNames(List<String> labels) {
    this.labels = labels == null ? null : new ArrayList<>(labels);
  }

  @Override
  public void eval(INDArray labelsArr, INDArray predictionsArr, INDArray maskArr) {
    INDArray[] p = reshapeAndExtractNotMasked(labelsArr, predictionsArr, maskArr);
    if (p == null) {
      return;
    }
    INDArray predictions = p[1];
    INDArray y = p[0].castTo(predictions.dataType());
    if (tp != null && tp.length != y.size(1)) {
      throw new IllegalStateException("Labels array does not match stored state size. Expected labels array with "
          + "size " + tp.length + ", got labels array with size " + y.size(1) + " for axis 1");
    }
    INDArray predicted = (decisionThreshold == null ? predictions.gt(0.5)
        : predictions.gt(decisionThreshold.castTo(predictions.dataType()))).castTo(predictions.dataType());
    INDArray notY = y.rsub(1.0), notPredicted = predicted.rsub(1.0);
    INDArray[] parts = {predicted.mul(y), notPredicted.mul(notY), predicted.mul(notY), notPredicted.mul(y)};
    if (p[2] != null) {
      INDArray m = p[2].castTo(predictions.dataType());
      for (INDArray a : parts) {
        a.muli(m);
      }
    }
    if (tp == null) {
      int n = (int) y.size(1);
      tp = new long[n];
      tn = new long[n];
      fp = new long[n];
      fn = new long[n];
    }
    long[][] counts = {tp, tn, fp, fn};
    for (int k = 0; k < 4; k++) {
      double[] s = parts[k].sum(0).castTo(DataType.DOUBLE).toDoubleVector();
      for (int i = 0; i < s.length; i++) {
        counts[k][i] += Math.round(s[i]);
      }
    }
  }

  @Override
  public void merge(EvaluationBinary other) {
    if (other.tp == null) {
      return;
    }
    if (tp == null) {
      tp = other.tp.clone();
      tn = other.tn.clone();
      fp = other.fp.clone();
      fn = other.fn.clone();
      return;
    }
    if (tp.length != other.tp.length) {
      throw new IllegalStateException("Cannot merge EvaluationBinary instances with different sizes. This "
          + "size: " + tp.length + ", other size: " + other.tp.length);
    }
    for (int i = 0; i < tp.length; i++) {
      tp[i] += other.tp[i];
      tn[i] += other.tn[i];
      fp[i] += other.fp[i];
      fn[i] += other.fn[i];
    }
  }

  @Override
  public void reset() {
    tp = fp = tn = fn = null;
  }

  @Override
  public EvaluationBinary newInstance() {
    return new EvaluationBinary(decisionThreshold);
  }

  private void assertIndex(int i) {
    if (tp == null) {
      throw new UnsupportedOperationException("EvaluationBinary does not have any stats: eval must be called first");
    }
    if (i < 0 || i >= tp.length) {
      throw new IllegalArgumentException("Invalid index: must be in range 0 to numOutputs()-1 = " + (tp.length - 1));
    }
  }

  public int numLabels() {
    return tp == null ? -1 : tp.length;
  }

  public int totalCount(int i) {
    assertIndex(i);
    return (int) (tp[i] + tn[i] + fp[i] + fn[i]);
  }

  public int truePositives(int i) { assertIndex(i); return (int) tp[i]; }
  public int trueNegatives(int i) { assertIndex(i); return (int) tn[i]; }
  public int falsePositives(int i) { assertIndex(i); return (int) fp[i]; }
  public int falseNegatives(int i) { assertIndex(i); return (int) fn[i]; }

  public double accuracy(int i) {
    return (truePositives(i) + trueNegatives(i)) / (double) totalCount(i);
  }

  public double precision(int i) {
    return truePositives(i) / (double) (truePositives(i) + falsePositives(i));
  }

  public double recall(int i) {
    return truePositives(i) / (double) (truePositives(i) + falseNegatives(i));
  }

  public double fBeta(double beta, int i) {
    double p = precision(i), r = recall(i);
    return p == 0 || r == 0 ? 0 : (1 + beta * beta) * p * r / (beta * beta * p + r);
  }

  public double f1(int i) {
    return fBeta(1.0, i);
  }

  public double gMeasure(int i) {
    return Math.sqrt(precision(i) * recall(i));
  }

  public double matthewsCorrelation(int i) {
    double a = truePositives(i), b = falsePositives(i), c = falseNegatives(i), d = trueNegatives(i);
    return (a * d - b * c) / Math.sqrt((a + b) * (a + c) * (d + b) * (d + c));
  }

  public double falsePositiveRate(int i) {
    return falsePositiveRate(i, DEFAULT_EDGE_VALUE);
  }

  public double falsePositiveRate(int i, double edgeCase) {
    long f = falsePositives(i), t = trueNegatives(i);
    return f == 0 && t == 0 ? edgeCase : f / (double) (f + t);
  }

  public double falseNegativeRate(Integer i) {
    return falseNegativeRate(i, DEFAULT_EDGE_VALUE);
  }

  public double falseNegativeRate(Integer i, double edgeCase) {
    long f = falseNegatives(i), t = truePositives(i);
    return f == 0 && t == 0 ? edgeCase : f / (double) (f + t);
  }

  public double falseAlarmRate(int i) {
    return (falsePositiveRate(i) + falseNegativeRate(i)) / 2.0;
  }

  private double average(java.util.function.IntToDoubleFunction f) {
    double s = 0;
    for (int i = 0; i < numLabels(); i++) {
      s += f.applyAsDouble(i);
    }
    return s / numLabels();
  }

  public double averageAccuracy() { return average(this::accuracy); }
  public double averagePrecision() { return average(this::precision); }
  public double averageRecall() { return average(this::recall); }
  public double averageF1() { return average(this::f1); }

  public double scoreForMetric(Metric metric, int i) {
    switch (metric) {
      case ACCURACY: return accuracy(i);
      case F1: return f1(i);
      case PRECISION: return precision(i);
      case RECALL: return recall(i);
      case GMEASURE: return gMeasure(i);
      case MCC: return matthewsCorrelation(i);
      default: return falseAlarmRate(i);
    }
  }

  @Override
  public double getValue(IMetric metric) {
    throw new IllegalStateException("Can't get value for non-binary evaluation Metric " + metric
        + " (EvaluationBinary's metrics are per output: use scoreForMetric(metric, output))");
  }

  @Override
  public String stats() {
    return stats(DEFAULT_PRECISION);
  }

  /** As ND4J prints it: one row per output. */
  public String stats(int printPrecision) {
    int width = 15;
    if (labels != null) {
      for (String s : labels) {
        width = Math.max(width, s.length());
      }
    }
    String sub = "%-12." + printPrecision + "f";
    String row = "%-" + (width + 5) + "s" + sub + sub + sub + sub + "%-8d%-7d%-7d%-7d%-7d";
    StringBuilder sb = new StringBuilder(String.format("%-" + (width + 5) + "s%-12s%-12s%-12s%-12s%-8s%-7s%-7s%-7s%-7s",
        "Label", "Accuracy", "F1", "Precision", "Recall", "Total", "TP", "TN", "FP", "FN"));
    if (tp == null) {
      return sb.append("\n-- No Data --\n").toString();
    }
    for (int i = 0; i < tp.length; i++) {
      sb.append("\n").append(String.format(row, labels == null ? String.valueOf(i) : labels.get(i), accuracy(i), f1(i),
          precision(i), recall(i), totalCount(i), truePositives(i), trueNegatives(i), falsePositives(i),
          falseNegatives(i)));
    }
    if (decisionThreshold != null) {
      sb.append("\nPer-output decision thresholds: ")
          .append(Arrays.toString(decisionThreshold.castTo(DataType.FLOAT).toFloatVector()));
    }
    return sb.toString();
  }
}
