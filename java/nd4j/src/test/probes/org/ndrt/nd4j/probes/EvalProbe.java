package org.ndrt.nd4j.probes;

import java.util.Arrays;
import org.nd4j.evaluation.EvaluationAveraging;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.evaluation.classification.EvaluationBinary;
import org.nd4j.evaluation.classification.ROC;
import org.nd4j.evaluation.classification.ROCMultiClass;
import org.nd4j.evaluation.regression.RegressionEvaluation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * Evaluation (multi-class with a never-predicted class, binary, masked) and RegressionEvaluation on
 * fixed labels and predictions, stats() as printed. Compared between real ND4J and ndrt-nd4j by
 * tests/compare_probes.sh.
 */
public class EvalProbe {
  static INDArray oneHot(int[] classes, int n) {
    INDArray a = Nd4j.zeros(DataType.FLOAT, classes.length, n);
    for (int i = 0; i < classes.length; i++) {
      a.putScalar(i, classes[i], 1);
    }
    return a;
  }

  public static void main(String[] args) {
    int[] actual = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 0, 1, 1, 2};
    int[] predicted = {0, 1, 2, 0, 0, 2, 2, 1, 0, 1, 1, 0, 1, 2, 2};  // class 3 never predicted
    Evaluation e = new Evaluation();
    INDArray labels = oneHot(actual, 4);
    INDArray preds = oneHot(predicted, 4).mul(0.7).add(0.075);
    e.eval(labels.getRows(0, 1, 2, 3, 4, 5, 6), preds.getRows(0, 1, 2, 3, 4, 5, 6));
    e.eval(labels.getRows(7, 8, 9, 10, 11, 12, 13, 14), preds.getRows(7, 8, 9, 10, 11, 12, 13, 14));
    System.out.println(e.stats());
    System.out.println("accuracy " + e.accuracy() + " precision " + e.precision() + " recall " + e.recall()
        + " f1 " + e.f1());
    System.out.println("micro " + e.precision(EvaluationAveraging.Micro) + " " + e.recall(EvaluationAveraging.Micro)
        + " " + e.f1(EvaluationAveraging.Micro));
    for (int c = 0; c < 4; c++) {
      System.out.println("class " + c + " p " + e.precision(c) + " r " + e.recall(c) + " f1 " + e.f1(c) + " fpr "
          + e.falsePositiveRate(c) + " count " + e.classCount(c));
    }
    System.out.println("tp " + e.truePositives() + " fp " + e.falsePositives() + " fn " + e.falseNegatives());
    System.out.println("rows " + e.getNumRowCounter());

    // masked: rows 1 and 3 left out
    Evaluation m = new Evaluation(4);
    INDArray mask = Nd4j.ones(DataType.FLOAT, 15, 1);
    mask.putScalar(1, 0, 0);
    mask.putScalar(3, 0, 0);
    m.eval(labels, preds, mask);
    System.out.println("masked rows " + m.getNumRowCounter() + " accuracy " + m.accuracy());

    // binary, two softmax columns: class 1 reported
    Evaluation b = new Evaluation(2);
    b.eval(oneHot(new int[] {0, 1, 1, 0, 1, 1}, 2), oneHot(new int[] {0, 1, 0, 0, 1, 0}, 2));
    System.out.println(b.stats());

    // binary, one sigmoid column
    Evaluation s = new Evaluation();
    s.eval(Nd4j.create(new float[] {0, 1, 1, 0, 1}, 5, 1), Nd4j.create(new float[] {0.2f, 0.8f, 0.4f, 0.6f, 0.9f}, 5, 1));
    System.out.println("sigmoid accuracy " + s.accuracy() + " precision " + s.precision() + " recall " + s.recall());

    // time series [N, C, T] with a per-step mask [N, T]
    INDArray tsl = Nd4j.zeros(DataType.FLOAT, 2, 3, 4);
    INDArray tsp = Nd4j.zeros(DataType.FLOAT, 2, 3, 4);
    for (int n = 0; n < 2; n++) {
      for (int t = 0; t < 4; t++) {
        tsl.putScalar(new int[] {n, (n + t) % 3, t}, 1);
        tsp.putScalar(new int[] {n, (n * t) % 3, t}, 1);
      }
    }
    INDArray tsm = Nd4j.create(new float[][] {{1, 1, 1, 0}, {1, 1, 0, 0}});
    Evaluation ts = new Evaluation(3);
    ts.evalTimeSeries(tsl, tsp, tsm);
    System.out.println("time series rows " + ts.getNumRowCounter() + " accuracy " + ts.accuracy());
    System.out.println(ts.confusionMatrix());

    RegressionEvaluation r = new RegressionEvaluation(2);
    INDArray y = Transforms.sin(Nd4j.linspace(1, 20, 20).reshape(10, 2), true).castTo(DataType.DOUBLE);
    INDArray yhat = y.mul(0.9).add(Transforms.cos(Nd4j.linspace(1, 20, 20).reshape(10, 2), true)
        .castTo(DataType.DOUBLE).mul(0.1));
    r.eval(y.getRows(0, 1, 2, 3, 4), yhat.getRows(0, 1, 2, 3, 4));
    r.eval(y.getRows(5, 6, 7, 8, 9), yhat.getRows(5, 6, 7, 8, 9));
    System.out.print(r.stats());
    System.out.println("averages " + r.averageMeanSquaredError() + " " + r.averageMeanAbsoluteError() + " "
        + r.averagerootMeanSquaredError() + " " + r.averagePearsonCorrelation() + " " + r.averageRSquared());
    System.out.println("shapes " + Arrays.toString(y.shape()));

    // ROC on distinct probabilities (ties are ordered by each library's sort)
    INDArray probs = Transforms.sigmoid(Transforms.sin(Nd4j.linspace(1, 12, 12).reshape(12, 1), true).mul(3), true);
    INDArray bin = Nd4j.create(new float[] {1, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1}, 12, 1);
    ROC roc = new ROC();
    roc.eval(bin, probs);
    System.out.println(roc.stats());
    System.out.println("roc counts " + roc.getCountActualPositive() + " " + roc.getCountActualNegative());
    ROCMultiClass mc = new ROCMultiClass();
    INDArray mcp = Transforms.softmax(Transforms.sin(Nd4j.linspace(1, 45, 45).reshape(15, 3), true).mul(2), true);
    mc.eval(oneHot(new int[] {0, 1, 2, 0, 1, 2, 2, 1, 0, 0, 1, 2, 1, 0, 2}, 3), mcp);
    System.out.println(mc.stats());
    System.out.println("average AUC " + mc.calculateAverageAUC() + " AUPRC " + mc.calculateAverageAUCPR());

    // multi-label sigmoid outputs; one run with per-output thresholds
    INDArray ml = Nd4j.create(new float[][] {{1, 0, 1}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}, {1, 0, 0}, {0, 1, 0}});
    INDArray mp = Transforms.sigmoid(Transforms.cos(Nd4j.linspace(1, 18, 18).reshape(6, 3), true).mul(2), true);
    EvaluationBinary eb = new EvaluationBinary();
    eb.eval(ml, mp);
    System.out.println(eb.stats());
    EvaluationBinary et = new EvaluationBinary(Nd4j.create(new float[] {0.3f, 0.5f, 0.7f}, 1, 3));
    et.eval(ml, mp);
    System.out.println(et.stats());
    System.out.println("binary averages " + eb.averageAccuracy() + " " + eb.averageF1() + " mcc0 "
        + eb.matthewsCorrelation(0));
  }
}
