package org.nd4j.evaluation.classification;

import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nd4j.evaluation.BaseEvaluation;
import org.nd4j.evaluation.EvaluationAveraging;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.IMetric;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.ndrt.nd4j.ArrayCore;

/**
 * Classification metrics, as ND4J's Evaluation: eval(labels, predictions[, mask]) on one-hot/softmax
 * rows (argmax), single-column sigmoid outputs (threshold 0.5), time series and masks; accuracy,
 * precision/recall/F1 per class and macro/micro averaged (class 1 alone for two classes, ND4J's
 * binaryPositiveClass), the confusion matrix, and stats() printed as ND4J prints it. The counts are
 * org.ndrt.eval.Evaluation's: the argmax runs on the runtime, one implementation for both APIs.
 */
public class Evaluation extends BaseEvaluation<Evaluation> {
  private static final long serialVersionUID = 1L;
  protected static final double DEFAULT_EDGE_VALUE = 0.0;
  protected static final int CONFUSION_PRINT_MAX_CLASSES = 20;

  /** ND4J's metrics of an Evaluation. */
  @SuppressWarnings("rawtypes")
  public enum Metric implements IMetric {
    ACCURACY, F1, PRECISION, RECALL, GMEASURE, MCC;

    @Override
    public Class<? extends IEvaluation> getEvaluationClass() {
      return Evaluation.class;
    }

    @Override
    public boolean minimize() {
      return false;
    }
  }

  private org.ndrt.eval.Evaluation core;
  private final List<String> labelsList;
  private Integer binaryPositiveClass = 1;
  private final Double binaryDecisionThreshold;
  private int axis = 1;
  protected int maxWarningClassesToPrint = 16;

  public Evaluation() {
    this(0, 1);
  }

  public Evaluation(int numClasses) {
    this(numClasses, 1);
  }

  public Evaluation(int numClasses, Integer binaryPositiveClass) {
    this.core = numClasses > 0 ? new org.ndrt.eval.Evaluation(numClasses) : new org.ndrt.eval.Evaluation();
    this.labelsList = null;
    this.binaryPositiveClass = binaryPositiveClass;
    this.binaryDecisionThreshold = null;
  }

  public Evaluation(List<String> labels) {
    this.core = new org.ndrt.eval.Evaluation(labels);
    this.labelsList = new ArrayList<>(labels);
    this.binaryPositiveClass = 1; // ND4J's default; used only with two classes
    this.binaryDecisionThreshold = null;
  }

  public Evaluation(Map<Integer, String> labels) {
    this(new ArrayList<>(new TreeMap<>(labels).values()));
  }

  public Evaluation(List<String> labels, int topN) {
    this(labels);
    if (topN > 1) {
      throw new UnsupportedOperationException("Evaluation(labels, topN): top-N accuracy is not in ndrt yet");
    }
  }

  /** Binary evaluation: class 1 predicted where its probability exceeds {@code binaryDecisionThreshold}. */
  public Evaluation(double binaryDecisionThreshold) {
    this(binaryDecisionThreshold, 1);
  }

  public Evaluation(double binaryDecisionThreshold, Integer binaryPositiveClass) {
    this.core = new org.ndrt.eval.Evaluation(2);
    this.labelsList = null;
    this.binaryPositiveClass = binaryPositiveClass;
    this.binaryDecisionThreshold = binaryDecisionThreshold;
  }

  public Evaluation(INDArray costArray) {
    throw new UnsupportedOperationException("Evaluation(costArray): cost-sensitive evaluation is not in ndrt yet");
  }

  public Evaluation(List<String> labels, INDArray costArray) {
    throw new UnsupportedOperationException("Evaluation(labels, costArray): cost-sensitive evaluation is not in ndrt yet");
  }

  @Override
  public void reset() {
    core.reset();
  }

  public void setAxis(int axis) {
    if (axis != 1) {
      throw new UnsupportedOperationException("Evaluation.setAxis(" + axis + "): only axis 1 is in ndrt yet");
    }
    this.axis = axis;
  }

  public int getAxis() {
    return axis;
  }

  // ------------------------------------------------------------------------------- adding

