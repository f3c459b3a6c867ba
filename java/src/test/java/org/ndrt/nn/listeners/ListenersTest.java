package org.ndrt.nn.listeners;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Listeners driven by hand (the model argument is null: these features do not use it). The progress
 * bar runs on a scripted clock; expected rates are recomputed here from the script.
 */
class ListenersTest {
  private static final long S = 1_000_000_000L;

  /** A clock the test sets before each call. */
  private static final class Script {
    long now;
  }

  private static final class Sink {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  @Test
  void scoreIterationListenerPrintsEveryN() {
    List<String> lines = new ArrayList<>();
    ScoreIterationListener l = new ScoreIterationListener(10, lines::add);
    for (long it = 0; it < 35; it++) {
      l.iterationDone(null, it, 0, 1.0 / (it + 1), 32);
    }
    assertEquals(List.of("Score at iteration 0 is 1.0", "Score at iteration 10 is " + (1.0 / 11),
        "Score at iteration 20 is " + (1.0 / 21), "Score at iteration 30 is " + (1.0 / 31)), lines);
    lines.clear();
    ScoreIterationListener every = new ScoreIterationListener(1, lines::add);
    every.iterationDone(null, 7, 0, 0.5, 1);
    assertEquals(List.of("Score at iteration 7 is 0.5"), lines);
    assertThrows(IllegalArgumentException.class, () -> new ScoreIterationListener(0));
    assertThrows(NullPointerException.class, () -> new ScoreIterationListener(5, null));
  }

  @Test
  void collectScoresRecordsEveryFrequency() {
    CollectScoresListener all = new CollectScoresListener();
    CollectScoresListener third = new CollectScoresListener(3);
    assertNull(all.last());
    for (long it = 0; it < 10; it++) {
      all.iterationDone(null, it, (int) (it / 5), 10.0 - it, 16);
      third.iterationDone(null, it, (int) (it / 5), 10.0 - it, 16);
    }
    assertEquals(10, all.size());
    assertArrayEquals(new long[] {0, 3, 6, 9}, third.iterations());
    assertArrayEquals(new double[] {10, 7, 4, 1}, third.scoreValues());
    assertEquals(new CollectScoresListener.Score(9, 1, 1.0), all.last());
    assertEquals(new CollectScoresListener.Score(5, 1, 5.0), all.getScores().get(5));
    all.clear();
    assertEquals(0, all.size());
    assertThrows(IllegalArgumentException.class, () -> new CollectScoresListener(0));
  }

  @Test
  void barShape() {
    assertEquals("=========>          ", ProgressBarListener.bar(63, 125));
    assertEquals("                    ", ProgressBarListener.bar(0, 125));
    assertEquals(">                   ", ProgressBarListener.bar(1, 20));
    assertEquals("====================", ProgressBarListener.bar(125, 125));
    assertEquals("====================", ProgressBarListener.bar(130, 125));
    assertEquals("0:00", ProgressBarListener.clockTime(0));
    assertEquals("1:05", ProgressBarListener.clockTime(65));
    assertEquals("2:00:07", ProgressBarListener.clockTime(7207));
  }

