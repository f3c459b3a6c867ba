package org.nd4j.evaluation.classification;

import java.util.Arrays;
import org.nd4j.evaluation.BaseEvaluation;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.IMetric;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * Binary ROC, as ND4J's ROC in its exact mode (the default): AUC and AUPRC from every (probability,
 * label) pair, curves traced in descending probability with trapezoids, as ND4J computes them
 * (tied probabilities are taken in the order sorting leaves them, as in ND4J). Labels and
 * predictions are one column (the positive class's probability) or two (column 1 used). The pairs
 * are kept in Java arrays and sorted there: the runtime has no sort op yet. ND4J's thresholded mode
 * ({@code new ROC(steps)} with steps > 0) is refused.
 */
public class ROC extends BaseEvaluation<ROC> {
  private static final long serialVersionUID = 1L;

  /** ND4J's ROC metrics. */
  @SuppressWarnings("rawtypes")
  public enum Metric implements IMetric {
    AUROC, AUPRC;

    @Override
    public Class<? extends IEvaluation> getEvaluationClass() {
      return ROC.class;
    }

    @Override
    public boolean minimize() {
      return false;
    }
  }

  private double[] prob = new double[64];
  private boolean[] positive = new boolean[64];
  private int count;
  private long countActualPositive;
  private long countActualNegative;

  public ROC() {
    this(0);
  }

  public ROC(int thresholdSteps) {
    if (thresholdSteps > 0) {
      throw new UnsupportedOperationException("ROC(" + thresholdSteps + "): thresholded ROC is not in ndrt yet (exact "
          + "mode, new ROC() or new ROC(0), is)");
    }
  }

  public ROC(int thresholdSteps, boolean rocRemoveRedundantPts) {
    this(thresholdSteps);
  }

  @Override
  public void eval(INDArray labels, INDArray predictions, INDArray mask) {
    INDArray[] p = reshapeAndExtractNotMasked(labels, predictions, mask);
    if (p == null) {
      return;
    }
    if (p[2] != null) {
      throw new UnsupportedOperationException("ROC.eval with a per-output mask is not in ndrt yet");
    }
    long cols = p[0].size(1);
    if (cols > 2 || p[1].size(1) != cols) {
      throw new IllegalArgumentException("Invalid input data shape: labels shape = " + Arrays.toString(labels.shape())
          + ", predictions shape = " + Arrays.toString(predictions.shape())
          + "; require rank 2 array with size(1) == 1 or 2");
    }
    int c = (int) cols - 1;
    add(p[0].getColumn(c).castTo(DataType.DOUBLE).toDoubleVector(),
        p[1].getColumn(c).castTo(DataType.DOUBLE).toDoubleVector());
  }

  /** Adds pairs: labels 1 (positive) or 0, probabilities of the positive class. */
  void add(double[] labels, double[] probs) {
    if (count + labels.length > prob.length) {
      int n = Math.max(prob.length * 2, count + labels.length);
      prob = Arrays.copyOf(prob, n);
      positive = Arrays.copyOf(positive, n);
    }
    for (int i = 0; i < labels.length; i++) {
      prob[count] = probs[i];
      positive[count] = labels[i] != 0;
      if (positive[count]) {
        countActualPositive++;
      } else {
        countActualNegative++;
      }
      count++;
    }
  }

  /** The pairs' order: descending probability (stable for ties). */
  private Integer[] order() {
    Integer[] idx = new Integer[count];
    for (int i = 0; i < count; i++) {
      idx[i] = i;
    }
    Arrays.sort(idx, (a, b) -> Double.compare(prob[b], prob[a]));
    return idx;
  }

  private void requireData(String what) {
    if (count == 0) {
      throw new IllegalStateException("Unable to calculate " + what + ": no evaluation has been performed (no examples)");
    }
  }

  /** Area under the ROC curve: (0, 0), then (FPR, TPR) after each example in descending order, then (1, 1). */
  public double calculateAUC() {
    requireData("AUC");
    double area = 0, x = 0, y = 0;
    long tp = 0, fp = 0;
    for (int i : order()) {
      if (positive[i]) {
        tp++;
      } else {
        fp++;
      }
      double nx = fp / (double) countActualNegative, ny = tp / (double) countActualPositive;
      area += Math.abs(nx - x) * (y + ny) / 2;
      x = nx;
      y = ny;
    }
    return area + Math.abs(1 - x) * (y + 1) / 2;
  }

  /**
   * Area under the precision/recall curve: (recall 0, precision 1), then after each example in
   * descending order, then (1, positives / examples), trapezoids over recall.
   */
  public double calculateAUCPR() {
    requireData("AUPRC");
    double area = 0, rec = 0, prec = 1;
    long tp = 0;
    int k = 0;
    for (int i : order()) {
      k++;
      if (positive[i]) {
        tp++;
      }
      double nr = tp / (double) countActualPositive, np = tp / (double) k;
      area += Math.abs(nr - rec) * (prec + np) / 2;
      rec = nr;
      prec = np;
    }
    double lastPrec = tp / (double) count;
    return area + Math.abs(1 - rec) * (prec + lastPrec) / 2;
  }

  public long getCountActualPositive() {
    return countActualPositive;
  }

  public long getCountActualNegative() {
    return countActualNegative;
  }

  @Override
  public void merge(ROC other) {
    double[] l = new double[other.count];
    for (int i = 0; i < other.count; i++) {
      l[i] = other.positive[i] ? 1 : 0;
    }
    add(l, Arrays.copyOf(other.prob, other.count));
  }

  @Override
  public void reset() {
    count = 0;
    countActualPositive = 0;
    countActualNegative = 0;
  }

  @Override
  public ROC newInstance() {
    return new ROC();
  }

  public double scoreForMetric(Metric metric) {
    return metric == Metric.AUROC ? calculateAUC() : calculateAUCPR();
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
    if (count == 0) {
      return "ROC: No data available (no data has been performed)";
    }
    return "AUC (Area under ROC Curve):                " + calculateAUC() + "\n"
        + "AUPRC (Area under Precision/Recall Curve): " + calculateAUCPR();
  }
}