  @Override
  public void eval(INDArray labels, INDArray predictions, INDArray mask) {
    INDArray[] p = reshapeAndExtractNotMasked(labels, predictions, mask);
    if (p == null) {
      return; // all masked
    }
    if (p[2] != null) {
      throw new UnsupportedOperationException("Evaluation.eval with a per-output mask: not supported (ND4J neither)");
    }
    INDArray l = p[0], pr = p[1];
    if (!l.equalShapes(pr)) {
      throw new IllegalStateException("Unable to evaluate. Predictions and labels arrays are not same shape."
          + " Predictions shape: " + java.util.Arrays.toString(pr.shape()) + ", Labels shape: "
          + java.util.Arrays.toString(l.shape()));
    }
    long cols = l.size(1);
    if (cols == 1 || binaryDecisionThreshold != null && cols == 2) {
      evalBinary(l, pr, cols);
      return;
    }
    core.eval(ArrayCore.tensorOf(l), ArrayCore.tensorOf(pr));
  }

  /** Single sigmoid column (or two columns with a threshold): class 1 where p > threshold. */
  private void evalBinary(INDArray l, INDArray pr, long cols) {
    double threshold = binaryDecisionThreshold == null ? 0.5 : binaryDecisionThreshold;
    double[][] ls = l.castTo(DataType.DOUBLE).toDoubleMatrix();
    double[][] ps = pr.castTo(DataType.DOUBLE).toDoubleMatrix();
    int[] actual = new int[ls.length];
    int[] predicted = new int[ls.length];
    for (int i = 0; i < ls.length; i++) {
      int c = (int) cols - 1;
      actual[i] = cols == 1 ? (ls[i][0] > 0.5 ? 1 : 0) : (ls[i][1] > ls[i][0] ? 1 : 0);
      predicted[i] = ps[i][c] > threshold ? 1 : 0;
    }
    if (core.numClasses() == 0) {
      core = new org.ndrt.eval.Evaluation(2);
    }
    core.eval(actual, predicted);
  }

  public void eval(int predictedIdx, int actualIdx) {
    if (core.numClasses() == 0) {
      throw new UnsupportedOperationException("Cannot evaluate single example: number of classes is unknown "
          + "(use new Evaluation(numClasses))");
    }
    core.eval(actualIdx, predictedIdx);
  }

  @Override
  public void merge(Evaluation other) {
    if (other == null) {
      return;
    }
    if (core.numClasses() == 0 && other.core.numClasses() > 0 && labelsList == null) {
      core = new org.ndrt.eval.Evaluation(other.core.numClasses());
    }
    core.merge(other.core);
  }

  @Override
  public Evaluation newInstance() {
    return labelsList != null ? new Evaluation(labelsList) : new Evaluation(core.numClasses(), binaryPositiveClass);
  }

  // ------------------------------------------------------------------------------- counts

  private void requireData(String what) {
    if (core.numExamples() == 0) {
      throw new IllegalStateException("Cannot get " + what + ": no evaluation has been performed");
    }
  }

  public int numClasses() {
    return core.numClasses();
  }

  public int getNumRowCounter() {
    return (int) core.numExamples();
  }

  public int classCount(Integer clazz) {
    return (int) core.classCount(clazz);
  }

  public String getClassLabel(Integer clazz) {
    return labelsList != null && labelsList.size() > clazz ? labelsList.get(clazz) : clazz.toString();
  }

  public ConfusionMatrix<Integer> getConfusionMatrix() {
    return core.numClasses() == 0 ? null : new ConfusionMatrix<>(core.getConfusionMatrix());
  }

  public ConfusionMatrix<Integer> getConfusion() {
    return getConfusionMatrix();
  }

  private Map<Integer, Integer> perClass(java.util.function.IntToLongFunction f) {
    Map<Integer, Integer> m = new LinkedHashMap<>();
    for (int c = 0; c < core.numClasses(); c++) {
      m.put(c, (int) f.applyAsLong(c));
    }
    return m;
  }