  /**
   * 125 iterations of 64 examples (the last 32): the first takes 0.8 s (warm-up), the other 124 run
   * at a steady 62 per 1.505 s. Not a terminal: lines at 25/50/75% (iterations 32, 63, 94) and the
   * final one; the 50% line is the example line of the spec, character for character.
   */
  @Test
  void nonTerminalPrintsQuarterLinesWithScriptedRates() {
    Script clock = new Script();
    Sink sink = new Sink();
    ProgressBarListener bar = new ProgressBarListener(3, sink.out, () -> clock.now, false);
    assertTrue(Double.isNaN(bar.lastEpochImagesPerSecond()));
    long t0 = 5 * S;
    long t1 = t0 + 800_000_000L;
    int total = 125;
    long[] end = new long[total + 1];
    int[] ex = new int[total + 1];
    clock.now = t0;
    bar.onEpochStart(null, 0, total, 64);
    for (int n = 1; n <= total; n++) {
      end[n] = n == 1 ? t1 : t1 + Math.round((n - 1) * 1.505e9 / 62);
      ex[n] = n == total ? 32 : 64;
      clock.now = end[n];
      bar.iterationDone(null, 1000 + n, 0, 0.2312, ex[n]);
    }
    long tEnd = end[total] + 50_000_000L; // the epoch ends a little after the last iteration
    clock.now = tEnd;
    bar.onEpochEnd(null, 0);

    String[] lines = sink.text().split("\n", -1);
    assertEquals(5, lines.length, sink.text()); // 4 lines and the empty rest
    assertEquals("", lines[4]);
    assertFalse(sink.text().contains("\r"));
    assertEquals("Epoch 1/3 [=========>          ] 63/125  41.2 it/s  2637 img/s  ETA 0:01  loss 0.2312", lines[1]);
    Pattern p = Pattern.compile(
        "Epoch 1/3 \\[(.{20})\\] (\\d+)/125  ([0-9.]+) it/s  (\\d+) img/s  ETA (\\d+:\\d\\d)  loss 0\\.2312");
    int[] at = {32, 63, 94};
    for (int q = 0; q < 3; q++) {
      Matcher m = p.matcher(lines[q]);
      assertTrue(m.matches(), lines[q]);
      int n = at[q];
      assertEquals(n, Integer.parseInt(m.group(2)));
      // rates from the end of the first iteration (warm-up left out)
      double dt = (end[n] - end[1]) / 1e9;
      double itPerS = (n - 1) / dt;
      assertEquals(f("%.1f", itPerS), m.group(3));
      assertEquals(f("%.0f", 64 * (n - 1) / dt), m.group(4));
      long eta = (long) Math.floor((total - n) / itPerS);
      assertEquals(f("%d:%02d", eta / 60, eta % 60), m.group(5));
      assertEquals(ProgressBarListener.bar(n, total), m.group(1));
    }
    // final line: wall time from onEpochStart, mean rates over it, warm-up included
    double wall = (tEnd - t0) / 1e9;
    long allExamples = 124 * 64 + 32;
    assertEquals(f("Epoch 1/3 [====================] 125/125  %.1f s  %.1f it/s  %.0f img/s  loss 0.2312", wall,
        total / wall, allExamples / wall), lines[3]);
    assertEquals(allExamples / wall, bar.lastEpochImagesPerSecond(), 1e-9);
    assertEquals(wall, bar.lastEpochSeconds(), 1e-12);
  }

  /** 10 ms per iteration after the first: redraws at iterations 1, 11, 21, ... 121 (100 ms apart) and 125. */
  @Test
  void terminalRedrawsInPlaceAtMostTenTimesASecond() {
    Script clock = new Script();
    Sink sink = new Sink();
    ProgressBarListener bar = new ProgressBarListener(0, sink.out, () -> clock.now, true);
    clock.now = 0;
    bar.onEpochStart(null, 4, 125, 10);
    for (int n = 1; n <= 125; n++) {
      clock.now = 300_000_000L + (n - 1) * 10_000_000L;
      bar.iterationDone(null, n, 4, n <= 100 ? 1.0 : 2.0, 10);
    }
    clock.now += 10_000_000L;
    bar.onEpochEnd(null, 4);

    String text = sink.text();
    assertTrue(text.startsWith("\r") && text.endsWith("\n"), text);
    assertEquals(1, text.chars().filter(ch -> ch == '\n').count(), "one line in the end");
    String[] frames = text.substring(1, text.length() - 1).split("\r");
    List<Integer> drawn = new ArrayList<>();
    Pattern p = Pattern.compile("Epoch 5 \\[.{20}\\] (\\d+)/125 .*");
    for (int i = 0; i < frames.length - 1; i++) {
      Matcher m = p.matcher(frames[i]);
      assertTrue(m.matches(), frames[i]);
      drawn.add(Integer.parseInt(m.group(1)));
    }
    List<Integer> expected = new ArrayList<>();
    for (int n = 1; n <= 121; n += 10) {
      expected.add(n);
    }
    expected.add(125);
    assertEquals(expected, drawn);
    // first frame: the rate of the first iteration alone; 11th: 100 it/s after it
    assertEquals("Epoch 5 [                    ] 1/125  3.3 it/s  33 img/s  ETA 0:37  loss 1.0000", frames[0]);
    assertEquals("Epoch 5 [>                   ] 11/125  100.0 it/s  1000 img/s  ETA 0:01  loss 1.0000", frames[1]);
    // final frame, padded over the longer line before it; loss = mean of 100 ones and 25 twos
    String last = frames[frames.length - 1];
    double wall = (300_000_000L + 125 * 10_000_000L) / 1e9;
    String want = f("Epoch 5 [====================] 125/125  %.1f s  %.1f it/s  %.0f img/s  loss %.4f", wall,
        125 / wall, 1250 / wall, (100 + 50) / 125.0);
    assertEquals(want, last.stripTrailing());
    assertEquals(frames[frames.length - 2].length(), last.length(), "blanks the previous line's leftovers");
  }

