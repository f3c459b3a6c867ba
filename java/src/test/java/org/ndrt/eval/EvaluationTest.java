package org.ndrt.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.ndrt.DType;
import org.ndrt.Memory;
import org.ndrt.NdrtException;
import org.ndrt.Tensor;

/** Evaluation against metrics counted independently from the (actual, predicted) pairs. */
class EvaluationTest {
  private static final int C = 5;
  private static final int N = 1000;
  private static final double EPS = 1e-12;

  /** N seeded pairs over C classes; about 60% correct, so every metric is non-trivial. */
  private static int[][] randomPairs(long seed) {
    Random r = new Random(seed);
    int[] actual = new int[N];
    int[] predicted = new int[N];
    for (int i = 0; i < N; i++) {
      actual[i] = r.nextInt(C);
      predicted[i] = r.nextDouble() < 0.6 ? actual[i] : r.nextInt(C);
    }
    return new int[][] {actual, predicted};
  }

  /** The expected metrics, computed straight from the pairs (no confusion matrix). */
  private static final class Expected {
    final long[][] matrix = new long[C][C];
    final double accuracy;
    final double[] precision = new double[C];
    final double[] recall = new double[C];
    final double[] f1 = new double[C];
    final long[] count = new long[C];
    double macroP;
    double macroR;
    double macroF1;

    Expected(int[] actual, int[] predicted) {
      int correct = 0;
      for (int i = 0; i < actual.length; i++) {
        matrix[actual[i]][predicted[i]]++;
        if (actual[i] == predicted[i]) {
          correct++;
        }
      }
      accuracy = (double) correct / actual.length;
      for (int c = 0; c < C; c++) {
        int tp = 0;
        int fp = 0;
        int fn = 0;
        for (int i = 0; i < actual.length; i++) {
          boolean a = actual[i] == c;
          boolean p = predicted[i] == c;
          tp += a && p ? 1 : 0;
          fp += !a && p ? 1 : 0;
          fn += a && !p ? 1 : 0;
        }
        count[c] = tp + fn;
        precision[c] = (double) tp / (tp + fp);
        recall[c] = (double) tp / (tp + fn);
        f1[c] = 2.0 * tp / (2.0 * tp + fp + fn); // the same harmonic mean, written from counts
        macroP += precision[c] / C;
        macroR += recall[c] / C;
        macroF1 += f1[c] / C;
      }
    }

    void check(Evaluation e) {
      assertEquals(N, e.numExamples());
      assertEquals(N, e.getNumRowCounter());
      assertArrayEquals(matrix, e.getConfusionMatrix());
      assertEquals(accuracy, e.accuracy(), EPS);
      for (int c = 0; c < C; c++) {
        assertEquals(precision[c], e.precision(c), EPS, "precision " + c);
        assertEquals(recall[c], e.recall(c), EPS, "recall " + c);
        assertEquals(f1[c], e.f1(c), EPS, "f1 " + c);
        assertEquals(count[c], e.classCount(c), "count " + c);
      }
      assertEquals(macroP, e.precision(), EPS);
      assertEquals(macroR, e.recall(), EPS);
      assertEquals(macroF1, e.f1(), EPS);
    }
  }

  @Test
  void intPairsMatchIndependentCounts() {
    int[][] pairs = randomPairs(42);
    Expected x = new Expected(pairs[0], pairs[1]);
    assertTrue(x.accuracy > 0.5 && x.accuracy < 0.8, "the data is not trivial: " + x.accuracy);
    Evaluation e = new Evaluation(C);
    e.eval(pairs[0], pairs[1]);
    x.check(e);
    // the per-class counts the metrics come from
    for (int c = 0; c < C; c++) {
      assertEquals(x.matrix[c][c], e.truePositives(c));
      assertEquals(x.count[c] - x.matrix[c][c], e.falseNegatives(c));
      long fp = 0;
      for (int a = 0; a < C; a++) {
        fp += a == c ? 0 : x.matrix[a][c];
      }
      assertEquals(fp, e.falsePositives(c));
      assertEquals(N - x.count[c] - fp, e.trueNegatives(c));
      assertEquals((double) fp / (N - x.count[c]), e.falsePositiveRate(c), EPS);
    }
  }

  /** One-hot labels and scores whose row maximum is the predicted class. */
  private static float[][] tensors(int[] actual, int[] predicted, int from, int to, Random r) {
    int n = to - from;
    float[] labels = new float[n * C];
    float[] scores = new float[n * C];
    for (int i = 0; i < n; i++) {
      labels[i * C + actual[from + i]] = 1f;
      for (int c = 0; c < C; c++) {
        scores[i * C + c] = r.nextFloat(); // below 1: the predicted class gets 2 + something
      }
      scores[i * C + predicted[from + i]] = 2f + r.nextFloat();
    }
    return new float[][] {labels, scores};
  }