  public Map<Integer, Integer> truePositives() { return perClass(core::truePositives); }
  public Map<Integer, Integer> falsePositives() { return perClass(core::falsePositives); }
  public Map<Integer, Integer> falseNegatives() { return perClass(core::falseNegatives); }
  public Map<Integer, Integer> trueNegatives() { return perClass(core::trueNegatives); }
  public Map<Integer, Integer> positive() { return perClass(c -> core.truePositives(c) + core.falseNegatives(c)); }
  public Map<Integer, Integer> negative() { return perClass(c -> core.trueNegatives(c) + core.falsePositives(c)); }

  public Integer getBinaryPositiveClass() {
    return binaryPositiveClass;
  }

  public void setBinaryPositiveClass(Integer binaryPositiveClass) {
    this.binaryPositiveClass = binaryPositiveClass;
  }

  public Double getBinaryDecisionThreshold() {
    return binaryDecisionThreshold;
  }

  public int getTopN() {
    return 1;
  }

  private boolean binary() {
    return binaryPositiveClass != null && core.numClasses() == 2;
  }

  // ------------------------------------------------------------------------------- metrics

  public double accuracy() {
    requireData("accuracy");
    return core.accuracy();
  }

  /** Top-N accuracy with N = 1: the accuracy. */
  public double topNAccuracy() {
    return accuracy();
  }

  public double precision(Integer classLabel) {
    return precision(classLabel, DEFAULT_EDGE_VALUE);
  }

  public double precision(Integer classLabel, double edgeCase) {
    return core.precision(classLabel, edgeCase);
  }

  public double precision() {
    return binary() ? precision(binaryPositiveClass) : precision(EvaluationAveraging.Macro);
  }

  public double precision(EvaluationAveraging averaging) {
    requireData("precision");
    if (averaging == EvaluationAveraging.Micro) {
      return micro(core::truePositives, core::falsePositives);
    }
    return core.precision();
  }

  public double recall(int classLabel) {
    return recall(classLabel, DEFAULT_EDGE_VALUE);
  }

  public double recall(int classLabel, double edgeCase) {
    return core.recall(classLabel, edgeCase);
  }

  public double recall() {
    return binary() ? recall(binaryPositiveClass) : recall(EvaluationAveraging.Macro);
  }

  public double recall(EvaluationAveraging averaging) {
    requireData("recall");
    if (averaging == EvaluationAveraging.Micro) {
      return micro(core::truePositives, core::falseNegatives);
    }
    return core.recall();
  }

  /** sum a / (sum a + sum b) over the classes. */
  private double micro(java.util.function.IntToLongFunction a, java.util.function.IntToLongFunction b) {
    long sa = 0, sb = 0;
    for (int c = 0; c < core.numClasses(); c++) {
      sa += a.applyAsLong(c);
      sb += b.applyAsLong(c);
    }
    return sa + sb == 0 ? DEFAULT_EDGE_VALUE : (double) sa / (sa + sb);
  }

  public double f1(int classLabel) {
    return fBeta(1.0, classLabel);
  }

  public double fBeta(double beta, int classLabel) {
    return fBeta(beta, classLabel, DEFAULT_EDGE_VALUE);
  }

  public double fBeta(double beta, int classLabel, double defaultValue) {
    double p = precision(classLabel, -1);
    double r = recall(classLabel, -1);
    return p == -1 || r == -1 ? defaultValue : fBeta(beta, p, r);
  }

  private static double fBeta(double beta, double p, double r) {
    return p == 0 || r == 0 ? 0 : (1 + beta * beta) * p * r / (beta * beta * p + r);
  }

  public double f1() {
    return binary() ? f1(binaryPositiveClass) : f1(EvaluationAveraging.Macro);
  }

  public double f1(EvaluationAveraging averaging) {
    return fBeta(1.0, averaging);
  }

  public double fBeta(double beta, EvaluationAveraging averaging) {
    requireData("fBeta");
    if (averaging == EvaluationAveraging.Micro) {
      return fBeta(beta, precision(EvaluationAveraging.Micro), recall(EvaluationAveraging.Micro));
    }
    double sum = 0;
    int n = 0;
    for (int c = 0; c < core.numClasses(); c++) {
      double f = fBeta(beta, c, -1);
      if (f != -1) {
        sum += f;
        n++;
      }
    }
    return sum / n;
  }

