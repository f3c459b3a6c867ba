package org.ndrt.eval;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.ndrt.Ops;
import org.ndrt.Tensor;

/**
 * Classification metrics from a confusion matrix, like Deeplearning4j's {@code Evaluation}: add
 * minibatches with {@link #eval(Tensor, Tensor)} or {@link #eval(int[], int[])}, then read
 * {@link #accuracy()}, per-class and macro-averaged precision / recall / F1, or {@link #stats()}.
 *
 * <p><b>Undefined values.</b> Precision of a class that was never predicted (TP + FP = 0) and recall
 * of a class with no examples (TP + FN = 0) are undefined: the per-class methods return 0 then (as
 * DL4J does; {@link #precision(int, double)} and {@link #recall(int, double)} take another value),
 * and the macro averages leave such classes out (F1 leaves out a class whose precision or recall is
 * undefined); {@link #stats()} names the classes left out. A macro average with every class left out,
 * and {@link #accuracy()} with no examples, are {@code NaN}.
 *
 * <p><b>Binary case.</b> Unlike DL4J (which reports class 1 when there are two classes), the
 * averages here are always macro averages; use {@code precision(1)} for the positive class.
 *
 * <p><b>Threads.</b> Not thread-safe: give each thread its own Evaluation and combine them with
 * {@link #merge(Evaluation)}.
 */