  private static void evalTensors(Evaluation e, int[][] pairs, DType labelType, DType predType, int batch) {
    Random r = new Random(7);
    for (int from = 0; from < N; from += batch) {
      int to = Math.min(N, from + batch);
      float[][] lp = tensors(pairs[0], pairs[1], from, to, r);
      try (Tensor l32 = Tensor.from(lp[0], to - from, C); Tensor p32 = Tensor.from(lp[1], to - from, C);
          Tensor l = l32.cast(labelType); Tensor p = p32.cast(predType)) {
        e.eval(l, p);
      }
    }
  }

  @Test
  void tensorsMatchIndependentCountsForEveryFloatDtype() {
    int[][] pairs = randomPairs(43);
    Expected x = new Expected(pairs[0], pairs[1]);
    long live = Memory.liveHandles();
    DType[][] combos = {{DType.F32, DType.F32}, {DType.F64, DType.F32}, {DType.F16, DType.BF16}, {DType.BF16, DType.F64}};
    for (DType[] d : combos) {
      Evaluation e = new Evaluation(C);
      evalTensors(e, pairs, d[0], d[1], 96); // the last minibatch is short (40 rows)
      x.check(e);
    }
    assertTrue(Memory.liveHandles() <= live, "temporaries were closed");
  }

  @Test
  void mergeOfTwoHalvesEqualsTheWhole() {
    int[][] pairs = randomPairs(44);
    Expected x = new Expected(pairs[0], pairs[1]);
    int half = N / 2;
    Evaluation a = new Evaluation(C);
    a.eval(java.util.Arrays.copyOfRange(pairs[0], 0, half), java.util.Arrays.copyOfRange(pairs[1], 0, half));
    Evaluation b = new Evaluation(C);
    b.eval(java.util.Arrays.copyOfRange(pairs[0], half, N), java.util.Arrays.copyOfRange(pairs[1], half, N));
    assertEquals(half, a.numExamples());
    long[][] bBefore = b.getConfusionMatrix();
    a.merge(b);
    x.check(a);
    assertArrayEquals(bBefore, b.getConfusionMatrix(), "the other one is unchanged");

    Evaluation whole = new Evaluation(C);
    evalTensors(whole, pairs, DType.F32, DType.F32, 128);
    assertEquals(whole.stats(), a.stats());

    assertThrows(IllegalArgumentException.class, () -> a.merge(new Evaluation(C + 1)));
    Evaluation named = new Evaluation(List.of("a", "b"));
    assertThrows(IllegalArgumentException.class, () -> named.merge(new Evaluation(List.of("a", "c"))));
    named.merge(new Evaluation(2)); // no names on one side: fine
  }

  /**
   * 4 classes: class 2 has examples but is never predicted (precision undefined), class 3 is predicted
   * once but has no examples (recall undefined). Worked by hand:
   * precision 2/3, 1/3, -, 0; recall 2/3, 1/2, 0, -; F1 2/3, 2/5, -, -.
   */
  @Test
  void undefinedClassesAreLeftOutOfTheMacroAverages() {
    Evaluation e = new Evaluation(4);
    e.eval(new int[] {0, 0, 0, 1, 1, 2, 2}, new int[] {0, 0, 1, 1, 3, 0, 1});
    assertEquals(3.0 / 7, e.accuracy(), EPS);
    assertEquals(0.0, e.precision(2), "undefined per-class value: 0, as DL4J");
    assertTrue(Double.isNaN(e.precision(2, Double.NaN)));
    assertEquals(0.0, e.recall(3));
    assertEquals(-1.0, e.recall(3, -1));
    assertEquals(0.0, e.f1(2));
    assertEquals(0.0, e.precision(3), EPS); // defined: predicted once, wrongly
    assertEquals(0.0, e.recall(2), EPS); // defined: two examples, none found
    assertEquals((2.0 / 3 + 1.0 / 3 + 0) / 3, e.precision(), EPS);
    assertEquals((2.0 / 3 + 1.0 / 2 + 0) / 3, e.recall(), EPS);
    assertEquals((2.0 / 3 + 2.0 / 5) / 2, e.f1(), EPS);
    String s = e.stats();
    assertTrue(s.contains("Warning: 1 class was never predicted by the model and was excluded from average precision"), s);
    assertTrue(s.contains("Classes excluded from average precision: [2]"), s);
    assertTrue(s.contains("Classes excluded from average recall: [3]"), s);
    assertTrue(s.contains("Classes excluded from average F1: [2, 3]"), s);

    Evaluation empty = new Evaluation(3);
    assertTrue(Double.isNaN(empty.accuracy()));
    assertTrue(Double.isNaN(empty.precision()));
    assertTrue(Double.isNaN(empty.f1()));
    assertTrue(empty.stats().contains(" Accuracy:        -"), empty.stats());
  }