  /** The iterator cannot tell its length: no bar, no ETA; non-terminal lines every 30 s of clock. */
  @Test
  void unknownTotalShowsCountsOnly() {
    Script clock = new Script();
    Sink sink = new Sink();
    ProgressBarListener bar = new ProgressBarListener(2, sink.out, () -> clock.now, false);
    double lossSum = 0;
    List<String> expected = new ArrayList<>();
    clock.now = 0;
    bar.onEpochStart(null, 1, -1, 32);
    for (int n = 1; n <= 100; n++) {
      clock.now = n * S; // one second each, the first one too
      double score = 1.0 / n;
      lossSum += score;
      bar.iterationDone(null, n, 1, score, 32);
      if (n % 30 == 0) {
        expected.add(f("Epoch 2/2 %d it  1.0 it/s  32 img/s  loss %.4f", n, lossSum / n));
      }
    }
    clock.now = 100 * S;
    bar.onEpochEnd(null, 1);
    expected.add(f("Epoch 2/2 100 it  100.0 s  1.0 it/s  32 img/s  loss %.4f", lossSum / 100));
    assertEquals(String.join("\n", expected) + "\n", sink.text());
    assertEquals(32.0, bar.lastEpochImagesPerSecond(), 1e-12);

    // on a terminal: the same counts, redrawn
    Sink tty = new Sink();
    ProgressBarListener t = new ProgressBarListener(0, tty.out, () -> clock.now, true);
    clock.now = 0;
    t.onEpochStart(null, 0, -1, 8);
    clock.now = S / 2;
    t.iterationDone(null, 0, 0, 0.5, 8);
    assertEquals("\rEpoch 1 1 it  2.0 it/s  16 img/s  loss 0.5000", tty.text());
  }

  @Test
  void epochsRestartAndOddCallOrdersAreTolerated() {
    Script clock = new Script();
    Sink sink = new Sink();
    ProgressBarListener bar = new ProgressBarListener(2, sink.out, () -> clock.now, false);
    bar.onEpochEnd(null, 0); // no epoch started: nothing to report
    assertEquals("", sink.text());
    // added mid-epoch: counts from its first call, total unknown
    clock.now = 10 * S;
    bar.iterationDone(null, 50, 0, 0.25, 4);
    clock.now = 12 * S;
    bar.onEpochEnd(null, 0);
    assertEquals("Epoch 1/2 1 it  2.0 s  0.5 it/s  2 img/s  loss 0.2500\n", sink.text());
    assertEquals(2.0, bar.lastEpochImagesPerSecond(), 1e-12);
    // the next epoch starts from zero
    clock.now = 20 * S;
    bar.onEpochStart(null, 1, 4, 4);
    for (int n = 1; n <= 4; n++) {
      clock.now = 20 * S + n * S;
      bar.iterationDone(null, 50 + n, 1, 1.0, 4);
    }
    bar.onEpochEnd(null, 1);
    String[] lines = sink.text().split("\n");
    assertEquals(5, lines.length, sink.text());
    assertTrue(lines[1].startsWith("Epoch 2/2 [====>               ] 1/4  1.0 it/s  4 img/s  ETA 0:03"), lines[1]);
    assertTrue(lines[4].startsWith("Epoch 2/2 [====================] 4/4  4.0 s"), lines[4]);
    assertEquals(4.0, bar.lastEpochImagesPerSecond(), 1e-12);
    assertThrows(IllegalArgumentException.class, () -> new ProgressBarListener(-1));
    assertThrows(NullPointerException.class, () -> new ProgressBarListener(1, null, System::nanoTime, false));
  }
}
