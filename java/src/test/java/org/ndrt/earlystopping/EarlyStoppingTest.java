package org.ndrt.earlystopping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.earlystopping.EarlyStoppingResult.TerminationReason;
import org.ndrt.nn.Model;

/**
 * The trainer's decision logic against scripted scores, with no real network: the network is null, a
 * scripted {@link EpochFitter} runs the real minibatch loop ({@link EpochFitter#fitMinibatches}) over
 * tiny DataSets without training, a scripted {@link ScoreCalculator} returns the epoch scores, and a
 * recording saver notes at which epoch each model was saved. (The end-to-end test with a real network
 * comes once MultiLayerNetwork works.) Conditions and configuration checks are in
 * {@link TerminationConditionsTest}.
 */
class EarlyStoppingTest {
  static final int BATCHES = 3; // minibatches per epoch

  /** Minibatches of one example each; records resets and every DataSet handed out. */
  static final class FakeIterator implements DataSetIterator {
    final int batches;
    final List<DataSet> given = new ArrayList<>();
    int next;
    int resets;

    FakeIterator(int batches) {
      this.batches = batches;
    }

    @Override
    public boolean hasNext() {
      return next < batches;
    }

    @Override
    public DataSet next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      next++;
      DataSet ds = new DataSet(Tensor.from(new float[] {next}, 1, 1), Tensor.from(new float[] {1}, 1, 1));
      given.add(ds);
      return ds;
    }

    @Override
    public void reset() {
      next = 0;
      resets++;
    }

    @Override
    public int batchSize() {
      return 1;
    }

    @Override
    public long numExamples() {
      return batches;
    }

    @Override
    public int totalOutcomes() {
      return 1;
    }

