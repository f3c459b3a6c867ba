package org.deeplearning4j.earlystopping.trainer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.earlystopping.EarlyStoppingConfiguration;
import org.deeplearning4j.earlystopping.EarlyStoppingModelSaver;
import org.deeplearning4j.earlystopping.EarlyStoppingResult;
import org.deeplearning4j.earlystopping.scorecalc.ScoreCalculator;
import org.deeplearning4j.earlystopping.termination.EpochTerminationCondition;
import org.deeplearning4j.earlystopping.termination.IterationTerminationCondition;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.ndrt.dl4j.NdrtBacked;
import org.ndrt.dl4j.Tensors;

/**
 * Deeplearning4j's EarlyStoppingTrainer for a MultiLayerNetwork. org.ndrt.earlystopping.EarlyStoppingTrainer
 * runs the training (one implementation of the epoch loop, scoring, saving and stopping rules); this
 * class translates the configuration onto it and the result back:
 *
 * <ul>
 *   <li>the drop-in's own conditions and DataSetLossCalculator are org.ndrt's objects and are passed as
 *       they are; a user's condition or calculator is wrapped (a user's epoch condition is checked on
 *       scored epochs, as Deeplearning4j does; a user's calculator sees this Deeplearning4j network);
 *   <li>the saver is called with Deeplearning4j networks over the same org.ndrt.nn network, so a
 *       LocalFileModelSaver writes ModelSerializer files and the result's best model is the saver's.
 * </ul>
 *
 * Epochs are counted from 0, as in Deeplearning4j. The network's listeners see every iteration.
 */
public class EarlyStoppingTrainer {
  private final EarlyStoppingConfiguration<MultiLayerNetwork> esConfig;
  private final MultiLayerNetwork net;
  private final DataSetIterator train;

  /** A new network from {@code configuration}, initialised here. */
  public EarlyStoppingTrainer(EarlyStoppingConfiguration<MultiLayerNetwork> esConfig,
      MultiLayerConfiguration configuration, DataSetIterator train) {
    this(esConfig, newNetwork(configuration), train);
  }

  public EarlyStoppingTrainer(EarlyStoppingConfiguration<MultiLayerNetwork> esConfig, MultiLayerNetwork net,
      DataSetIterator train) {
    if (esConfig == null || net == null || train == null) {
      throw new IllegalArgumentException("EarlyStoppingTrainer: configuration, network and iterator must not be null");
    }
    this.esConfig = esConfig;
    this.net = net;
    this.train = train;
  }

  private static MultiLayerNetwork newNetwork(MultiLayerConfiguration configuration) {
    MultiLayerNetwork n = new MultiLayerNetwork(configuration);
    n.init();
    return n;
  }

  /** Trains until a termination condition fires (or an exception ends training: reason Error). */
  public EarlyStoppingResult<MultiLayerNetwork> fit() {
    net.init();
    SaverBridge saver = new SaverBridge(esConfig.getModelSaver());
    org.ndrt.earlystopping.EarlyStoppingConfiguration.Builder b =
        new org.ndrt.earlystopping.EarlyStoppingConfiguration.Builder()
            .epochTerminationConditions(epochConditions())
            .iterationTerminationConditions(iterationConditions())
            .evaluateEveryNEpochs(esConfig.getEvaluateEveryNEpochs())
            .saveLastModel(esConfig.isSaveLastModel())
            .modelSaver(saver);
    if (esConfig.getScoreCalculator() != null) {
      b.scoreCalculator(scoreCalculator(esConfig.getScoreCalculator()));
    }
    org.ndrt.earlystopping.EarlyStoppingResult r =
        new org.ndrt.earlystopping.EarlyStoppingTrainer(b.build(), net.ndrtNetwork(), Tensors.iterator(train)).fit();
    return new EarlyStoppingResult<>(EarlyStoppingResult.TerminationReason.valueOf(r.getTerminationReason().name()),
        r.getTerminationDetails(), r.getScoreVsEpoch(), r.getBestModelEpoch(), r.getBestModelScore(),
        r.getTotalEpochs(), r.getBestModel() == null ? null : saver.best);
  }