public final class Evaluation implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private int numClasses; // 0: not known yet (new Evaluation(), before the first eval of tensors)
  private final List<String> labels; // null: classes are shown by index
  private long[][] confusion; // [actual][predicted]
  private long count;

  /**
   * An evaluation whose number of classes is the width of the first labels given to {@link
   * #eval(Tensor, Tensor)} (or of the first evaluation merged in), as Deeplearning4j's {@code new
   * Evaluation()}. Until then it has 0 classes, and {@link #eval(int[], int[])} is refused.
   */
  public Evaluation() {
    this.numClasses = 0;
    this.labels = null;
    this.confusion = new long[0][0];
  }

  /** An evaluation over {@code numClasses} classes (at least 1), shown by index. */
  public Evaluation(int numClasses) {
    if (numClasses < 1) {
      throw new IllegalArgumentException("numClasses must be at least 1, got " + numClasses);
    }
    this.numClasses = numClasses;
    this.labels = null;
    this.confusion = new long[numClasses][numClasses];
  }

  /** An evaluation with one class per name (class i is {@code labels.get(i)}). */
  public Evaluation(List<String> labels) {
    Objects.requireNonNull(labels, "labels");
    if (labels.isEmpty()) {
      throw new IllegalArgumentException("labels must name at least one class");
    }
    for (String s : labels) {
      Objects.requireNonNull(s, "labels must not contain null");
    }
    this.numClasses = labels.size();
    this.labels = List.copyOf(labels);
    this.confusion = new long[numClasses][numClasses];
  }

  // ------------------------------------------------------------------------------- adding

  /**
   * Adds a minibatch: one-hot {@code labels} [N, C] and {@code predictions} [N, C] (probabilities or
   * scores), both of any dtype argmax supports, on the calling thread's device. The actual class of a
   * row is the argmax of its label row, the predicted class the argmax of its prediction row (the first
   * one on ties; a NaN counts as the largest, and an all-zero label row counts as class 0: mask such
   * rows out before calling). Neither tensor is changed or closed.
   *
   * @throws IllegalArgumentException if a tensor is not [N, C] with C = {@link #numClasses()}, or
   *     the two shapes differ
   */
  public void eval(Tensor labels, Tensor predictions) {
    Objects.requireNonNull(labels, "labels");
    Objects.requireNonNull(predictions, "predictions");
    long[] ls = labels.shape();
    long[] ps = predictions.shape();
    if (ls.length != 2 || ps.length != 2) {
      throw new IllegalArgumentException("labels and predictions must be [N, C], got labels "
          + Arrays.toString(ls) + ", predictions " + Arrays.toString(ps));
    }
    if (!Arrays.equals(ls, ps)) {
      throw new IllegalArgumentException("labels " + Arrays.toString(ls)
          + " and predictions " + Arrays.toString(ps) + " differ in shape");
    }
    if (numClasses == 0 && ls[1] >= 1 && ls[1] <= Integer.MAX_VALUE) {
      learnClasses((int) ls[1]);
    }
    if (ls[1] != numClasses) {
      throw new IllegalArgumentException("expected " + numClasses + " classes (columns), got "
          + Arrays.toString(ls));
    }
    if (ls[0] > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many rows in one minibatch: " + ls[0]);
    }
    if (ls[0] == 0) {
      return;
    }
    // argmax on the runtime (any dtype, any device); only N indices come back per tensor
    try (Tensor a = Ops.argmax(labels, 1, false); Tensor p = Ops.argmax(predictions, 1, false)) {
      long[] actual = a.toLongArray();
      long[] predicted = p.toLongArray();
      for (int i = 0; i < actual.length; i++) {
        confusion[(int) actual[i]][(int) predicted[i]]++;
      }
      count += actual.length;
    }
  }

  /**
   * Adds pairs of class indices: example i has class {@code actual[i]} and was predicted as
   * {@code predicted[i]}. Nothing is added when an argument is rejected.
   *
   * @throws IllegalArgumentException if the lengths differ or an index is outside [0, numClasses)
   */
  public void eval(int[] actual, int[] predicted) {
    Objects.requireNonNull(actual, "actual");
    Objects.requireNonNull(predicted, "predicted");
    if (actual.length != predicted.length) {
      throw new IllegalArgumentException("actual has " + actual.length + " entries, predicted "
          + predicted.length);
    }
    for (int i = 0; i < actual.length; i++) { // check all first: all or nothing
      checkClass(actual[i], "actual[" + i + "]");
      checkClass(predicted[i], "predicted[" + i + "]");
    }
    for (int i = 0; i < actual.length; i++) {
      confusion[actual[i]][predicted[i]]++;
    }
    count += actual.length;
  }

  /** Adds one example of class {@code actual} predicted as {@code predicted}. */
  public void eval(int actual, int predicted) {
    checkClass(actual, "actual");
    checkClass(predicted, "predicted");
    confusion[actual][predicted]++;
    count++;
  }

  /**
   * Adds {@code other}'s counts to this one (how per-thread or per-worker evaluations combine);
   * {@code other} is unchanged.
   *
   * @throws IllegalArgumentException if the class counts differ, or both have class names and they differ
   */
  public void merge(Evaluation other) {
    Objects.requireNonNull(other, "other");
    if (numClasses == 0 && other.numClasses > 0) {
      learnClasses(other.numClasses);
    }
    if (other.numClasses != numClasses) {
      throw new IllegalArgumentException("cannot merge an evaluation of " + other.numClasses
          + " classes into one of " + numClasses);
    }
    if (labels != null && other.labels != null && !labels.equals(other.labels)) {
      throw new IllegalArgumentException("class names differ: " + labels + " vs " + other.labels);
    }
    for (int a = 0; a < numClasses; a++) {
      for (int p = 0; p < numClasses; p++) {
        confusion[a][p] += other.confusion[a][p];
      }
    }
    count += other.count;
  }

  /**
   * An evaluation holding the counts of {@code confusion} ({@code [actual][predicted]}, square, at
   * least 1x1, counts >= 0), e.g. confusion matrices summed over processes.
   *
   * @throws IllegalArgumentException if the matrix is not square or a count is negative
   */
  public static Evaluation fromConfusionMatrix(long[][] confusion) {
    Objects.requireNonNull(confusion, "confusion");
    Evaluation e = new Evaluation(confusion.length);
    for (int a = 0; a < confusion.length; a++) {
      if (confusion[a] == null || confusion[a].length != confusion.length) {
        throw new IllegalArgumentException("the confusion matrix must be square: row " + a + " has "
            + (confusion[a] == null ? "no" : confusion[a].length) + " entries, expected " + confusion.length);
      }
      for (int p = 0; p < confusion.length; p++) {
        if (confusion[a][p] < 0) {
          throw new IllegalArgumentException("confusion[" + a + "][" + p + "] = " + confusion[a][p] + " is negative");
        }
        e.confusion[a][p] = confusion[a][p];
        e.count += confusion[a][p];
      }
    }
    return e;
  }

  /** Forgets every example added. */
  public void reset() {
    for (long[] row : confusion) {
      Arrays.fill(row, 0);
    }
    count = 0;
  }

  // ------------------------------------------------------------------------------- counts

  /** The number of classes. */
  public int numClasses() {
    return numClasses;
  }

  /** The name of class {@code c}: its label if names were given, else its index. */
  public String getClassLabel(int c) {
    checkClass(c, "class");
    return labels != null ? labels.get(c) : Integer.toString(c);
  }

  /** The number of examples added. */
  public long numExamples() {
    return count;
  }

  /** The number of examples added (DL4J's name for {@link #numExamples()}). */
  public long getNumRowCounter() {
    return count;
  }

  /** A copy of the confusion matrix, {@code [actual][predicted]}. */
  public long[][] getConfusionMatrix() {
    long[][] copy = new long[numClasses][];
    for (int a = 0; a < numClasses; a++) {
      copy[a] = confusion[a].clone();
    }
    return copy;
  }

  /** The number of examples whose actual class is {@code c}. */
  public long classCount(int c) {
    checkClass(c, "class");
    long n = 0;
    for (long v : confusion[c]) {
      n += v;
    }
    return n;
  }

  /** Examples predicted as {@code c} (right or wrong). */
  public long predictedCount(int c) {
    checkClass(c, "class");
    long n = 0;
    for (long[] row : confusion) {
      n += row[c];
    }
    return n;
  }

  /** Examples of class {@code c} predicted as {@code c}. */
  public long truePositives(int c) {
    checkClass(c, "class");
    return confusion[c][c];
  }

  /** Examples of another class predicted as {@code c}. */
  public long falsePositives(int c) {
    return predictedCount(c) - confusion[c][c];
  }

  /** Examples of class {@code c} predicted as another class. */
  public long falseNegatives(int c) {
    return classCount(c) - confusion[c][c];
  }

  /** Examples of another class not predicted as {@code c}. */
  public long trueNegatives(int c) {
    return count - classCount(c) - falsePositives(c);
  }

  // ------------------------------------------------------------------------------- metrics

  /** Correct predictions over all examples; {@code NaN} with no examples. */
  public double accuracy() {
    long correct = 0;
    for (int c = 0; c < numClasses; c++) {
      correct += confusion[c][c];
    }
    return count == 0 ? Double.NaN : (double) correct / count;
  }

  /** TP / (TP + FP) for class {@code c}; 0 if {@code c} was never predicted. */
  public double precision(int c) {
    return precision(c, 0.0);
  }

  /** TP / (TP + FP) for class {@code c}; {@code edgeValue} if {@code c} was never predicted. */
  public double precision(int c, double edgeValue) {
    long tp = truePositives(c);
    long predicted = predictedCount(c);
    return predicted == 0 ? edgeValue : (double) tp / predicted;
  }

  /** TP / (TP + FN) for class {@code c}; 0 if there was no example of {@code c}. */
  public double recall(int c) {
    return recall(c, 0.0);
  }

  /** TP / (TP + FN) for class {@code c}; {@code edgeValue} if there was no example of {@code c}. */
  public double recall(int c, double edgeValue) {
    long tp = truePositives(c);
    long actual = classCount(c);
    return actual == 0 ? edgeValue : (double) tp / actual;
  }

  /**
   * The harmonic mean of precision and recall for class {@code c} (0 when both are 0); 0 if either is
   * undefined.
   */
  public double f1(int c) {
    double f = f1OrNaN(c);
    return Double.isNaN(f) ? 0.0 : f;
  }

  /** FP / (FP + TN) for class {@code c}; 0 if every example has class {@code c}. */
  public double falsePositiveRate(int c) {
    long fp = falsePositives(c);
    long negatives = fp + trueNegatives(c);
    return negatives == 0 ? 0.0 : (double) fp / negatives;
  }

  /** Macro-averaged precision: the mean over the classes that were predicted at least once. */
  public double precision() {
    return macro(this::precisionOrNaN);
  }

  /** Macro-averaged recall: the mean over the classes with at least one example. */
  public double recall() {
    return macro(this::recallOrNaN);
  }

  /** Macro-averaged F1: the mean over the classes whose precision and recall are both defined. */
  public double f1() {
    return macro(this::f1OrNaN);
  }

  private double precisionOrNaN(int c) {
    return precision(c, Double.NaN);
  }

  private double recallOrNaN(int c) {
    return recall(c, Double.NaN);
  }

  private double f1OrNaN(int c) {
    double p = precisionOrNaN(c);
    double r = recallOrNaN(c);
    if (Double.isNaN(p) || Double.isNaN(r)) {
      return Double.NaN;
    }
    return p + r == 0 ? 0.0 : 2 * p * r / (p + r);
  }

  /** The mean of {@code metric} over the classes where it is defined (not NaN). */
  private double macro(java.util.function.IntToDoubleFunction metric) {
    double sum = 0;
    int n = 0;
    for (int c = 0; c < numClasses; c++) {
      double v = metric.applyAsDouble(c);
      if (!Double.isNaN(v)) {
        sum += v;
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  /** The classes where {@code metric} is undefined (left out of its macro average). */
  private List<Integer> undefined(java.util.function.IntToDoubleFunction metric) {
    List<Integer> out = new ArrayList<>();
    for (int c = 0; c < numClasses; c++) {
      if (Double.isNaN(metric.applyAsDouble(c))) {
        out.add(c);
      }
    }
    return out;
  }

  // ------------------------------------------------------------------------------- report

  /**
   * A readable report: number of classes and examples, accuracy and macro-averaged precision, recall
   * and F1 (4 decimals), warnings naming the classes left out of an average, a per-class table
   * (undefined values shown as "-") and the confusion matrix (rows actual, columns predicted).
   */
  public String stats() {
    StringBuilder sb = new StringBuilder();
    sb.append("\n========================Evaluation Metrics========================\n");
    sb.append(String.format(Locale.ROOT, " # of classes:    %d%n", numClasses));
    sb.append(String.format(Locale.ROOT, " # of examples:   %d%n", count));
    sb.append(" Accuracy:        ").append(fmt(accuracy())).append('\n');
    sb.append(" Precision:       ").append(fmt(precision())).append('\n');
    sb.append(" Recall:          ").append(fmt(recall())).append('\n');
    sb.append(" F1 Score:        ").append(fmt(f1())).append('\n');
    sb.append("Precision, recall & F1: macro-averaged (equally weighted avg. of ").append(numClasses)
        .append(" classes)\n");
    warn(sb, undefined(this::precisionOrNaN), "never predicted by the model", "precision");
    warn(sb, undefined(this::recallOrNaN), "absent from the labels (no examples)", "recall");
    warn(sb, undefined(this::f1OrNaN), "without a defined precision or recall", "F1");

    sb.append("\n=========================Per-class Metrics========================\n");
    int nameWidth = "class".length();
    for (int c = 0; c < numClasses; c++) {
      nameWidth = Math.max(nameWidth, getClassLabel(c).length());
    }
    String row = " %-" + nameWidth + "s  %9s  %9s  %9s  %9s%n";
    sb.append(String.format(Locale.ROOT, row, "class", "precision", "recall", "F1", "count"));
    for (int c = 0; c < numClasses; c++) {
      sb.append(String.format(Locale.ROOT, row, getClassLabel(c), fmt(precisionOrNaN(c)),
          fmt(recallOrNaN(c)), fmt(f1OrNaN(c)), classCount(c)));
    }

    sb.append("\n=========================Confusion Matrix=========================\n");
    appendConfusion(sb);
    sb.append("\nConfusion matrix format: Actual (rowClass) predicted as (columnClass) N times\n");
    sb.append("==================================================================\n");
    return sb.toString();
  }

  /** Same as {@link #stats()}. */
  @Override
  public String toString() {
    return stats();
  }

  private void appendConfusion(StringBuilder sb) {
    // one width for every column: the widest count or class index
    int w = Integer.toString(numClasses - 1).length();
    for (long[] r : confusion) {
      for (long v : r) {
        w = Math.max(w, Long.toString(v).length());
      }
    }
    String cell = " %" + w + "s";
    StringBuilder header = new StringBuilder();
    for (int p = 0; p < numClasses; p++) {
      header.append(String.format(Locale.ROOT, cell, p));
    }
    sb.append(header).append('\n');
    sb.append("-".repeat(header.length() + 1)).append('\n');
    for (int a = 0; a < numClasses; a++) {
      for (int p = 0; p < numClasses; p++) {
        sb.append(String.format(Locale.ROOT, cell, confusion[a][p]));
      }
      sb.append(" | ").append(a).append(" = ").append(getClassLabel(a)).append('\n');
    }
  }

  private void warn(StringBuilder sb, List<Integer> classes, String why, String metric) {
    if (classes.isEmpty()) {
      return;
    }
    boolean one = classes.size() == 1;
    sb.append("Warning: ").append(classes.size()).append(one ? " class was " : " classes were ")
        .append(why).append(" and ").append(one ? "was" : "were").append(" excluded from average ")
        .append(metric).append('\n');
    sb.append("Classes excluded from average ").append(metric).append(": ").append(classes).append('\n');
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
  }

  /** new Evaluation(): the class count, from the first labels (or evaluation merged in). */
  private void learnClasses(int n) {
    numClasses = n;
    confusion = new long[n][n];
  }

  private void checkClass(int c, String what) {
    if (numClasses == 0) {
      throw new IllegalStateException("this Evaluation does not know its classes yet: new Evaluation() takes them from the "
          + "first eval(labels, predictions); give them with new Evaluation(numClasses) to add class indices");
    }
    if (c < 0 || c >= numClasses) {
      throw new IllegalArgumentException(what + " = " + c + " is not a class index in [0, "
          + numClasses + ")");
    }
  }
}