    boolean allClosed() {
      return given.stream().allMatch(ds -> ds.features().isClosed() && ds.labels().isClosed());
    }
  }

  /** "Trains" through the real minibatch loop: scripted minibatch scores, a clock advanced per minibatch. */
  static final class ScriptedFitter implements EpochFitter {
    final double[] minibatchScores; // over the whole run; 1.0 past the end
    final AtomicLong clock = new AtomicLong(123_456_789L); // arbitrary start: only differences count
    long nanosPerMinibatch;
    int failInEpoch = -1;
    int epochs;
    int minibatches;

    ScriptedFitter(double... minibatchScores) {
      this.minibatchScores = minibatchScores;
    }

    @Override
    public IterationTerminationCondition fitEpoch(Model net, DataSetIterator train,
        List<IterationTerminationCondition> conditions) {
      assertNull(net);
      assertEquals(0, ((FakeIterator) train).next, "the trainer resets the iterator before each epoch");
      epochs++;
      if (epochs - 1 == failInEpoch) {
        throw new IllegalStateException("boom in epoch " + failInEpoch);
      }
      return EpochFitter.fitMinibatches(train, ds -> {
        minibatches++;
        clock.addAndGet(nanosPerMinibatch);
      }, () -> minibatches <= minibatchScores.length ? minibatchScores[minibatches - 1] : 1.0, conditions);
    }

    int currentEpoch() {
      return epochs - 1;
    }
  }

  /** Returns the scripted scores one per call; fails the test if asked more often. */
  static final class ScriptedCalculator implements ScoreCalculator {
    final double[] scores;
    final boolean minimize;
    int calls;

    ScriptedCalculator(boolean minimize, double... scores) {
      this.minimize = minimize;
      this.scores = scores;
    }

    @Override
    public double calculateScore(Model net) {
      assertTrue(calls < scores.length, "scored more often than scripted");
      return scores[calls++];
    }

    @Override
    public boolean minimizeScore() {
      return minimize;
    }
  }

  /** Records the epoch and score of every save. */
  static final class RecordingSaver implements EarlyStoppingModelSaver {
    final IntSupplier epoch;
    final Map<Integer, Double> best = new LinkedHashMap<>();
    final Map<Integer, Double> latest = new LinkedHashMap<>();
    int latestSaves;
    int bestGets;
    IOException failOnBest;

    RecordingSaver(IntSupplier epoch) {
      this.epoch = epoch;
    }

    @Override
    public void saveBestModel(Model net, double score) throws IOException {
      if (failOnBest != null) {
        throw failOnBest;
      }
      best.put(epoch.getAsInt(), score);
    }

    @Override
    public void saveLatestModel(Model net, double score) {
      latest.put(epoch.getAsInt(), score);
      latestSaves++;
    }

    @Override
    public <T extends Model> T getBestModel() {
      bestGets++;
      return null;
    }

    @Override
    public <T extends Model> T getLatestModel() {
      return null;
    }
  }

  final ScriptedFitter fitter = new ScriptedFitter();
  final RecordingSaver saver = new RecordingSaver(fitter::currentEpoch);
  final FakeIterator train = new FakeIterator(BATCHES);

  EarlyStoppingConfiguration.Builder builder() {
    return new EarlyStoppingConfiguration.Builder().modelSaver(saver);
  }

  EarlyStoppingResult fit(EarlyStoppingConfiguration conf) {
    return fit(conf, fitter);
  }

  EarlyStoppingResult fit(EarlyStoppingConfiguration conf, ScriptedFitter f) {
    EarlyStoppingResult r = new EarlyStoppingTrainer(conf, null, train, f).fit();
    assertTrue(train.allClosed(), "every DataSet taken from the iterator is closed");
    return r;
  }

  static Map<Integer, Double> scores(double... s) {
    Map<Integer, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < s.length; i++) {
      m.put(i, s[i]);
    }
    return m;
  }

  @Test
  void scoreImprovementStopsAtTheRightEpoch() {
    ScriptedCalculator calc = new ScriptedCalculator(true, 5, 4, 3, 3.5, 3.2, 3.1, 3.05);
    EarlyStoppingResult r = fit(builder().scoreCalculator(calc)
        .epochTerminationConditions(new MaxEpochsTerminationCondition(100), new ScoreImprovementEpochTerminationCondition(3))
        .build());
    // best 3 at epoch 2; epochs 3, 4, 5 do not improve on it: the third of them ends training
    assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason());
    assertTrue(r.getTerminationDetails().contains("ScoreImprovementEpochTerminationCondition(patience=3"), r.getTerminationDetails());
    assertTrue(r.getTerminationDetails().contains("after epoch 5"), r.getTerminationDetails());
    assertEquals(2, r.getBestModelEpoch());
    assertEquals(3.0, r.getBestModelScore());
    assertEquals(6, r.getTotalEpochs());
    assertEquals(scores(5, 4, 3, 3.5, 3.2, 3.1), r.getScoreVsEpoch());
    assertEquals(6, calc.calls);
    assertEquals(6, fitter.epochs);
    assertEquals(6 * BATCHES, fitter.minibatches);
    assertEquals(6, train.resets);
    assertEquals(scores(5, 4, 3), saver.best, "best model saved at epochs 0, 1, 2 only");
    assertEquals(Map.of(), saver.latest, "saveLastModel is off");
    assertEquals(1, saver.bestGets);
    assertNull(r.getException());
  }

  @Test
  void maxEpochsStopsAfterFourEpochs() {
    ScriptedCalculator calc = new ScriptedCalculator(true, 4, 3, 2, 1, 0);
    EarlyStoppingResult r = fit(builder().scoreCalculator(calc)
        .epochTerminationConditions(new ScoreImprovementEpochTerminationCondition(2), new MaxEpochsTerminationCondition(4))
        .build());
    assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason());
    assertTrue(r.getTerminationDetails().startsWith("MaxEpochsTerminationCondition(4) after epoch 3"), r.getTerminationDetails());
    assertEquals(4, r.getTotalEpochs());
    assertEquals(4, fitter.epochs);
    assertEquals(4, calc.calls, "the last epoch is scored");
    assertEquals(3, r.getBestModelEpoch());
    assertEquals(1.0, r.getBestModelScore());
    assertEquals(scores(4, 3, 2, 1), saver.best);
  }

  @Test
  void withoutScoreCalculatorNothingIsScoredOrSavedAsBest() {
    EarlyStoppingResult r = fit(builder().saveLastModel(true)
        .epochTerminationConditions(new MaxEpochsTerminationCondition(4)).build());
    assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason());
    assertEquals(4, r.getTotalEpochs());
    assertEquals(Map.of(), r.getScoreVsEpoch());
    assertEquals(-1, r.getBestModelEpoch());
    assertTrue(Double.isNaN(r.getBestModelScore()));
    assertNull(r.getBestModel());
    assertEquals(Map.of(), saver.best);
    assertEquals(0, saver.bestGets, "no best model to ask the saver for");
    assertEquals(List.of(0, 1, 2, 3), new ArrayList<>(saver.latest.keySet()), "latest saved after every epoch");
    assertTrue(saver.latest.values().stream().allMatch(s -> Double.isNaN(s)));
  }

  @Test
  void maximizeAccuracyLikeScores() {
    // 0.80 at epoch 5 ties the best (epoch 3): not an improvement, so not saved
    ScriptedCalculator calc = new ScriptedCalculator(false, 0.50, 0.70, 0.65, 0.80, 0.79, 0.80, 0.78, 0.99);
    EarlyStoppingResult r = fit(builder().scoreCalculator(calc)
        .epochTerminationConditions(new ScoreImprovementEpochTerminationCondition(3)).build());
    assertEquals(TerminationReason.EpochTerminationCondition, r.getTerminationReason());
    assertEquals(7, r.getTotalEpochs());
    assertEquals(3, r.getBestModelEpoch());
    assertEquals(0.80, r.getBestModelScore());
    assertEquals(List.of(0, 1, 3), new ArrayList<>(saver.best.keySet()));
  }

  @Test
  void bestScoreTargetStopsWhenReached() {
    ScriptedCalculator up = new ScriptedCalculator(false, 0.5, 0.95, 0.97);
    EarlyStoppingResult r = fit(builder().scoreCalculator(up)
        .epochTerminationConditions(new BestScoreEpochTerminationCondition(0.9)).build());
    assertEquals(2, r.getTotalEpochs());
    assertEquals(1, r.getBestModelEpoch());
    assertTrue(r.getTerminationDetails().startsWith("BestScoreEpochTerminationCondition(0.9) after epoch 1 (score 0.95)"),
        r.getTerminationDetails());

    ScriptedCalculator down = new ScriptedCalculator(true, 0.5, 0.1, 0.05);
    EarlyStoppingResult r2 = new EarlyStoppingTrainer(builder().scoreCalculator(down)
        .epochTerminationConditions(new BestScoreEpochTerminationCondition(0.1)).build(), null, train, new ScriptedFitter()).fit();
    assertEquals(2, r2.getTotalEpochs(), r2.toString());
    assertEquals(0.1, r2.getBestModelScore());
  }

  @Test
  void maxTimeWithScriptedClock() {
    fitter.nanosPerMinibatch = TimeUnit.SECONDS.toNanos(10);
    EarlyStoppingConfiguration conf = builder().scoreCalculator(new ScriptedCalculator(true, 2, 1, 0.5, 0.4))
        .epochTerminationConditions(new MaxEpochsTerminationCondition(100))
        .iterationTerminationConditions(new MaxTimeIterationTerminationCondition(35, TimeUnit.SECONDS, fitter.clock::get))
        .build();
    EarlyStoppingResult r = fit(conf);
    // 10 s per minibatch, 3 per epoch: 40 s >= 35 s after the first minibatch of epoch 1
    assertEquals(TerminationReason.IterationTerminationCondition, r.getTerminationReason());
    assertEquals("MaxTimeIterationTerminationCondition(35 SECONDS) in epoch 1", r.getTerminationDetails());
    assertEquals(4, fitter.minibatches);
    assertEquals(1, r.getTotalEpochs(), "the cut-short epoch does not count");
    assertEquals(scores(2), r.getScoreVsEpoch(), "the cut-short epoch is not scored");
    assertEquals(0, r.getBestModelEpoch());

    // a second run starts its clock again at initialize(): again 4 minibatches
    EarlyStoppingResult again = new EarlyStoppingTrainer(conf, null, train, fitter).fit();
    assertEquals(TerminationReason.IterationTerminationCondition, again.getTerminationReason());
    assertEquals(8, fitter.minibatches);
    assertEquals(scores(1), again.getScoreVsEpoch(), "epochs counted from 0 again");
  }

  @Test
  void maxScoreStopsOnDivergence() {
    ScriptedFitter diverging = new ScriptedFitter(1.0, 0.9, 0.8, 0.7, Double.NaN, 0.5);
    RecordingSaver rec = new RecordingSaver(diverging::currentEpoch);
    EarlyStoppingResult r = fit(new EarlyStoppingConfiguration.Builder().modelSaver(rec).saveLastModel(true)
        .scoreCalculator(new ScriptedCalculator(true, 0.75, 0.1))
        .epochTerminationConditions(new MaxEpochsTerminationCondition(10))
        .iterationTerminationConditions(new MaxScoreIterationTerminationCondition(10)).build(), diverging);
    assertEquals(TerminationReason.IterationTerminationCondition, r.getTerminationReason());
    assertEquals("MaxScoreIterationTerminationCondition(10.0) in epoch 1", r.getTerminationDetails());
    assertEquals(5, diverging.minibatches, "stops right after the NaN minibatch");
    assertEquals(1, r.getTotalEpochs());
    assertEquals(0, r.getBestModelEpoch());
    assertEquals(0.75, r.getBestModelScore());
    assertEquals(scores(0.75), rec.best);
    assertEquals(2, rec.latestSaves, "latest saved after epoch 0 and when stopped in epoch 1");
    assertEquals(0.75, rec.latest.get(0));
    assertTrue(Double.isNaN(rec.latest.get(1)));

    // a score above the limit stops too (third minibatch)
    ScriptedFitter high = new ScriptedFitter(1.0, 5.0, 10.5, 1.0);
    EarlyStoppingResult r2 = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
        .iterationTerminationConditions(new MaxScoreIterationTerminationCondition(10)).build(), null, train, high).fit();
    assertEquals(TerminationReason.IterationTerminationCondition, r2.getTerminationReason());
    assertEquals(3, high.minibatches);
    assertEquals(0, r2.getTotalEpochs());
  }

  @Test
  void exceptionInTrainingEndsWithErrorAndTheBestModelSoFar() {
    fitter.failInEpoch = 2;
    ScriptedCalculator calc = new ScriptedCalculator(true, 3, 2, 1);
    EarlyStoppingResult r = fit(builder().scoreCalculator(calc)
        .epochTerminationConditions(new MaxEpochsTerminationCondition(10)).build());
    assertEquals(TerminationReason.Error, r.getTerminationReason());
    assertTrue(r.getTerminationDetails().contains("boom in epoch 2"), r.getTerminationDetails());
    assertTrue(r.getTerminationDetails().contains("while training epoch 2"), r.getTerminationDetails());
    assertTrue(r.getException() instanceof IllegalStateException);
    assertEquals(2, r.getTotalEpochs());
    assertEquals(1, r.getBestModelEpoch());
    assertEquals(2.0, r.getBestModelScore());
    assertEquals(1, saver.bestGets, "the best model so far is fetched");
  }

  @Test
  void exceptionInScoringOrSavingEndsWithError() {
    ScoreCalculator failing = new ScoreCalculator() {
      @Override
      public double calculateScore(Model net) {
        throw new IllegalArgumentException("bad validation data");
      }

      @Override
      public boolean minimizeScore() {
        return true;
      }
    };
    EarlyStoppingResult r = fit(builder().scoreCalculator(failing)
        .epochTerminationConditions(new MaxEpochsTerminationCondition(10)).build());
    assertEquals(TerminationReason.Error, r.getTerminationReason());
    assertTrue(r.getTerminationDetails().contains("bad validation data") && r.getTerminationDetails().contains("scoring epoch 0"),
        r.getTerminationDetails());
    assertEquals(1, r.getTotalEpochs(), "epoch 0 was trained to its end");
    assertEquals(-1, r.getBestModelEpoch());
    assertNull(r.getBestModel());

    saver.failOnBest = new IOException("disk full");
    EarlyStoppingResult r2 = fit(builder().scoreCalculator(new ScriptedCalculator(true, 1))
        .epochTerminationConditions(new MaxEpochsTerminationCondition(10)).build());
    assertEquals(TerminationReason.Error, r2.getTerminationReason());
    assertSame(saver.failOnBest, r2.getException());
    assertTrue(r2.getTerminationDetails().contains("saving the best model after epoch 0"), r2.getTerminationDetails());
    assertEquals(-1, r2.getBestModelEpoch(), "a best model that could not be saved is not reported");
  }

  @Test
  void evaluateEveryNEpochsScoresDueEpochsAndTheLast() {
    ScriptedCalculator calc = new ScriptedCalculator(true, 3, 2, 1);
    EarlyStoppingResult r = fit(builder().scoreCalculator(calc).evaluateEveryNEpochs(2)
        .epochTerminationConditions(new MaxEpochsTerminationCondition(5)).build());
    assertEquals(5, r.getTotalEpochs());
    assertEquals(List.of(1, 3, 4), new ArrayList<>(r.getScoreVsEpoch().keySet()));
    assertEquals(4, r.getBestModelEpoch());

    // patience counts scored epochs: scored 1 (best), 3, 5 -> two without improvement at epoch 5
    ScriptedFitter f = new ScriptedFitter();
    EarlyStoppingResult r2 = new EarlyStoppingTrainer(builder()
        .scoreCalculator(new ScriptedCalculator(true, 5, 6, 7)).evaluateEveryNEpochs(2)
        .epochTerminationConditions(new ScoreImprovementEpochTerminationCondition(2)).build(), null, train, f).fit();
    assertEquals(6, r2.getTotalEpochs(), r2.toString());
    assertEquals(1, r2.getBestModelEpoch());
  }

  @Test
  void minibatchLoopClosesDataSetsAndChecksConditionsInOrder() {
    FakeIterator it = new FakeIterator(5);
    List<Double> seen = new ArrayList<>();
    IterationTerminationCondition recorder = new IterationTerminationCondition() {
      @Override
      public void initialize() {}

      @Override
      public boolean terminate(double lastMinibatchScore) {
        seen.add(lastMinibatchScore);
        return false;
      }
    };
    InvalidScoreIterationTerminationCondition invalid = new InvalidScoreIterationTerminationCondition();
    double[] scores = {0.5, 0.25, Double.POSITIVE_INFINITY, 0.1, 0.1};
    int[] fitted = {0};
    List<Float> features = new ArrayList<>();
    IterationTerminationCondition fired = EpochFitter.fitMinibatches(it, ds -> {
      features.add(ds.features().toFloatArray()[0]);
      fitted[0]++;
    }, () -> scores[fitted[0] - 1], List.of(recorder, invalid));
    assertSame(invalid, fired);
    assertEquals(List.of(0.5, 0.25, Double.POSITIVE_INFINITY), seen, "each condition sees each minibatch's score");
    assertEquals(List.of(1f, 2f, 3f), features, "minibatches in order");
    assertTrue(it.allClosed());

    FakeIterator all = new FakeIterator(4);
    assertNull(EpochFitter.fitMinibatches(all, ds -> {}, () -> 1.0, List.of(invalid)), "ran to the end");
    assertEquals(4, all.given.size());

    FakeIterator failing = new FakeIterator(4);
    assertThrows(ArithmeticException.class, () -> EpochFitter.fitMinibatches(failing, ds -> {
      throw new ArithmeticException("fit failed");
    }, () -> 1.0, List.of()));
    assertEquals(1, failing.given.size());
    assertTrue(failing.allClosed(), "closed on an exception too");

    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> EpochFitter.fitMinibatches(new FakeIterator(0), ds -> {}, () -> 1.0, List.of()));
    assertTrue(e.getMessage().contains("no data"), e.getMessage());
  }

  /** An empty training iterator ends a run with Error instead of looping through empty epochs. */
  @Test
  void emptyTrainingDataEndsWithError() {
    EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder()
        .iterationTerminationConditions(new InvalidScoreIterationTerminationCondition()).build(),
        null, new FakeIterator(0), new ScriptedFitter()).fit();
    assertEquals(TerminationReason.Error, r.getTerminationReason());
    assertTrue(r.getTerminationDetails().contains("no data"), r.getTerminationDetails());
  }

  /**
   * Random score sequences against a separate formulation of the rules: the best epoch is the first
   * minimum (maximum) of the scored epochs, and training stops at the first scored epoch ending a
   * window of {@code patience} scored epochs none of which improved the running best by more than
   * minImprovement, or at maxEpochs.
   */
  @Test
  void randomScoreSequencesMatchAReference() {
    Random rnd = new Random(20240611);
    for (int t = 0; t < 300; t++) {
      boolean minimize = rnd.nextBoolean();
      int patience = 1 + rnd.nextInt(4);
      double minImprovement = new double[] {0, 0.05, 0.15}[rnd.nextInt(3)];
      int maxEpochs = 1 + rnd.nextInt(25);
      int every = 1 + rnd.nextInt(3);
      double[] s = new double[30];
      double v = 5;
      for (int i = 0; i < s.length; i++) {
        v += (minimize ? -0.05 : 0.05) + 0.1 * Math.round(rnd.nextGaussian() * 2); // drift, plateaus, ties
        s[i] = Math.round(v * 10) / 10.0;
      }
      String what = "case " + t + ": minimize=" + minimize + " patience=" + patience + " minImprovement="
          + minImprovement + " maxEpochs=" + maxEpochs + " every=" + every + " scores=" + Arrays.toString(s);

      // reference
      List<Integer> scoredEpochs = new ArrayList<>();
      List<Boolean> improved = new ArrayList<>();
      double runningBest = Double.NaN;
      int expectedTotal = -1;
      boolean expectMaxEpochs = false;
      for (int epoch = 0; expectedTotal < 0; epoch++) {
        boolean last = epoch + 1 == maxEpochs;
        if ((epoch + 1) % every == 0 || last) {
          double score = s[scoredEpochs.size()];
          boolean imp = scoredEpochs.isEmpty()
              || (minimize ? runningBest - score : score - runningBest) > minImprovement;
          if (imp) {
            runningBest = score;
          }
          scoredEpochs.add(epoch);
          improved.add(imp);
          int n = improved.size();
          boolean window = n > patience && !improved.subList(n - patience, n).contains(true);
          if (last || window) {
            expectedTotal = epoch + 1;
            expectMaxEpochs = last;
          }
        }
      }
      int bestIndex = 0;
      for (int j = 1; j < scoredEpochs.size(); j++) {
        if (minimize ? s[j] < s[bestIndex] : s[j] > s[bestIndex]) {
          bestIndex = j;
        }
      }

      ScriptedFitter f = new ScriptedFitter();
      RecordingSaver rec = new RecordingSaver(f::currentEpoch);
      EarlyStoppingResult r = new EarlyStoppingTrainer(new EarlyStoppingConfiguration.Builder().modelSaver(rec)
          .scoreCalculator(new ScriptedCalculator(minimize, s)).evaluateEveryNEpochs(every)
          .epochTerminationConditions(new ScoreImprovementEpochTerminationCondition(patience, minImprovement),
              new MaxEpochsTerminationCondition(maxEpochs)).build(), null, train, f).fit();
      assertEquals(expectedTotal, r.getTotalEpochs(), what);
      assertEquals(scoredEpochs, new ArrayList<>(r.getScoreVsEpoch().keySet()), what);
      assertEquals(scoredEpochs.get(bestIndex), r.getBestModelEpoch(), what);
      assertEquals(s[bestIndex], r.getBestModelScore(), what);
      assertEquals(scoredEpochs.get(bestIndex), new ArrayList<>(rec.best.keySet()).get(rec.best.size() - 1), what);
      assertTrue(r.getTerminationDetails().startsWith(
          expectMaxEpochs ? "MaxEpochsTerminationCondition" : "ScoreImprovementEpochTerminationCondition"), what);
    }
    assertTrue(train.allClosed());
  }
}
