package org.ndrt.nn.listeners;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.ndrt.nn.MultiLayerNetwork;

/**
 * A progress line per epoch:
 *
 * <pre>Epoch 1/3 [=========&gt;          ] 63/125  41.2 it/s  2637 img/s  ETA 0:01  loss 0.2312</pre>
 *
 * <ul>
 *   <li>The bar, "i/n" and ETA need the iteration count from {@code onEpochStart}; when the iterator
 *       cannot tell (-1) the line shows "i it" and the rates only.
 *   <li><b>Rates leave out the first iteration</b> once a second one is done: it/s = (i - 1) / time
 *       since the first iteration ended, img/s likewise from the examples counts, because the first
 *       minibatch carries one-time costs (JIT, workspaces, device start) that would skew the ETA for the
 *       whole epoch. After the first iteration alone, the rates are over that iteration. ETA =
 *       remaining iterations / it/s, in whole seconds (rounded down).
 *   <li>loss is the mean score of the epoch's minibatches so far (steadier than the last one).
 *   <li>On a terminal the line is redrawn in place with '\r', at most every 100 ms (and always for
 *       the first and the last iteration). Elsewhere (CI logs, pipes) a plain line is printed when
 *       25, 50 and 75% of the iterations are done; with an unknown count, one every 30 s.
 *   <li>At epoch end a final line (the 100% line) gives the epoch's wall time (from
 *       {@code onEpochStart} to {@code onEpochEnd}) and its mean rates over that time, first
 *       iteration, data loading and all: {@link #lastEpochImagesPerSecond()} is that img/s.
 * </ul>
 *
 * <p>The model argument is not used. Not thread-safe: one training thread calls it (the last-epoch
 * figures may be read from any thread).
 */
public final class ProgressBarListener implements TrainingListener {
  private static final int BAR_WIDTH = 20;
  private static final long REDRAW_NS = 100_000_000L; // a terminal line at most ~10 times/s
  private static final long LOG_UNKNOWN_NS = 30_000_000_000L; // non-terminal, unknown count

  private final int totalEpochs;
  private final PrintStream out;
  private final LongSupplier clock;
  private final boolean tty;

  // the current epoch
  private boolean inEpoch;
  private int epoch;
  private long total; // -1: unknown
  private long startNs;
  private long firstNs; // when the first iteration ended
  private long firstExamples;
  private long done;
  private long examples;
  private double lossSum;
  private int nextQuarter; // non-terminal: next 25% step to print (1..3)
  private long lastDrawNs;
  private long lastLogNs;
  private int lastLength; // terminal: length of the line on screen, to blank leftovers

  private volatile double lastImagesPerSecond = Double.NaN;
  private volatile double lastSeconds = Double.NaN;

  /** To {@code System.out}, total epochs not shown ("Epoch 2"). */
  public ProgressBarListener() {
    this(0);
  }

  /** To {@code System.out} ("Epoch e/totalEpochs"; 0 = not shown), redrawn if it is a terminal. */
  public ProgressBarListener(int totalEpochs) {
    this(totalEpochs, System.out, System::nanoTime);
  }

  /**
   * To {@code sink}, with time from {@code nanoTime}; the terminal form only when {@code sink} is
   * {@code System.out} and {@code System.console() != null}.
   */
  public ProgressBarListener(int totalEpochs, PrintStream sink, LongSupplier nanoTime) {
    this(totalEpochs, sink, nanoTime, sink == System.out && System.console() != null);
  }

  /**
   * Every option.
   *
   * @param totalEpochs shown as "Epoch e/totalEpochs"; 0 shows "Epoch e"
   * @param sink where lines go
   * @param nanoTime the clock, in nanoseconds (System::nanoTime; a scripted one in tests)
   * @param terminal true: redraw one line with '\r'; false: plain lines at 25/50/75/100%
   */
  public ProgressBarListener(int totalEpochs, PrintStream sink, LongSupplier nanoTime, boolean terminal) {
    if (totalEpochs < 0) {
      throw new IllegalArgumentException("totalEpochs must be >= 0 (0: not shown), got " + totalEpochs);
    }
    this.totalEpochs = totalEpochs;
    this.out = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(nanoTime, "nanoTime");
    this.tty = terminal;
  }

  /** The mean images (examples) per second of the last finished epoch, over its wall time; NaN before. */
  public double lastEpochImagesPerSecond() {
    return lastImagesPerSecond;
  }

  /** The wall time in seconds of the last finished epoch; NaN before. */
  public double lastEpochSeconds() {
    return lastSeconds;
  }

  @Override
  public void onEpochStart(org.ndrt.nn.Model model, int epoch, long iterationsInEpoch, int batchSize) {
    begin(epoch, iterationsInEpoch, clock.getAsLong());
  }