  @Test
  void wrongInputThrowsAndAddsNothing() {
    Evaluation e = new Evaluation(3);
    e.eval(new int[] {0, 1}, new int[] {0, 2});
    long[][] before = e.getConfusionMatrix();
    assertThrows(IllegalArgumentException.class, () -> e.eval(new int[] {0, 1}, new int[] {0}));
    assertThrows(IllegalArgumentException.class, () -> e.eval(new int[] {0, 3}, new int[] {0, 0}));
    assertThrows(IllegalArgumentException.class, () -> e.eval(new int[] {0, 1}, new int[] {0, -1}));
    assertThrows(IllegalArgumentException.class, () -> e.eval(5, 0));
    long live = Memory.liveHandles();
    try (Tensor ok = Tensor.zeros(DType.F32, 4, 3); Tensor four = Tensor.zeros(DType.F32, 4, 4);
        Tensor rows = Tensor.zeros(DType.F32, 5, 3); Tensor flat = Tensor.zeros(DType.F32, 12);
        Tensor bool = Tensor.zeros(DType.BOOL, 4, 3)) {
      assertThrows(IllegalArgumentException.class, () -> e.eval(ok, four));
      assertThrows(IllegalArgumentException.class, () -> e.eval(four, four)); // 4 classes, not 3
      assertThrows(IllegalArgumentException.class, () -> e.eval(ok, rows));
      assertThrows(IllegalArgumentException.class, () -> e.eval(flat, flat));
      assertThrows(NullPointerException.class, () -> e.eval(null, ok));
      // argmax has no bool kernel: the runtime's exception, after the first argmax was closed
      assertThrows(NdrtException.class, () -> e.eval(ok, bool));
    }
    assertTrue(Memory.liveHandles() <= live, "nothing leaked on the error paths");
    assertArrayEquals(before, e.getConfusionMatrix());
    assertEquals(2, e.numExamples());
    try (Tensor none = Tensor.zeros(DType.F32, 0, 3)) {
      e.eval(none, none); // an empty minibatch adds nothing
    }
    assertEquals(2, e.numExamples());
    assertThrows(IllegalArgumentException.class, () -> new Evaluation(0));
    assertThrows(IllegalArgumentException.class, () -> new Evaluation(List.of()));
    assertThrows(IllegalArgumentException.class, () -> e.precision(3));
  }

  @Test
  void statsShowsTheNumbersAndTheMatrix() {
    int[][] pairs = randomPairs(45);
    Expected x = new Expected(pairs[0], pairs[1]);
    List<String> names = List.of("cat", "dog", "bird", "fish", "hamster");
    Evaluation e = new Evaluation(names);
    e.eval(pairs[0], pairs[1]);
    String s = e.stats();
    assertTrue(s.contains(" # of classes:    5"), s);
    assertTrue(s.contains(" Accuracy:        " + f4(x.accuracy)), s);
    assertTrue(s.contains(" Precision:       " + f4(x.macroP)), s);
    assertTrue(s.contains(" Recall:          " + f4(x.macroR)), s);
    assertTrue(s.contains(" F1 Score:        " + f4(x.macroF1)), s);
    assertTrue(!s.contains("Warning"), s);
    // per-class rows: name, precision, recall, F1, count
    for (int c = 0; c < C; c++) {
      String row = String.format(Locale.ROOT, " %-7s  %9s  %9s  %9s  %9d", names.get(c), f4(x.precision[c]),
          f4(x.recall[c]), f4(x.f1[c]), x.count[c]);
      assertTrue(s.contains(row + "\n"), row + " in\n" + s);
    }
    // the matrix read back from the text; every column lines up
    String[] lines = s.substring(s.indexOf("Confusion Matrix")).split("\n");
    String header = lines[1];
    List<long[]> rows = new ArrayList<>();
    for (int i = 3; i < 3 + C; i++) {
      String line = lines[i];
      String[] parts = line.split(" \\| ");
      assertEquals(header.length(), parts[0].length(), "aligned: " + line);
      assertEquals((i - 3) + " = " + names.get(i - 3), parts[1]);
      rows.add(java.util.Arrays.stream(parts[0].trim().split(" +")).mapToLong(Long::parseLong).toArray());
    }
    assertArrayEquals(x.matrix, rows.toArray(new long[0][]));
    assertEquals(e.stats(), e.toString());
  }

  private static String f4(double v) {
    return String.format(Locale.ROOT, "%.4f", v);
  }

  @Test
  void fromConfusionMatrixHoldsTheCounts() {
    Evaluation direct = new Evaluation(3);
    direct.eval(new int[] {0, 0, 1, 2, 2, 2}, new int[] {0, 1, 1, 2, 0, 2});
    Evaluation rebuilt = Evaluation.fromConfusionMatrix(direct.getConfusionMatrix());
    assertEquals(direct.numExamples(), rebuilt.numExamples());
    assertEquals(direct.accuracy(), rebuilt.accuracy());
    assertEquals(direct.f1(), rebuilt.f1());
    assertEquals(direct.stats(), rebuilt.stats());
    assertThrows(IllegalArgumentException.class, () -> Evaluation.fromConfusionMatrix(new long[][] {{1, 2}, {3}}));
    assertThrows(IllegalArgumentException.class, () -> Evaluation.fromConfusionMatrix(new long[][] {{1, -1}, {0, 0}}));
    assertThrows(IllegalArgumentException.class, () -> Evaluation.fromConfusionMatrix(new long[0][]));
  }
}
