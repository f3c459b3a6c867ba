package org.ndrt.nn;

import java.util.Arrays;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.eval.Evaluation;

/** MultiLayerNetwork.evaluate's per-step evaluation of sequence outputs. */
final class SequenceEvaluation {
  private SequenceEvaluation() {}

  /**
   * Sequence output ({@code logits}: the RnnOutputLayer's rows [N T, nOut], row b T + t): every
   * step the labels mask (else the features mask) leaves valid, as one example each.
   */
  static void evalSteps(Evaluation e, DataSet ds, Tensor logits) {
    long[] ls = ds.labels().shape();
    int n = (int) ls[0];
    int c = (int) ls[1];
    int t = (int) ls[2];
    float[] lab = ds.labels().toFloatArray();
    float[] z = logits.toFloatArray();
    Tensor m = ds.labelsMask() != null ? ds.labelsMask() : ds.featuresMask();
    float[] mask = m == null ? null : m.toFloatArray();
    int[] actual = new int[n * t];
    int[] predicted = new int[n * t];
    int k = 0;
    for (int b = 0; b < n; ++b) {
      for (int s = 0; s < t; ++s) {
        if (mask != null && mask[b * t + s] == 0) {
          continue;
        }
        int a = 0;
        int p = 0;
        for (int j = 1; j < c; ++j) {
          if (lab[(b * c + j) * t + s] > lab[(b * c + a) * t + s]) {
            a = j;
          }
          if (z[(b * t + s) * c + j] > z[(b * t + s) * c + p]) {
            p = j;
          }
        }
        actual[k] = a;
        predicted[k++] = p;
      }
    }
    e.eval(Arrays.copyOf(actual, k), Arrays.copyOf(predicted, k));
  }
}
