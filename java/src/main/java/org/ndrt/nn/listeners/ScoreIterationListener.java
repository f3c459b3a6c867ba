package org.ndrt.nn.listeners;

import java.io.PrintStream;
import java.util.Objects;
import java.util.function.Consumer;
import org.ndrt.nn.MultiLayerNetwork;

/**
 * Prints "Score at iteration N is S" every {@code printEvery} iterations (when the iteration number is
 * a multiple of it), like Deeplearning4j's listener of the same name. S is the minibatch's score as
 * passed to {@link #iterationDone}; the model is not used.
 */
public final class ScoreIterationListener implements TrainingListener {
  private final int printEvery;
  private final Consumer<String> sink;

  /** Prints every 10 iterations to {@code System.out}. */
  public ScoreIterationListener() {
    this(10);
  }

  /** Prints every {@code printEvery} iterations (at least 1) to {@code System.out}. */
  public ScoreIterationListener(int printEvery) {
    this(printEvery, systemOut());
  }

  /** Hands each line (without a line break) to {@code sink}: a logger, or a list in tests. */
  public ScoreIterationListener(int printEvery, Consumer<String> sink) {
    if (printEvery < 1) {
      throw new IllegalArgumentException("printEvery must be at least 1, got " + printEvery);
    }
    this.printEvery = printEvery;
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /** Every how many iterations a line is printed. */
  public int printEvery() {
    return printEvery;
  }

  @Override
  public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
    if (iteration % printEvery == 0) {
      sink.accept("Score at iteration " + iteration + " is " + score);
    }
  }

  // System.out read at print time, so System.setOut after construction is honoured
  private static Consumer<String> systemOut() {
    return line -> {
      PrintStream out = System.out;
      out.println(line);
    };
  }
}
