package org.deeplearning4j.optimize.listeners;

import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.optimize.api.BaseTrainingListener;
import org.deeplearning4j.optimize.api.InvocationType;
import org.nd4j.evaluation.IEvaluation;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;
import org.nd4j.linalg.dataset.api.iterator.MultiDataSetIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluates the network on an iterator every {@code frequency} epochs or iterations and logs the
 * evaluation's stats (slf4j, INFO), as Deeplearning4j's EvaluativeListener (default: Evaluation at each
 * epoch end). A MultiLayerNetwork is evaluated on a DataSetIterator, a ComputationGraph (one output) on
 * either kind.
 */
public class EvaluativeListener extends BaseTrainingListener {
  private static final Logger log = LoggerFactory.getLogger(EvaluativeListener.class);
  private final DataSetIterator iterator;
  private final MultiDataSetIterator mdsIterator;
  private final int frequency;
  private final InvocationType type;
  private final IEvaluation<?>[] evaluations;
  private int count;

  public EvaluativeListener(DataSetIterator iterator, int frequency) {
    this(iterator, frequency, InvocationType.EPOCH_END);
  }

  public EvaluativeListener(DataSetIterator iterator, int frequency, InvocationType type) {
    this(iterator, frequency, type, new Evaluation());
  }

  public EvaluativeListener(DataSetIterator iterator, int frequency, InvocationType type, IEvaluation<?>... evaluations) {
    this(iterator, null, frequency, type, evaluations);
  }

  public EvaluativeListener(MultiDataSetIterator iterator, int frequency) {
    this(iterator, frequency, InvocationType.EPOCH_END);
  }

  public EvaluativeListener(MultiDataSetIterator iterator, int frequency, InvocationType type) {
    this(iterator, frequency, type, new Evaluation());
  }

  public EvaluativeListener(MultiDataSetIterator iterator, int frequency, InvocationType type, IEvaluation<?>... evaluations) {
    this(null, iterator, frequency, type, evaluations);
  }

  private EvaluativeListener(DataSetIterator iterator, MultiDataSetIterator mdsIterator, int frequency, InvocationType type,
      IEvaluation<?>[] evaluations) {
    this.iterator = iterator;
    this.mdsIterator = mdsIterator;
    this.frequency = Math.max(1, frequency);
    this.type = type;
    this.evaluations = evaluations;
  }

  @Override
  public void iterationDone(Model model, int iteration, int epoch) {
    if (type == InvocationType.ITERATION_END) {
      invoke(model);
    }
  }

  @Override
  public void onEpochStart(Model model) {
    if (type == InvocationType.EPOCH_START) {
      invoke(model);
    }
  }

  @Override
  public void onEpochEnd(Model model) {
    if (type == InvocationType.EPOCH_END) {
      invoke(model);
    }
  }

  private void invoke(Model model) {
    if (count++ % frequency != 0) {
      return;
    }
    for (IEvaluation<?> e : evaluations) {
      e.reset();
    }
    if (model instanceof ComputationGraph) {
      ComputationGraph g = (ComputationGraph) model;
      if (iterator != null) {
        g.doEvaluation(iterator, evaluations);
      } else {
        g.doEvaluation(mdsIterator, evaluations);
      }
    } else if (iterator != null) {
      ((MultiLayerNetwork) model).doEvaluation(iterator, evaluations);
    } else {
      throw new UnsupportedOperationException("EvaluativeListener on a MultiDataSetIterator for a "
          + model.getClass().getSimpleName() + ": ndrt's MultiLayerNetwork has no doEvaluation(MultiDataSetIterator, ...)");
    }
    for (IEvaluation<?> e : evaluations) {
      log.info("Evaluation:\n{}", e.stats());
    }
  }
}
