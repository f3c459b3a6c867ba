package org.ndrt.earlystopping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ndrt.earlystopping.ClassificationScoreCalculator.Metric;
import org.ndrt.earlystopping.EarlyStoppingResult.TerminationReason;
import org.ndrt.eval.Evaluation;

/** Each termination condition on its own, configuration validation, argument checks. */
class TerminationConditionsTest {
  /** Feeds scores to a fresh run of the condition; returns the index of the first that stops, or -1. */
  static int stopIndex(EpochTerminationCondition c, boolean minimize, double... scores) {
    c.initialize();
    for (int i = 0; i < scores.length; i++) {
      if (c.terminate(i, scores[i], minimize)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void maxEpochs() {
    MaxEpochsTerminationCondition c = new MaxEpochsTerminationCondition(3);
    assertFalse(c.needsScore());
    assertEquals(2, stopIndex(c, true, 0, 0, 0, 0, 0), "epochs 0, 1, 2 trained: stop after the third");
    assertEquals(0, stopIndex(new MaxEpochsTerminationCondition(1), true, 1));
    assertEquals("MaxEpochsTerminationCondition(3)", c.toString());
  }

  @Test
  void scoreImprovement() {
    ScoreImprovementEpochTerminationCondition c = new ScoreImprovementEpochTerminationCondition(2);
    assertTrue(c.needsScore());
    assertEquals(5, stopIndex(c, true, 5, 4, 4, 3, 3.5, 3.1, 0), "4 ties 4 (no improvement), 3 improves, then two without");
    assertEquals(3, stopIndex(c, false, 1, 1.2, 1.1, 1.15, 2), "maximizing: 1.2 best, then two without");
    // state is reset by initialize(): the same sequence gives the same answer again
    assertEquals(3, stopIndex(c, false, 1, 1.2, 1.1, 1.15, 2));

    // an improvement must be larger than minImprovement (0.5 exactly is not enough)
    ScoreImprovementEpochTerminationCondition m = new ScoreImprovementEpochTerminationCondition(1, 0.5);
    assertEquals(1, stopIndex(m, true, 10, 9.5));
    assertEquals(-1, stopIndex(m, true, 10, 9.25, 8.5));
    // small steps never add up: each is compared with the best, which only moves on a real improvement
    ScoreImprovementEpochTerminationCondition m3 = new ScoreImprovementEpochTerminationCondition(3, 0.5);
    assertEquals(3, stopIndex(m3, true, 10, 9.75, 9.5, 9.75));
    assertEquals(-1, stopIndex(m3, true, 10, 9.75, 9.25, 9.0, 8.75));

    // NaN never improves; the first real score is the starting best
    assertEquals(2, stopIndex(new ScoreImprovementEpochTerminationCondition(2), true, 5, Double.NaN, Double.NaN));
    assertEquals(3, stopIndex(new ScoreImprovementEpochTerminationCondition(2), true, Double.NaN, 5, 6, 7));
    assertEquals("ScoreImprovementEpochTerminationCondition(patience=1, minImprovement=0.5)", m.toString());
  }

  @Test
  void bestScore() {
    BestScoreEpochTerminationCondition c = new BestScoreEpochTerminationCondition(0.25);
    assertTrue(c.terminate(0, 0.25, true));
    assertTrue(c.terminate(0, 0.1, true));
    assertFalse(c.terminate(0, 0.26, true));
    assertTrue(c.terminate(0, 0.25, false));
    assertTrue(c.terminate(0, 0.9, false));
    assertFalse(c.terminate(0, 0.2, false));
    assertFalse(c.terminate(0, Double.NaN, true));
    assertFalse(c.terminate(0, Double.NaN, false));
  }

  @Test
  void maxScoreAndInvalidScore() {
    MaxScoreIterationTerminationCondition max = new MaxScoreIterationTerminationCondition(10);
    InvalidScoreIterationTerminationCondition invalid = new InvalidScoreIterationTerminationCondition();
    double[] scores = {-5, 0, 10, Math.nextUp(10.0), 1e300, -1e300, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY};
    boolean[] maxStops = {false, false, false, true, true, false, true, true, true};
    boolean[] invalidStops = {false, false, false, false, false, false, true, true, true};
    for (int i = 0; i < scores.length; i++) {
      assertEquals(maxStops[i], max.terminate(scores[i]), "max score 10, score " + scores[i]);
      assertEquals(invalidStops[i], invalid.terminate(scores[i]), "invalid, score " + scores[i]);
    }
    assertEquals("MaxScoreIterationTerminationCondition(10.0)", max.toString());
  }

  @Test
  void maxTime() {
    AtomicLong now = new AtomicLong(-7_000_000_000L); // any origin works, negative included
    MaxTimeIterationTerminationCondition c = new MaxTimeIterationTerminationCondition(35, TimeUnit.SECONDS, now::get);
    assertThrows(IllegalStateException.class, () -> c.terminate(1.0), "initialize() first");
    c.initialize();
    now.addAndGet(TimeUnit.SECONDS.toNanos(35) - 1);
    assertFalse(c.terminate(1.0));
    now.incrementAndGet();
    assertTrue(c.terminate(1.0));
    c.initialize(); // starts over
    assertFalse(c.terminate(1.0));
    assertEquals("MaxTimeIterationTerminationCondition(35 SECONDS)", c.toString());

    // a huge limit saturates instead of overflowing into a negative limit
    MaxTimeIterationTerminationCondition huge = new MaxTimeIterationTerminationCondition(Long.MAX_VALUE, TimeUnit.DAYS, now::get);
    huge.initialize();
    now.addAndGet(TimeUnit.DAYS.toNanos(365 * 100));
    assertFalse(huge.terminate(1.0));
  }

  @Test
  void badConditionArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new MaxEpochsTerminationCondition(0));
    assertThrows(IllegalArgumentException.class, () -> new MaxEpochsTerminationCondition(-3));
    assertThrows(IllegalArgumentException.class, () -> new ScoreImprovementEpochTerminationCondition(0));
    assertThrows(IllegalArgumentException.class, () -> new ScoreImprovementEpochTerminationCondition(2, -0.1));
    assertThrows(IllegalArgumentException.class, () -> new ScoreImprovementEpochTerminationCondition(2, Double.NaN));
    assertThrows(IllegalArgumentException.class,
        () -> new ScoreImprovementEpochTerminationCondition(2, Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class, () -> new BestScoreEpochTerminationCondition(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> new MaxScoreIterationTerminationCondition(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> new MaxTimeIterationTerminationCondition(0, TimeUnit.SECONDS));
    assertThrows(IllegalArgumentException.class, () -> new MaxTimeIterationTerminationCondition(-1, TimeUnit.SECONDS));
    assertThrows(IllegalArgumentException.class, () -> new MaxTimeIterationTerminationCondition(1, null));
    assertThrows(IllegalArgumentException.class, () -> new MaxTimeIterationTerminationCondition(1, TimeUnit.SECONDS, null));
  }

  @Test
  void configurationValidation() {
    IllegalStateException none = assertThrows(IllegalStateException.class,
        () -> new EarlyStoppingConfiguration.Builder().scoreCalculator(new EarlyStoppingTest.ScriptedCalculator(true)).build());
    assertTrue(none.getMessage().contains("no termination condition"), none.getMessage());

    // a score-based condition without a score calculator
    for (EpochTerminationCondition c : List.of(new ScoreImprovementEpochTerminationCondition(3),
        new BestScoreEpochTerminationCondition(0.1), customCondition())) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> new EarlyStoppingConfiguration.Builder().epochTerminationConditions(new MaxEpochsTerminationCondition(5), c).build());
      assertTrue(e.getMessage().contains(c.toString()) && e.getMessage().contains("scoreCalculator"), e.getMessage());
    }
    // score-free conditions alone are fine
    new EarlyStoppingConfiguration.Builder().epochTerminationConditions(new MaxEpochsTerminationCondition(5)).build();
    new EarlyStoppingConfiguration.Builder().iterationTerminationConditions(new InvalidScoreIterationTerminationCondition()).build();

    EarlyStoppingConfiguration.Builder b = new EarlyStoppingConfiguration.Builder();
    assertThrows(IllegalArgumentException.class, () -> b.evaluateEveryNEpochs(0));
    assertThrows(IllegalArgumentException.class, () -> b.modelSaver(null));
    assertThrows(IllegalArgumentException.class, () -> b.epochTerminationConditions(new MaxEpochsTerminationCondition(1), null));
    assertThrows(IllegalArgumentException.class, () -> b.epochTerminationConditions((List<EpochTerminationCondition>) null));
    assertThrows(IllegalArgumentException.class, () -> b.iterationTerminationConditions((IterationTerminationCondition) null));
    MaxEpochsTerminationCondition twice = new MaxEpochsTerminationCondition(2);
    IllegalStateException dup = assertThrows(IllegalStateException.class,
        () -> new EarlyStoppingConfiguration.Builder().epochTerminationConditions(twice, twice).build());
    assertTrue(dup.getMessage().contains("twice"), dup.getMessage());
  }

  @Test
  void configurationKeepsWhatWasSet() {
    ScoreImprovementEpochTerminationCondition si = new ScoreImprovementEpochTerminationCondition(3);
    MaxEpochsTerminationCondition me = new MaxEpochsTerminationCondition(9);
    InvalidScoreIterationTerminationCondition inv = new InvalidScoreIterationTerminationCondition();
    EarlyStoppingTest.ScriptedCalculator calc = new EarlyStoppingTest.ScriptedCalculator(false);
    InMemoryModelSaver saver = new InMemoryModelSaver();
    List<EpochTerminationCondition> list = new ArrayList<>(List.of(me));
    EarlyStoppingConfiguration.Builder b = new EarlyStoppingConfiguration.Builder()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(1)) // replaced by the next call
        .epochTerminationConditions(list).iterationTerminationConditions(List.of(inv)).scoreCalculator(calc)
        .evaluateEveryNEpochs(3).modelSaver(saver).saveLastModel(true);
    list.add(si); // the builder copied the list
    EarlyStoppingConfiguration conf = b.build();
    assertEquals(List.of(me), conf.getEpochTerminationConditions());
    assertEquals(List.of(inv), conf.getIterationTerminationConditions());
    assertSame(calc, conf.getScoreCalculator());
    assertEquals(3, conf.getEvaluateEveryNEpochs());
    assertSame(saver, conf.getModelSaver());
    assertTrue(conf.isSaveLastModel());
    assertThrows(UnsupportedOperationException.class, () -> conf.getEpochTerminationConditions().add(si));

    EarlyStoppingConfiguration defaults = new EarlyStoppingConfiguration.Builder().epochTerminationConditions(me).build();
    assertTrue(defaults.getModelSaver() instanceof InMemoryModelSaver);
    assertEquals(1, defaults.getEvaluateEveryNEpochs());
    assertFalse(defaults.isSaveLastModel());
    assertNull(defaults.getScoreCalculator());
  }

  @Test
  void badTrainerAndCalculatorArgumentsAreRefused() {
    EarlyStoppingConfiguration conf = new EarlyStoppingConfiguration.Builder()
        .epochTerminationConditions(new MaxEpochsTerminationCondition(1)).build();
    EarlyStoppingTest.FakeIterator it = new EarlyStoppingTest.FakeIterator(1);
    assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingTrainer(conf, null, it));
    assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingTrainer(null, null, it, EpochFitter.sequential()));
    assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingTrainer(conf, null, null, EpochFitter.sequential()));
    assertThrows(IllegalArgumentException.class, () -> new EarlyStoppingTrainer(conf, null, it, null));
    assertThrows(IllegalArgumentException.class, () -> new DataSetLossCalculator(null, true));
    assertThrows(IllegalArgumentException.class, () -> new ClassificationScoreCalculator(null, it));
    assertThrows(IllegalArgumentException.class, () -> new ClassificationScoreCalculator(Metric.F1, null));
    assertTrue(new DataSetLossCalculator(it, true).minimizeScore());
    assertFalse(new ClassificationScoreCalculator(Metric.ACCURACY, it).minimizeScore());
  }

  /** Each metric reads its own number: on this data the four differ, so a mix-up would show. */
  @Test
  void classificationMetricsReadTheRightNumber() {
    int[] actual = {0, 0, 0, 0, 1, 1, 2};
    int[] predicted = {0, 0, 0, 1, 1, 2, 2};
    Evaluation e = new Evaluation(3);
    e.eval(actual, predicted);
    EarlyStoppingTest.FakeIterator it = new EarlyStoppingTest.FakeIterator(1);
    double acc = new ClassificationScoreCalculator(Metric.ACCURACY, it).value(e);
    double f1 = new ClassificationScoreCalculator(Metric.F1, it).value(e);
    double p = new ClassificationScoreCalculator(Metric.PRECISION, it).value(e);
    double r = new ClassificationScoreCalculator(Metric.RECALL, it).value(e);
    assertEquals(5.0 / 7, acc, 1e-12);
    // macro averages by hand: precision (1 + 1/2 + 1/2) / 3, recall (3/4 + 1/2 + 1) / 3,
    // F1 (6/7 + 1/2 + 2/3) / 3
    assertEquals(2.0 / 3, p, 1e-12);
    assertEquals(0.75, r, 1e-12);
    assertEquals((6.0 / 7 + 0.5 + 2.0 / 3) / 3, f1, 1e-12);
    assertEquals(4, List.of(acc, f1, p, r).stream().distinct().count());
  }

  @Test
  void savers(@TempDir Path tmp) throws IOException {
    InMemoryModelSaver mem = new InMemoryModelSaver();
    assertNull(mem.getBestModel());
    assertNull(mem.getLatestModel());

    File dir = tmp.resolve("a/b/models").toFile();
    LocalFileModelSaver files = new LocalFileModelSaver(dir);
    assertTrue(dir.isDirectory(), "created with its parents");
    assertEquals(dir, files.getDirectory());
    assertNull(files.getBestModel(), "no bestModel.zip yet");
    assertNull(files.getLatestModel());
    Path plain = Files.writeString(tmp.resolve("plain.txt"), "x");
    assertThrows(IllegalArgumentException.class, () -> new LocalFileModelSaver(plain.toFile()));
    assertThrows(IllegalArgumentException.class, () -> new LocalFileModelSaver((File) null));
    assertThrows(IllegalArgumentException.class, () -> new LocalFileModelSaver((String) null));
    assertEquals(dir, new LocalFileModelSaver(dir.getPath()).getDirectory());
  }

  @Test
  void resultCopiesAndSortsTheScores() {
    Map<Integer, Double> scores = new TreeMap<>(Map.of(3, 0.5, 1, 0.7));
    EarlyStoppingResult r = new EarlyStoppingResult(TerminationReason.EpochTerminationCondition, "d", scores, 3, 0.5,
        4, null, null);
    scores.put(5, 0.1);
    assertEquals(List.of(1, 3), new ArrayList<>(r.getScoreVsEpoch().keySet()));
    assertThrows(UnsupportedOperationException.class, () -> r.getScoreVsEpoch().put(7, 1.0));
    assertNotEquals(-1, r.toString().indexOf("bestModelEpoch=3"));
  }

  private static EpochTerminationCondition customCondition() {
    return new EpochTerminationCondition() {
      @Override
      public void initialize() {}

      @Override
      public boolean terminate(int epochNum, double score, boolean minimize) {
        return score < 0;
      }

      @Override
      public String toString() {
        return "CustomCondition";
      }
    };
  }
}
