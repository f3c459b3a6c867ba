package org.ndrt.earlystopping;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.ndrt.data.DataSetIterator;
import org.ndrt.earlystopping.EarlyStoppingResult.TerminationReason;
import org.ndrt.nn.Model;

/**
 * Trains a network with early stopping. {@link #fit()} repeats, epoch after epoch (counted from 0):
 *
 * <ol>
 *   <li>reset the training iterator and train one epoch with the {@link EpochFitter} (by default
 *       {@code net.fit(ds)} per minibatch), checking the iteration conditions after each minibatch; if
 *       one fires, training stops at once (the cut-short epoch is not scored);
 *   <li>check the epoch conditions that need no score ({@link EpochTerminationCondition#needsScore()}
 *       false, e.g. {@link MaxEpochsTerminationCondition}), with NaN as the score;
 *   <li>if there is a score calculator and the epoch is due ({@code (epoch + 1) % evaluateEveryNEpochs
 *       == 0}, or a condition of step 2 fired), score the network and, if the score is the best so
 *       far (strictly better; a NaN score never beats a real one), save it as the best model;
 *   <li>save the latest model, if the configuration asks for it;
 *   <li>on a scored epoch, check the epoch conditions that need the score (unless step 2 already
 *       stopped training); if one fires, training stops.
 * </ol>
 *
 * Conditions are checked in the configured order; the first that fires is the one reported.
 *
 * <p><b>Errors.</b> An exception thrown while training, scoring or saving does not escape {@code fit()}:
 * it ends the run with {@link TerminationReason#Error}, the exception (its toString() and where it
 * happened) in the details and in {@link EarlyStoppingResult#getException()}, and the best model saved
 * before it. {@link java.lang.Error}s (out of memory, ...) are not caught.
 *
 * <p><b>Networks.</b> Any {@link Model}: a {@link org.ndrt.nn.MultiLayerNetwork} or a {@link
 * org.ndrt.nn.ComputationGraph} (with one input and one output for the DataSet iterators and
 * calculators here); one trainer for both kinds, typed on Model rather than generic, and {@link
 * EarlyStoppingResult#getBestModel()} returns the kind trained.
 *
 * <p>The trainer calls no listener itself: the network's own listeners see the training (with the
 * default fitter: {@code iterationDone} per minibatch; the network's epoch events and epoch count are
 * not driven, since the trainer feeds minibatches itself). It closes neither the network nor the
 * iterator.
 */
public class EarlyStoppingTrainer {
  private final EarlyStoppingConfiguration conf;
  private final Model net;
  private final DataSetIterator train;
  private final EpochFitter fitter;

  /**
   * A trainer fitting minibatches one by one on the calling thread ({@link EpochFitter#sequential()}).
   *
   * @param conf the early-stopping configuration
   * @param net the network to train (trained in place): a MultiLayerNetwork or a ComputationGraph
   * @param train the training data
   * @throws IllegalArgumentException if an argument is null
   */
  public EarlyStoppingTrainer(EarlyStoppingConfiguration conf, Model net, DataSetIterator train) {
    this(conf, requireNet(net), train, EpochFitter.sequential());
  }

  /**
   * A trainer with its own epoch step (a parallel trainer passes one that trains on several devices).
   *
   * @param conf the early-stopping configuration
   * @param net the network to train; passed as is to the fitter, the score calculator and the saver
   *     (so it may be null only if none of them needs it, as in tests of the stopping logic)
   * @param train the training data
   * @param fitter trains one epoch
   * @throws IllegalArgumentException if {@code conf}, {@code train} or {@code fitter} is null
   */
  public EarlyStoppingTrainer(EarlyStoppingConfiguration conf, Model net, DataSetIterator train,
      EpochFitter fitter) {
    if (conf == null || train == null || fitter == null) {
      throw new IllegalArgumentException("EarlyStoppingTrainer: configuration, training iterator and fitter"
          + " must not be null");
    }
    this.conf = conf;
    this.net = net;
    this.train = train;
    this.fitter = fitter;
  }

  private static Model requireNet(Model net) {
    if (net == null) {
      throw new IllegalArgumentException("EarlyStoppingTrainer: the network must not be null");
    }
    return net;
  }

  /** @return the configuration */
  public EarlyStoppingConfiguration getConfiguration() {
    return conf;
  }

