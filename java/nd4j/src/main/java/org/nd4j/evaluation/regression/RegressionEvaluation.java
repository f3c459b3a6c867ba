package org.nd4j.evaluation.regression;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.evaluation.BaseEvaluation;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.IMetric;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Per-column regression metrics, as ND4J's RegressionEvaluation: MSE, MAE, RMSE, RSE, Pearson
 * correlation and R^2 from running sums (per minibatch column sums on the runtime, accumulated in
 * double), stats() printed as ND4J prints it.
 */
public class RegressionEvaluation extends BaseEvaluation<RegressionEvaluation> {
  private static final long serialVersionUID = 1L;
  public static final int DEFAULT_PRECISION = 5;

  /** ND4J's regression metrics. */
  @SuppressWarnings("rawtypes")
  public enum Metric implements IMetric {
    MSE, MAE, RMSE, RSE, PC, R2;

    @Override
    public Class<? extends IEvaluation> getEvaluationClass() {
      return RegressionEvaluation.class;
    }

    @Override
    public boolean minimize() {
      return this != R2 && this != PC;
    }
  }

  private List<String> columnNames;
  private final long precision;
  private double[] count, sumLabels, sumPred, sumSqErr, sumAbsErr, sumProd, sumSqLabels, sumSqPred;

  public RegressionEvaluation() {
    this(null, DEFAULT_PRECISION);
  }

  public RegressionEvaluation(long nColumns) {
    this(defaultNames(nColumns), DEFAULT_PRECISION);
  }

  public RegressionEvaluation(long nColumns, long precision) {
    this(defaultNames(nColumns), precision);
  }

  public RegressionEvaluation(String... columnNames) {
    this(columnNames == null || columnNames.length == 0 ? null : Arrays.asList(columnNames), DEFAULT_PRECISION);
  }

  public RegressionEvaluation(List<String> columnNames) {
    this(columnNames, DEFAULT_PRECISION);
  }

  public RegressionEvaluation(List<String> columnNames, long precision) {
    this.columnNames = columnNames == null ? null : new ArrayList<>(columnNames);
    this.precision = precision;
    if (columnNames != null) {
      init(columnNames.size());
    }
  }

