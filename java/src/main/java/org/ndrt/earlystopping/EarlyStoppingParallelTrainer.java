package org.ndrt.earlystopping;

import java.util.List;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.Model;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.parallel.ParallelWrapper;

/**
 * Early stopping with data-parallel training, as Deeplearning4j's EarlyStoppingParallelTrainer: an
 * {@link EarlyStoppingTrainer} whose epoch step is {@link ParallelWrapper#fit} (everything else,
 * scoring, saving, epoch conditions, is the plain trainer's). After each epoch the network holds the
 * workers' averaged model, which is what gets scored and saved.
 *
 * <p>Iteration termination conditions are checked with the score the wrapper reports: after each
 * averaging (the mean of the workers' last minibatch scores) with {@code reportScoreAfterAveraging},
 * the default, else after every minibatch of every worker. When one fires, the wrapper stops taking
 * minibatches ({@link ParallelWrapper#stopFit()}), averages a last time, and training ends.
 *
 * <pre>{@code
 * try (EarlyStoppingParallelTrainer t = new EarlyStoppingParallelTrainer(esConf, net, train, 2, 8, 3)) {
 *   EarlyStoppingResult r = t.fit();
 * }
 * }</pre>
 *
 * {@link #close()} closes the wrapper's replicas (a wrapper passed in stays the caller's); neither the
 * network nor the iterator is closed.
 */
public final class EarlyStoppingParallelTrainer extends EarlyStoppingTrainer implements AutoCloseable {
  private final ParallelWrapper wrapper;
  private final boolean ownsWrapper;

  /**
   * A trainer on a wrapper of its own.
   *
   * @param conf the early-stopping configuration
   * @param net the network to train (initialised): a MultiLayerNetwork, or a ComputationGraph with one
   *     input and one output
   * @param train the training data
   * @param workers worker threads
   * @param prefetchBuffer minibatches queued ahead per worker
   * @param averagingFrequency minibatches each worker fits between two averagings
   * @throws IllegalArgumentException if an argument is null or a count is below 1
   */
  public EarlyStoppingParallelTrainer(EarlyStoppingConfiguration conf, Model net, DataSetIterator train,
      int workers, int prefetchBuffer, int averagingFrequency) {
    this(conf, new ParallelWrapper.Builder(net).workers(workers).prefetchBuffer(prefetchBuffer)
        .averagingFrequency(averagingFrequency).build(), train, true);
  }

  /**
   * A trainer on a wrapper built by the caller (its network is the one trained). The wrapper must
   * not be used elsewhere while {@link #fit()} runs.
   *
   * @param conf the early-stopping configuration
   * @param wrapper trains each epoch
   * @param train the training data
   * @throws IllegalArgumentException if an argument is null
   */
  public EarlyStoppingParallelTrainer(EarlyStoppingConfiguration conf, ParallelWrapper wrapper, DataSetIterator train) {
    this(conf, wrapper, train, false);
  }

  private EarlyStoppingParallelTrainer(EarlyStoppingConfiguration conf, ParallelWrapper wrapper, DataSetIterator train,
      boolean owns) {
    super(conf, networkOf(wrapper), train, parallelFitter(wrapper));
    this.wrapper = wrapper;
    this.ownsWrapper = owns;
  }

  private static Model networkOf(ParallelWrapper wrapper) {
    if (wrapper == null) {
      throw new IllegalArgumentException("EarlyStoppingParallelTrainer: the wrapper must not be null");
    }
    return wrapper.getNetwork();
  }

  /** pw.fit(train) as the epoch step, the iteration conditions checked by a listener for its duration. */
  private static EpochFitter parallelFitter(ParallelWrapper pw) {
    return (net, train, conditions) -> {
      Check check = new Check(pw, conditions);
      pw.addListeners(check);
      try {
        pw.fit(train);
      } finally {
        pw.getListeners().remove(check);
      }
      if (check.fired == null && check.iterations == 0) {
        throw new IllegalStateException("the training iterator has no data (an epoch without any minibatch)");
      }
      return check.fired;
    };
  }

  /** Checks the conditions on each reported score; stops the wrapper at the first that fires. */
  private static final class Check implements TrainingListener {
    private final ParallelWrapper pw;
    private final List<IterationTerminationCondition> conditions;
    private volatile IterationTerminationCondition fired;
    private volatile long iterations;

    Check(ParallelWrapper pw, List<IterationTerminationCondition> conditions) {
      this.pw = pw;
      this.conditions = conditions;
    }

    @Override
    public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
      ++iterations; // the wrapper makes one call at a time
      if (fired != null) {
        return; // already stopping: the minibatches still in flight do not count
      }
      for (IterationTerminationCondition c : conditions) {
        if (c.terminate(score)) {
          fired = c;
          pw.stopFit();
          return;
        }
      }
    }
  }

  /** @return the wrapper training each epoch */
  public ParallelWrapper getWrapper() {
    return wrapper;
  }

  /** Closes the wrapper's replicas if this trainer built the wrapper. */
  @Override
  public void close() {
    if (ownsWrapper) {
      wrapper.close();
    }
  }
}