  /** The Deeplearning4j view of an org.ndrt.nn network the org.ndrt trainer hands over (usually {@link #net}'s). */
  private MultiLayerNetwork view(org.ndrt.nn.Model n) {
    return n == net.ndrtNetwork() ? net
        : new MultiLayerNetwork(net.getLayerWiseConfigurations(), (org.ndrt.nn.MultiLayerNetwork) n);  // a copy of net: same kind
  }

  private List<org.ndrt.earlystopping.EpochTerminationCondition> epochConditions() {
    List<org.ndrt.earlystopping.EpochTerminationCondition> out = new ArrayList<>();
    for (EpochTerminationCondition c : esConfig.getEpochTerminationConditions()) {
      out.add(ndrtOf(c, org.ndrt.earlystopping.EpochTerminationCondition.class, () -> new org.ndrt.earlystopping.EpochTerminationCondition() {
        @Override
        public void initialize() {
          c.initialize();
        }

        @Override
        public boolean terminate(int epochNum, double score, boolean minimize) {
          return c.terminate(epochNum, score, minimize);
        }

        @Override
        public String toString() {
          return c.toString();
        }
      }));
    }
    return out;
  }

  private List<org.ndrt.earlystopping.IterationTerminationCondition> iterationConditions() {
    List<org.ndrt.earlystopping.IterationTerminationCondition> out = new ArrayList<>();
    for (IterationTerminationCondition c : esConfig.getIterationTerminationConditions()) {
      out.add(ndrtOf(c, org.ndrt.earlystopping.IterationTerminationCondition.class, () -> new org.ndrt.earlystopping.IterationTerminationCondition() {
        @Override
        public void initialize() {
          c.initialize();
        }

        @Override
        public boolean terminate(double lastMinibatchScore) {
          return c.terminate(lastMinibatchScore);
        }

        @Override
        public String toString() {
          return c.toString();
        }
      }));
    }
    return out;
  }

  private org.ndrt.earlystopping.ScoreCalculator scoreCalculator(ScoreCalculator<MultiLayerNetwork> c) {
    return ndrtOf(c, org.ndrt.earlystopping.ScoreCalculator.class, () -> new org.ndrt.earlystopping.ScoreCalculator() {
      @Override
      public double calculateScore(org.ndrt.nn.Model n) {
        return c.calculateScore(view(n));
      }

      @Override
      public boolean minimizeScore() {
        return c.minimizeScore();
      }

      @Override
      public String toString() {
        return c.toString();
      }
    });
  }

  /** The org.ndrt object behind one of the drop-in's own classes, else the wrapper made by {@code wrap}. */
  private static <T> T ndrtOf(Object o, Class<T> type, java.util.function.Supplier<T> wrap) {
    if (o instanceof NdrtBacked && type.isInstance(((NdrtBacked<?>) o).ndrt())) {
      return type.cast(((NdrtBacked<?>) o).ndrt());
    }
    return wrap.get();
  }

  /** The Deeplearning4j saver seen as org.ndrt's; remembers the Deeplearning4j best model it returned. */
  private final class SaverBridge implements org.ndrt.earlystopping.EarlyStoppingModelSaver {
    private final EarlyStoppingModelSaver<MultiLayerNetwork> saver;
    MultiLayerNetwork best;

    SaverBridge(EarlyStoppingModelSaver<MultiLayerNetwork> saver) {
      this.saver = saver;
    }

    @Override
    public void saveBestModel(org.ndrt.nn.Model n, double score) throws IOException {
      saver.saveBestModel(view(n), score);
    }

    @Override
    public void saveLatestModel(org.ndrt.nn.Model n, double score) throws IOException {
      saver.saveLatestModel(view(n), score);
    }

    @Override
    @SuppressWarnings("unchecked")  // org.ndrt's generic getter: the trainer asks for a Model
    public <M extends org.ndrt.nn.Model> M getBestModel() throws IOException {
      best = saver.getBestModel();
      return best == null ? null : (M) best.ndrtNetwork();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <M extends org.ndrt.nn.Model> M getLatestModel() throws IOException {
      MultiLayerNetwork m = saver.getLatestModel();
      return m == null ? null : (M) m.ndrtNetwork();
    }

    @Override
    public String toString() {
      return saver.toString();
    }
  }
}
