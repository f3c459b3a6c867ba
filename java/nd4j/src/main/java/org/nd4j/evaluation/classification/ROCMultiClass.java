package org.nd4j.evaluation.classification;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.evaluation.BaseEvaluation;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.IMetric;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/** One-vs-all ROC per class (exact mode), as ND4J's ROCMultiClass: per-class and averaged AUC / AUPRC. */
public class ROCMultiClass extends BaseEvaluation<ROCMultiClass> {
  private static final long serialVersionUID = 1L;
  public static final int DEFAULT_STATS_PRECISION = 4;

  /** ND4J's ROCMultiClass metrics (averaged over the classes). */
  @SuppressWarnings("rawtypes")
  public enum Metric implements IMetric {
    AUROC, AUPRC;

    @Override
    public Class<? extends IEvaluation> getEvaluationClass() {
      return ROCMultiClass.class;
    }

    @Override
    public boolean minimize() {
      return false;
    }
  }

  private ROC[] underlying;
  private List<String> labels;

  public ROCMultiClass() {
    this(0);
  }

  public ROCMultiClass(int thresholdSteps) {
    if (thresholdSteps > 0) {
      throw new UnsupportedOperationException("ROCMultiClass(" + thresholdSteps + "): thresholded ROC is not in ndrt "
          + "yet (exact mode, new ROCMultiClass() or new ROCMultiClass(0), is)");
    }
  }

  public ROCMultiClass(int thresholdSteps, boolean rocRemoveRedundantPts) {
    this(thresholdSteps);
  }

  public void setLabelNames(List<String> labels) {
    this.labels = labels == null ? null : new ArrayList<>(labels);
  }

  @Override
  public void eval(INDArray labelsArr, INDArray predictions, INDArray mask) {
    INDArray[] p = reshapeAndExtractNotMasked(labelsArr, predictions, mask);
    if (p == null) {
      return;
    }
    if (p[2] != null) {
      throw new UnsupportedOperationException("ROCMultiClass.eval with a per-output mask is not in ndrt yet");
    }
    int n = (int) p[0].size(1);
    if (underlying == null) {
      underlying = new ROC[n];
      for (int i = 0; i < n; i++) {
        underlying[i] = new ROC();
      }
    }
    if (n != underlying.length || p[1].size(1) != n) {
      throw new IllegalArgumentException("Cannot evaluate data: number of label classes does not match previous "
          + "call. Got " + n + " labels (from array shape " + Arrays.toString(labelsArr.shape()) + ") vs. expected "
          + underlying.length);
    }
    double[][] l = p[0].castTo(DataType.DOUBLE).toDoubleMatrix();
    double[][] q = p[1].castTo(DataType.DOUBLE).toDoubleMatrix();
    for (int c = 0; c < n; c++) {
      double[] lc = new double[l.length], qc = new double[l.length];
      for (int i = 0; i < l.length; i++) {
        lc[i] = l[i][c];
        qc[i] = q[i][c];
      }
      underlying[c].add(lc, qc);
    }
  }

  private void assertIndex(int c) {
    if (underlying == null) {
      throw new IllegalStateException("Unable to get ROC: no evaluation has been performed (no data)");
    }
    if (c < 0 || c >= underlying.length) {
      throw new IllegalArgumentException("Invalid class index (" + c + "): must be in range 0 to "
          + (underlying.length - 1));
    }
  }

  public double calculateAUC(int classIdx) {
    assertIndex(classIdx);
    return underlying[classIdx].calculateAUC();
  }

  public double calculateAUCPR(int classIdx) {
    assertIndex(classIdx);
    return underlying[classIdx].calculateAUCPR();
  }

  public double calculateAverageAUC() {
    assertIndex(0);
    double s = 0;
    for (ROC r : underlying) {
      s += r.calculateAUC();
    }
    return s / underlying.length;
  }

  public double calculateAverageAUCPR() {
    assertIndex(0);
    double s = 0;
    for (ROC r : underlying) {
      s += r.calculateAUCPR();
    }
    return s / underlying.length;
  }

  public long getCountActualPositive(int classIdx) {
    assertIndex(classIdx);
    return underlying[classIdx].getCountActualPositive();
  }

  public long getCountActualNegative(int classIdx) {
    assertIndex(classIdx);
    return underlying[classIdx].getCountActualNegative();
  }

  public int getNumClasses() {
    return underlying == null ? -1 : underlying.length;
  }

  @Override
  public void merge(ROCMultiClass other) {
    if (other.underlying == null) {
      return;
    }
    if (underlying == null) {
      underlying = new ROC[other.underlying.length];
      for (int i = 0; i < underlying.length; i++) {
        underlying[i] = new ROC();
      }
    }
    if (other.underlying.length != underlying.length) {
      throw new IllegalArgumentException("Cannot merge ROCMultiClass instances with different number of classes");
    }
    for (int i = 0; i < underlying.length; i++) {
      underlying[i].merge(other.underlying[i]);
    }
  }

  @Override
  public void reset() {
    underlying = null;
  }

  @Override
  public ROCMultiClass newInstance() {
    return new ROCMultiClass();
  }

  public double scoreForMetric(Metric metric) {
    return metric == Metric.AUROC ? calculateAverageAUC() : calculateAverageAUCPR();
  }

  @Override
  public double getValue(IMetric metric) {
    if (metric instanceof Metric) {
      return scoreForMetric((Metric) metric);
    }
    throw new IllegalStateException("Can't get value for non-ROC Metric " + metric);
  }

  @Override
  public String stats() {
    return stats(DEFAULT_STATS_PRECISION);
  }

  /** As ND4J prints it (its "Average AUC" follows the last row on the same line). */
  public String stats(int printPrecision) {
    StringBuilder sb = new StringBuilder();
    int width = 15;
    if (labels != null) {
      for (String s : labels) {
        width = Math.max(width, s.length());
      }
    }
    sb.append(String.format("%-" + (width + 5) + "s%-12s%-10s%-10s", "Label", "AUC", "# Pos", "# Neg"));
    String row = "%-" + (width + 5) + "s%-12." + printPrecision + "f%-10d%-10d";
    if (underlying == null) {
      return sb.append("\n-- No Data --\n").toString();
    }
    for (int i = 0; i < underlying.length; i++) {
      String label = labels == null ? String.valueOf(i) : labels.get(i);
      sb.append("\n").append(String.format(row, label, calculateAUC(i), getCountActualPositive(i),
          getCountActualNegative(i)));
    }
    sb.append("Average AUC: ").append(String.format("%-12." + printPrecision + "f", calculateAverageAUC()));
    return sb.toString();
  }
}