  private static List<String> defaultNames(long n) {
    List<String> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add("col_" + i);
    }
    return l;
  }

  private void init(int n) {
    count = new double[n];
    sumLabels = new double[n];
    sumPred = new double[n];
    sumSqErr = new double[n];
    sumAbsErr = new double[n];
    sumProd = new double[n];
    sumSqLabels = new double[n];
    sumSqPred = new double[n];
  }

  @Override
  public void reset() {
    if (count != null) {
      init(count.length);
    }
  }

  private static void add(double[] acc, INDArray columnSums) {
    double[] v = columnSums.castTo(DataType.DOUBLE).reshape(-1).toDoubleVector();
    for (int i = 0; i < acc.length; i++) {
      acc[i] += v[i];
    }
  }

  @Override
  public void eval(INDArray labelsArr, INDArray predictionsArr, INDArray maskArr) {
    INDArray[] p = reshapeAndExtractNotMasked(labelsArr, predictionsArr, maskArr);
    if (p == null) {
      return;
    }
    INDArray predictions = p[1];
    INDArray labels = p[0].dataType() == predictions.dataType() ? p[0] : p[0].castTo(predictions.dataType());
    INDArray mask = p[2];
    if (columnNames == null) {
      columnNames = defaultNames(labels.size(1));
      init((int) labels.size(1));
    }
    if (columnNames.size() != labels.size(1) || columnNames.size() != predictions.size(1)) {
      throw new IllegalArgumentException("Number of the columns of labels and predictions must match specification ("
          + columnNames.size() + "). Got " + labels.size(1) + " and " + predictions.size(1));
    }
    if (mask != null) {
      labels = labels.mul(mask);
      predictions = predictions.mul(mask);
    }
    INDArray error = predictions.sub(labels);
    add(sumLabels, labels.sum(0));
    add(sumPred, predictions.sum(0));
    add(sumAbsErr, Transforms.abs(error, true).sum(0));
    add(sumSqErr, error.mul(error).sum(0));
    add(sumProd, labels.mul(predictions).sum(0));
    add(sumSqLabels, labels.mul(labels).sum(0));
    add(sumSqPred, predictions.mul(predictions).sum(0));
    if (mask == null) {
      for (int i = 0; i < count.length; i++) {
        count[i] += labels.size(0);
      }
    } else {
      add(count, mask.sum(0));
    }
  }

  @Override
  public void merge(RegressionEvaluation other) {
    if (other.count == null) {
      return;
    }
    if (count == null) {
      columnNames = other.columnNames;
      init(other.count.length);
    }
    double[][] mine = {count, sumLabels, sumPred, sumSqErr, sumAbsErr, sumProd, sumSqLabels, sumSqPred};
    double[][] theirs = {other.count, other.sumLabels, other.sumPred, other.sumSqErr, other.sumAbsErr, other.sumProd,
        other.sumSqLabels, other.sumSqPred};
    for (int k = 0; k < mine.length; k++) {
      for (int i = 0; i < mine[k].length; i++) {
        mine[k][i] += theirs[k][i];
      }
    }
  }

  public int numColumns() {
    return columnNames == null ? 0 : columnNames.size();
  }

  public double meanSquaredError(int column) {
    return sumSqErr[column] / count[column];
  }

  public double meanAbsoluteError(int column) {
    return sumAbsErr[column] / count[column];
  }

  public double rootMeanSquaredError(int column) {
    return Math.sqrt(meanSquaredError(column));
  }

  /** Same as pearsonCorrelation (ND4J's legacy name). */
  public double correlationR2(int column) {
    return pearsonCorrelation(column);
  }

  public double pearsonCorrelation(int column) {
    double n = count[column];
    double mp = sumPred[column] / n, ml = sumLabels[column] / n;
    double r = sumProd[column] - n * mp * ml;
    return r / (Math.sqrt(sumSqLabels[column] - n * ml * ml) * Math.sqrt(sumSqPred[column] - n * mp * mp));
  }

  public double rSquared(int column) {
    double n = count[column], ml = sumLabels[column] / n;
    double ssTot = sumSqLabels[column] + ml * (n * ml - 2 * sumLabels[column]);
    return (ssTot - sumSqErr[column]) / ssTot;
  }

  public double relativeSquaredError(int column) {
    double num = sumSqPred[column] - 2 * sumProd[column] + sumSqLabels[column];
    double ml = sumLabels[column] / count[column];
    double den = sumSqLabels[column] - count[column] * ml * ml;
    return Math.abs(den) > Nd4j.EPS_THRESHOLD ? num / den : Double.POSITIVE_INFINITY;
  }

  private double average(java.util.function.IntToDoubleFunction f) {
    double s = 0;
    for (int i = 0; i < numColumns(); i++) {
      s += f.applyAsDouble(i);
    }
    return s / numColumns();
  }

  public double averageMeanSquaredError() { return average(this::meanSquaredError); }
  public double averageMeanAbsoluteError() { return average(this::meanAbsoluteError); }
  public double averagerootMeanSquaredError() { return average(this::rootMeanSquaredError); }
  public double averagerelativeSquaredError() { return average(this::relativeSquaredError); }
  public double averagecorrelationR2() { return average(this::pearsonCorrelation); }
  public double averagePearsonCorrelation() { return average(this::pearsonCorrelation); }
  public double averageRSquared() { return average(this::rSquared); }

  public double scoreForMetric(Metric metric) {
    switch (metric) {
      case MSE: return averageMeanSquaredError();
      case MAE: return averageMeanAbsoluteError();
      case RMSE: return averagerootMeanSquaredError();
      case RSE: return averagerelativeSquaredError();
      case PC: return averagePearsonCorrelation();
      default: return averageRSquared();
    }
  }

  @Override
  public double getValue(IMetric metric) {
    if (metric instanceof Metric) {
      return scoreForMetric((Metric) metric);
    }
    throw new IllegalStateException("Can't get value for non-regression Metric " + metric);
  }

  @Override
  public RegressionEvaluation newInstance() {
    return new RegressionEvaluation(columnNames, precision);
  }

  @Override
  public String stats() {
    if (count == null) {
      return "RegressionEvaluation: No Data";
    }
    int labelWidth = 0;
    for (String s : columnNames) {
      labelWidth = Math.max(labelWidth, s.length());
    }
    labelWidth += 5;
    long w = precision + 10;
    String head = "%-" + labelWidth + "s" + ("%-" + w + "s").repeat(6);
    String row = "%-" + labelWidth + "s" + ("%-" + w + "." + precision + "e").repeat(6);
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(head, "Column", "MSE", "MAE", "RMSE", "RSE", "PC", "R^2")).append("\n");
    for (int i = 0; i < columnNames.size(); i++) {
      sb.append(String.format(row, columnNames.get(i), meanSquaredError(i), meanAbsoluteError(i),
          rootMeanSquaredError(i), relativeSquaredError(i), pearsonCorrelation(i), rSquared(i))).append("\n");
    }
    return sb.toString();
  }
}