  @Override
  public void iterationDone(org.ndrt.nn.Model model, long iteration, int epoch, double score, int examples) {
    long now = clock.getAsLong();
    if (!inEpoch) { // added mid-epoch: count from here
      begin(epoch, -1, now);
    }
    done++;
    this.examples += examples;
    lossSum += score;
    if (done == 1) {
      firstNs = now;
      firstExamples = examples;
    }
    if (tty) {
      boolean last = total > 0 && done >= total;
      if (done == 1 || last || now - lastDrawNs >= REDRAW_NS) {
        redraw(progressLine(now));
        lastDrawNs = now;
      }
    } else if (total > 0) {
      boolean crossed = false;
      while (nextQuarter <= 3 && done * 4 >= nextQuarter * total) { // a big step may pass two
        crossed = true;
        nextQuarter++;
      }
      if (crossed) {
        out.println(progressLine(now));
      }
    } else if (now - lastLogNs >= LOG_UNKNOWN_NS) {
      out.println(progressLine(now));
      lastLogNs = now;
    }
  }

  @Override
  public void onEpochEnd(org.ndrt.nn.Model model, int epoch) {
    if (!inEpoch) {
      return;
    }
    long wallNs = clock.getAsLong() - startNs;
    double seconds = wallNs / 1e9;
    lastSeconds = seconds;
    lastImagesPerSecond = wallNs > 0 ? examples / seconds : Double.NaN;
    StringBuilder sb = head();
    sb.append(String.format(Locale.ROOT, "  %.1f s", seconds));
    if (wallNs > 0) {
      sb.append(String.format(Locale.ROOT, "  %.1f it/s  %.0f img/s", done / seconds, examples / seconds));
    }
    appendLoss(sb);
    if (tty) {
      redraw(sb.toString());
      out.println();
    } else {
      out.println(sb);
    }
    out.flush();
    inEpoch = false;
  }

  private void begin(int epoch, long iterationsInEpoch, long now) {
    inEpoch = true;
    this.epoch = epoch;
    total = iterationsInEpoch > 0 ? iterationsInEpoch : -1;
    startNs = now;
    firstNs = now;
    firstExamples = 0;
    done = 0;
    examples = 0;
    lossSum = 0;
    nextQuarter = 1;
    lastDrawNs = now;
    lastLogNs = now;
    lastLength = 0;
  }

  /** "Epoch e/E [bar] i/n" or "Epoch e/E i it". */
  private StringBuilder head() {
    StringBuilder sb = new StringBuilder("Epoch ").append(epoch + 1);
    if (totalEpochs > 0) {
      sb.append('/').append(totalEpochs);
    }
    if (total > 0) {
      sb.append(" [").append(bar(done, total)).append("] ").append(done).append('/').append(total);
    } else {
      sb.append(' ').append(done).append(" it");
    }
    return sb;
  }

  private String progressLine(long now) {
    StringBuilder sb = head();
    // rates from the end of the first iteration on (see the class comment); over it while it is alone
    long dtNs = done == 1 ? firstNs - startNs : now - firstNs;
    long its = done == 1 ? 1 : done - 1;
    long ex = done == 1 ? firstExamples : examples - firstExamples;
    if (dtNs > 0) {
      double dt = dtNs / 1e9;
      double itPerS = its / dt;
      sb.append(String.format(Locale.ROOT, "  %.1f it/s  %.0f img/s", itPerS, ex / dt));
      if (total > 0) {
        sb.append("  ETA ").append(clockTime((long) (Math.max(0, total - done) / itPerS)));
      }
    }
    appendLoss(sb);
    return sb.toString();
  }

  private void appendLoss(StringBuilder sb) {
    if (done > 0) {
      sb.append(String.format(Locale.ROOT, "  loss %.4f", lossSum / done));
    }
  }

  /** '\r' and the line, blanking what is left of a longer previous line. */
  private void redraw(String line) {
    int pad = Math.max(0, lastLength - line.length());
    out.print('\r' + line + " ".repeat(pad));
    out.flush();
    lastLength = line.length();
  }

  /** "=========>          " for 63 of 125: the head '>' while not full. */
  static String bar(long done, long total) {
    int filled = (int) (BAR_WIDTH * Math.min(done, total) / total);
    if (filled == BAR_WIDTH) {
      return "=".repeat(BAR_WIDTH);
    }
    String body = filled == 0 ? "" : "=".repeat(filled - 1) + ">";
    return body + " ".repeat(BAR_WIDTH - body.length());
  }

  /** "m:ss", or "h:mm:ss" from an hour on. */
  static String clockTime(long seconds) {
    long h = seconds / 3600;
    long m = seconds / 60 % 60;
    long s = seconds % 60;
    return h > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s) : String.format(Locale.ROOT, "%d:%02d", m, s);
  }
}