  public double falsePositiveRate(int classLabel) {
    return falsePositiveRate(classLabel, DEFAULT_EDGE_VALUE);
  }

  public double falsePositiveRate(int classLabel, double edgeCase) {
    requireData("false positive rate");
    long fp = core.falsePositives(classLabel), tn = core.trueNegatives(classLabel);
    return fp == 0 && tn == 0 ? edgeCase : fp / (double) (fp + tn);
  }

  public double falseNegativeRate(Integer classLabel) {
    return falseNegativeRate(classLabel, DEFAULT_EDGE_VALUE);
  }

  public double falseNegativeRate(Integer classLabel, double edgeCase) {
    requireData("false negative rate");
    long fn = core.falseNegatives(classLabel), tp = core.truePositives(classLabel);
    return fn == 0 && tp == 0 ? edgeCase : fn / (double) (fn + tp);
  }

  public double gMeasure(int output) {
    requireData("gMeasure");
    return Math.sqrt(precision(output) * recall(output));
  }

  public double matthewsCorrelation(int classIdx) {
    requireData("Matthews correlation");
    double tp = core.truePositives(classIdx), fp = core.falsePositives(classIdx);
    double fn = core.falseNegatives(classIdx), tn = core.trueNegatives(classIdx);
    return (tp * tn - fp * fn) / Math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
  }

  private int excluded(java.util.function.IntToDoubleFunction metric) {
    int n = 0;
    for (int c = 0; c < core.numClasses(); c++) {
      n += metric.applyAsDouble(c) == -1 ? 1 : 0;
    }
    return n;
  }

  public int averagePrecisionNumClassesExcluded() {
    return excluded(c -> precision(c, -1));
  }

  public int averageRecallNumClassesExcluded() {
    return excluded(c -> recall(c, -1));
  }

  public int averageF1NumClassesExcluded() {
    return excluded(c -> fBeta(1.0, c, -1));
  }

  public int averageFBetaNumClassesExcluded() {
    return averageF1NumClassesExcluded();
  }

  public double scoreForMetric(Metric metric) {
    switch (metric) {
      case ACCURACY: return accuracy();
      case F1: return f1();
      case PRECISION: return precision();
      case RECALL: return recall();
      case GMEASURE: return Math.sqrt(precision() * recall());
      default: throw new UnsupportedOperationException("Evaluation.scoreForMetric(" + metric + ") is not in ndrt yet");
    }
  }

  @Override
  public double getValue(IMetric metric) {
    if (metric instanceof Metric) {
      return scoreForMetric((Metric) metric);
    }
    throw new IllegalStateException("Can't get value for non-evaluation Metric " + metric);
  }

  // ------------------------------------------------------------------------------- printing (ND4J's format)

  @Override
  public String stats() {
    return stats(false);
  }

  public String stats(boolean suppressWarnings) {
    return stats(suppressWarnings, numClasses() <= CONFUSION_PRINT_MAX_CLASSES, numClasses() > CONFUSION_PRINT_MAX_CLASSES);
  }

  public String stats(boolean suppressWarnings, boolean includeConfusion) {
    return stats(suppressWarnings, includeConfusion, false);
  }