  /**
   * Trains until a termination condition fires or an exception ends training (see the class comment).
   * Every call starts over: conditions are initialized again and epochs counted from 0.
   *
   * @return how training ended, the scores and the best model
   */
  public EarlyStoppingResult fit() {
    List<EpochTerminationCondition> epochConditions = conf.getEpochTerminationConditions();
    List<IterationTerminationCondition> iterationConditions = conf.getIterationTerminationConditions();
    ScoreCalculator calculator = conf.getScoreCalculator();
    EarlyStoppingModelSaver saver = conf.getModelSaver();
    boolean minimize = calculator == null || calculator.minimizeScore();
    Run run = new Run();
    String doing = "initializing the termination conditions";
    try {
      epochConditions.forEach(EpochTerminationCondition::initialize);
      iterationConditions.forEach(IterationTerminationCondition::initialize);
      for (int epoch = 0; ; epoch++) {
        doing = "training epoch " + epoch;
        train.reset();
        IterationTerminationCondition stoppedBy = fitter.fitEpoch(net, train, iterationConditions);
        if (stoppedBy != null) {
          if (conf.isSaveLastModel()) {
            doing = "saving the latest model in epoch " + epoch;
            saver.saveLatestModel(net, Double.NaN);
          }
          return run.finish(TerminationReason.IterationTerminationCondition, stoppedBy + " in epoch " + epoch, saver);
        }
        run.totalEpochs = epoch + 1;

        EpochTerminationCondition fired = null;
        doing = "checking the epoch conditions after epoch " + epoch;
        for (EpochTerminationCondition c : epochConditions) {
          if (!c.needsScore() && c.terminate(epoch, Double.NaN, minimize)) {
            fired = c;
            break;
          }
        }
        boolean scored = calculator != null && ((epoch + 1) % conf.getEvaluateEveryNEpochs() == 0 || fired != null);
        double score = Double.NaN;
        if (scored) {
          doing = "scoring epoch " + epoch;
          score = calculator.calculateScore(net);
          run.scoreVsEpoch.put(epoch, score);
          if (run.isBetter(score, minimize)) {
            doing = "saving the best model after epoch " + epoch;
            saver.saveBestModel(net, score); // before updating: the record must match what the saver holds
            run.bestEpoch = epoch;
            run.bestScore = score;
          }
        }
        if (conf.isSaveLastModel()) {
          doing = "saving the latest model after epoch " + epoch;
          saver.saveLatestModel(net, score);
        }
        if (fired == null && scored) {
          doing = "checking the epoch conditions after epoch " + epoch;
          for (EpochTerminationCondition c : epochConditions) {
            if (c.needsScore() && c.terminate(epoch, score, minimize)) {
              fired = c;
              break;
            }
          }
        }
        if (fired != null) {
          return run.finish(TerminationReason.EpochTerminationCondition,
              fired + " after epoch " + epoch + (scored ? " (score " + score + ")" : ""), saver);
        }
      }
    } catch (Exception e) {
      return run.error(e, doing, saver);
    }
  }

  /** The bookkeeping of one fit() call. */
  private static final class Run {
    final Map<Integer, Double> scoreVsEpoch = new TreeMap<>();
    int bestEpoch = -1;
    double bestScore = Double.NaN;
    int totalEpochs;

    boolean isBetter(double score, boolean minimize) {
      if (bestEpoch < 0) {
        return true; // the first score is the best so far, even NaN: there is then a model to return
      }
      if (Double.isNaN(bestScore)) {
        return !Double.isNaN(score);
      }
      return minimize ? score < bestScore : score > bestScore;
    }

    EarlyStoppingResult finish(TerminationReason reason, String details, EarlyStoppingModelSaver saver) {
      Model best;
      try {
        best = bestEpoch < 0 ? null : saver.getBestModel();
      } catch (Exception e) {
        return error(e, "getting the best model after training stopped (" + details + ")", saver);
      }
      return new EarlyStoppingResult(reason, details, scoreVsEpoch, bestEpoch, bestScore, totalEpochs, best, null);
    }

    EarlyStoppingResult error(Exception e, String doing, EarlyStoppingModelSaver saver) {
      Model best = null;
      if (bestEpoch >= 0) {
        try {
          best = saver.getBestModel();
        } catch (Exception again) {
          e.addSuppressed(again);
        }
      }
      return new EarlyStoppingResult(TerminationReason.Error, e + " (while " + doing + ")", scoreVsEpoch,
          bestEpoch, bestScore, totalEpochs, best, e);
    }
  }
}