  private String stats(boolean suppressWarnings, boolean includeConfusion, boolean confusionSizeNote) {
    if (core.numExamples() == 0) {
      return "Evaluation: No data available (no evaluation has been performed)";
    }
    StringBuilder b = new StringBuilder("\n");
    StringBuilder warnings = new StringBuilder();
    int n = numClasses();
    List<Integer> noPrecision = new ArrayList<>(), noRecall = new ArrayList<>();
    for (int c = 0; c < n && !suppressWarnings; c++) {
      if (core.truePositives(c) == 0) {
        if (core.falsePositives(c) == 0) {
          noPrecision.add(c);
        }
        if (core.falseNegatives(c) == 0) {
          noRecall.add(c);
        }
      }
    }
    warning(warnings, noPrecision, "precision");
    warning(warnings, noRecall, "recall");
    DecimalFormat df = new DecimalFormat("0.0000");
    b.append("\n========================Evaluation Metrics========================");
    b.append("\n # of classes:    ").append(n);
    b.append("\n Accuracy:        ").append(format(df, accuracy()));
    b.append("\n Precision:       ").append(format(df, precision()));
    excludedNote(b, n, averagePrecisionNumClassesExcluded());
    b.append("\n Recall:          ").append(format(df, recall()));
    excludedNote(b, n, averageRecallNumClassesExcluded());
    b.append("\n F1 Score:        ").append(format(df, f1()));
    excludedNote(b, n, averageF1NumClassesExcluded());
    if (n > 2 || binaryPositiveClass == null) {
      b.append("\nPrecision, recall & F1: macro-averaged (equally weighted avg. of ").append(n).append(" classes)");
    }
    if (n == 2 && binaryPositiveClass != null) {
      // ND4J names classes "0".."n-1" when not given names, so a name is always printed
      b.append("\nPrecision, recall & F1: reported for positive class (class ").append(binaryPositiveClass)
          .append(" - \"").append(getClassLabel(binaryPositiveClass)).append("\") only");
    }
    if (binaryDecisionThreshold != null) {
      b.append("\nBinary decision threshold: ").append(binaryDecisionThreshold);
    }
    b.append("\n\n").append(warnings);
    if (includeConfusion) {
      b.append("\n=========================Confusion Matrix=========================\n").append(confusionMatrix());
    } else if (confusionSizeNote) {
      b.append("\n\nNote: Confusion matrix not generated due to space requirements for ").append(n)
          .append(" classes.\nUse stats(false,true) to generate anyway");
    }
    b.append("\n==================================================================");
    return b.toString();
  }

  private static void excludedNote(StringBuilder b, int n, int ex) {
    if (n > 2 && ex > 0) {
      b.append("\t(").append(ex).append(" class").append(ex > 1 ? "es" : "").append(" excluded from average)");
    }
  }

  /** ND4J's wording, for precision and recall alike. */
  private void warning(StringBuilder w, List<Integer> list, String metric) {
    if (list.isEmpty()) {
      return;
    }
    String wasWere = list.size() == 1 ? "was" : "were";
    w.append("Warning: ").append(list.size()).append(" class").append(list.size() == 1 ? "" : "es").append(' ')
        .append(wasWere).append(" never predicted by the model and ").append(wasWere)
        .append(" excluded from average ").append(metric);
    if (list.size() <= maxWarningClassesToPrint) {
      w.append("\nClasses excluded from average ").append(metric).append(": ").append(list).append("\n");
    }
  }

  private static String format(DecimalFormat f, double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? String.valueOf(v) : f.format(v);
  }

  /** The confusion matrix as ND4J prints it (rows actual, columns predicted). */
  public String confusionMatrix() {
    int n = numClasses();
    if (n == 0) {
      return "Confusion matrix: <no data>";
    }
    long[][] cm = core.getConfusionMatrix();
    long maxCount = 1;
    for (long[] row : cm) {
      for (long v : row) {
        maxCount = Math.max(maxCount, v);
      }
    }
    maxCount = Math.max(maxCount, n);
    int digits = Math.max(1, (int) Math.ceil(Math.log10(maxCount)));
    String fmt = "%" + (digits + 1) + "d";
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(String.format(fmt, i));
    }
    sb.append("\n").append("-".repeat((digits + 1) * n + 1)).append("\n");
    for (int a = 0; a < n; a++) {
      for (int p = 0; p < n; p++) {
        sb.append(String.format(fmt, cm[a][p]));
      }
      sb.append(" | ").append(a).append(" = ").append(getClassLabel(a)).append("\n");
    }
    sb.append("\nConfusion matrix format: Actual (rowClass) predicted as (columnClass) N times");
    return sb.toString();
  }

  public String confusionToString() {
    return confusionMatrix();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Evaluation && java.util.Arrays.deepEquals(((Evaluation) o).core.getConfusionMatrix(),
        core.getConfusionMatrix());
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.deepHashCode(core.getConfusionMatrix());
  }
}
