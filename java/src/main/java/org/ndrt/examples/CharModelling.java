package org.ndrt.examples;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.data.DataSetIterator;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.BackpropType;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.EmbeddingSequenceLayer;
import org.ndrt.nn.conf.layers.LSTM;
import org.ndrt.nn.conf.layers.RnnOutputLayer;
import org.ndrt.nn.updater.Adam;

/**
 * A character-level language model in the shape of Deeplearning4j's {@code LSTMCharModellingExample}:
 * two LSTM layers of 200 units (tanh) and a softmax RnnOutputLayer with MCXENT over the characters,
 * Adam 0.005, l2 0.0001, Xavier init, truncated BPTT in segments of 50 steps, minibatches of 32
 * sequences of 1,000 characters (one-hot input, next character as label), one epoch, 4 samples of
 * 300 characters every 10 minibatches drawn with {@code rnnTimeStep} after
 * {@code rnnClearPreviousState} (from a random character, or {@code --init TEXT}).
 *
 * <p>The text: the UTF-8 files named on the command line, else every text file of Debian's
 * {@code fortunes} package ({@code /usr/share/games/fortunes/*}, without the {@code .dat} indexes and
 * the {@code .u8} links), with the '%' lines between fortunes and the backspace overstriking of some
 * files removed. The characters kept are those of Deeplearning4j's minimal set (letters, digits,
 * space, newline, tab and {@code !&()?-'",.:;}) that occur in the text; others are dropped. 2% of
 * the text, in 32 pieces spread evenly over it, is held out: its loss per character is printed
 * before and after training.
 *
 * <pre>
 * java -cp ndrt.jar org.ndrt.examples.CharModelling [FILE...] [--lstm 200] [--layers 2]
 *      [--embedding D] [--batch 32] [--length 1000] [--tbptt 50] [--lr 0.005] [--l2 0.0001]
 *      [--epochs 1] [--max-iterations N] [--sample-every 10] [--samples 4] [--sample-length 300]
 *      [--init TEXT] [--seed 12345] [--threads T] [--save FILE] [--check]
 * </pre>
 *
 * <p>{@code --embedding D} puts an EmbeddingSequenceLayer (characters as indices, vectors of D)
 * before the LSTMs instead of the one-hot input. {@code --check} (the ctest) exits with status 1
 * unless the held-out loss per character after training is below 0.7 log(characters) (about 3.04
 * nats for the 77 characters of the fortunes: below the 3.2 that letter frequencies alone give)
 * and 0.5 below the first iteration's, and every sampled character is in the set. Exits with status 77
 * when no text is given and the fortunes package is not installed.
 */
public final class CharModelling {
  private CharModelling() {}

  /** Deeplearning4j's CharacterIterator.getMinimalCharacterSet(). */
  static final String MINIMAL_SET;

  static {
    StringBuilder sb = new StringBuilder();
    for (char c = 'a'; c <= 'z'; ++c) {
      sb.append(c);
    }
    for (char c = 'A'; c <= 'Z'; ++c) {
      sb.append(c);
    }
    for (char c = '0'; c <= '9'; ++c) {
      sb.append(c);
    }
    sb.append("!&()?-'\",.:; \n\t");
    MINIMAL_SET = sb.toString();
  }

  /** Where Debian's fortunes package puts its text ({@code -Dndrt.fortunes.dir} elsewhere). */
  static final Path FORTUNES = Path.of(System.getProperty("ndrt.fortunes.dir", "/usr/share/games/fortunes"));

  /** The held-out text's pieces (one window each). */
  static final int HELD_OUT_CHUNKS = 32;

  /** The network: [embedding,] LSTM x layers, softmax over the characters, truncated BPTT. */
  public static MultiLayerConfiguration network(int chars, int lstm, int layers, int embedding, int tbptt, double lr,
      double l2, long seed) {
    NeuralNetConfiguration.ListBuilder b = new NeuralNetConfiguration.Builder()
        .seed(seed)
        .l2(l2)
        .weightInit(WeightInit.XAVIER)
        .updater(new Adam(lr))
        .list();
    if (embedding > 0) {
      b.layer(new EmbeddingSequenceLayer.Builder().nIn(chars).nOut(embedding).build());
    }
    for (int i = 0; i < layers; ++i) {
      b.layer(new LSTM.Builder().nOut(lstm).activation(Activation.TANH).build());
    }
    return b.layer(new RnnOutputLayer.Builder(LossFunction.MCXENT).activation(Activation.SOFTMAX).nOut(chars).build())
        .setInputType(InputType.recurrent(embedding > 0 ? 1 : chars))
        .backpropType(BackpropType.TruncatedBPTT).tBPTTForwardLength(tbptt).tBPTTBackwardLength(tbptt)
        .build();
  }

  public static void main(String[] args) throws Exception {
    int lstm = 200;
    int layers = 2;
    int embedding = 0;
    int batch = 32;
    int length = 1000;
    int tbptt = 50;
    double lr = 0.005;
    double l2 = 0.0001;
    int epochs = 1;
    long maxIterations = Long.MAX_VALUE;
    int sampleEvery = 10;
    int samples = 4;
    int sampleLength = 300;
    String init = null;
    long seed = 12345;
    int threads = 0;
    File save = null;
    boolean check = false;
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < args.length; ++i) {
      String a = args[i];
      if (a.equals("--help")) {
        usage(null);
      }
      if (a.equals("--check")) {
        check = true;
        continue;
      }
      if (!a.startsWith("--")) {
        files.add(Path.of(a));
        continue;
      }
      if (i + 1 >= args.length) {
        usage("missing value after " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--lstm": lstm = positive(a, v); break;
        case "--layers": layers = positive(a, v); break;
        case "--embedding": embedding = Integer.parseInt(v); break;
        case "--batch": batch = positive(a, v); break;
        case "--length": length = positive(a, v); break;
        case "--tbptt": tbptt = positive(a, v); break;
        case "--lr": lr = Double.parseDouble(v); break;
        case "--l2": l2 = Double.parseDouble(v); break;
        case "--epochs": epochs = positive(a, v); break;
        case "--max-iterations": maxIterations = Long.parseLong(v); break;
        case "--sample-every": sampleEvery = positive(a, v); break;
        case "--samples": samples = Integer.parseInt(v); break;
        case "--sample-length": sampleLength = Integer.parseInt(v); break;
        case "--init": init = v; break;
        case "--seed": seed = Long.parseLong(v); break;
        case "--threads": threads = Integer.parseInt(v); break;
        case "--save": save = new File(v); break;
        default: usage("unknown option " + a);
      }
    }
    if (threads > 0) {
      Ndrt.setConfig("cpu.threads", Integer.toString(threads));
    }
    String source;
    if (files.isEmpty()) {
      files = fortuneFiles();
      if (files.isEmpty()) {
        System.err.println("CharModelling: no text: " + FORTUNES + " has no fortune files (Debian: apt-get install fortunes),"
            + " and no file was named on the command line");
        System.exit(77);
        return;
      }
      source = files.size() + " files of " + FORTUNES;
    } else {
      source = files.stream().map(Path::toString).collect(Collectors.joining(", "));
    }
    StringBuilder raw = new StringBuilder();
    for (Path f : files) {
      raw.append(clean(new String(Files.readAllBytes(f), StandardCharsets.UTF_8)));
    }
    Text text = new Text(raw);
    if (init != null) {
      for (char c : init.toCharArray()) {
        if (text.chars.indexOf(c) < 0) {
          usage("--init: character '" + c + "' is not in the character set");
        }
      }
    }
    // Held out: 2% of the text in HELD_OUT_CHUNKS pieces spread evenly over it (the files differ in
    // style), each long enough for one window; the rest, joined, is the training text.
    int chunk = Math.max(Math.min(length, 1000) + 1, text.text.length / 50 / HELD_OUT_CHUNKS);
    int window = chunk - 1;
    if (text.text.length < HELD_OUT_CHUNKS * chunk + 2 * (length + 1)) {
      System.err.println("CharModelling: the text has " + text.text.length + " characters; it needs at least "
          + (HELD_OUT_CHUNKS * chunk + 2 * (length + 1)) + " for --length " + length);
      System.exit(2);
    }
    char[] trainText = new char[text.text.length - HELD_OUT_CHUNKS * chunk];
    char[] testText = new char[HELD_OUT_CHUNKS * chunk];
    int[] testStarts = new int[HELD_OUT_CHUNKS];
    for (int i = 0, from = 0, to = 0; i < HELD_OUT_CHUNKS; ++i) {
      int end = (int) ((long) text.text.length * (i + 1) / HELD_OUT_CHUNKS);  // this part: [from, end)
      int keep = end - from - chunk;
      System.arraycopy(text.text, from, trainText, to, keep);
      to += keep;
      System.arraycopy(text.text, from + keep, testText, i * chunk, chunk);
      testStarts[i] = i * chunk;
      from = end;
    }
    int v = text.chars.length();
    System.out.printf(Locale.ROOT, "ndrt %s | cpu threads %s%n", Ndrt.version(), Ndrt.config("cpu.threads"));
    System.out.printf(Locale.ROOT, "text: %s: %,d characters kept (%,d dropped), %d distinct: %s%n", source,
        text.text.length, text.dropped, v, printable(text.chars));
    System.out.printf(Locale.ROOT, "train %,d characters, held out %,d (%d pieces spread over the text)%n", trainText.length,
        testText.length, HELD_OUT_CHUNKS);
    Random rng = new Random(seed);
    long wall = System.nanoTime();
    try (CharacterIterator train = new CharacterIterator(trainText, text, batch, length, embedding > 0, seed);
         DataSet test = CharacterIterator.windows(testText, text, testStarts, Math.min(window, 1000), embedding > 0);
         MultiLayerNetwork net = new MultiLayerNetwork(network(v, lstm, layers, embedding, tbptt, lr, l2, seed))) {
      net.init();
      long testSteps = test.features().shape()[2];
      System.out.printf(Locale.ROOT, "network: %sLSTM %d (tanh) x %d -> RnnOutputLayer softmax %d, MCXENT; %,d parameters;"
          + " Adam %s, l2 %s; truncated BPTT %d; minibatches of %d x %d characters, %d per epoch%n",
          embedding > 0 ? "EmbeddingSequenceLayer " + v + " -> " + embedding + " -> " : "one-hot " + v + " -> ", lstm,
          layers, v, net.numParams(), lr, l2, tbptt, batch, length, (train.numExamples() + batch - 1) / batch);
      double uniform = Math.log(v);
      double before = net.score(test) / testSteps;
      System.out.printf(Locale.ROOT, "held-out loss per character before training: %.4f (uniform over %d characters: %.4f)%n",
          before, v, uniform);
      double first = Double.NaN;
      double lastLoss = Double.NaN;
      long iteration = 0;
      boolean sampledOk = true;
      double seconds = 0;
      outer:
      for (int e = 0; e < epochs; ++e) {
        train.reset();
        while (train.hasNext()) {
          if (iteration >= maxIterations) {
            break outer;
          }
          long t0 = System.nanoTime();
          try (DataSet ds = train.next()) {
            net.fit(ds);
            double dt = (System.nanoTime() - t0) / 1e9;
            seconds += dt;
            ++iteration;
            lastLoss = net.score() / ds.features().shape()[2];
            if (iteration == 1) {
              first = lastLoss;
            }
            System.out.printf(Locale.ROOT, "epoch %d, iteration %d: loss per character %.4f (%.1f s, %,.0f characters/s)%n",
                e + 1, iteration, lastLoss, dt, ds.numExamples() * ds.features().shape()[2] / dt);
          }
          if (iteration % sampleEvery == 0 && samples > 0) {
            sampledOk &= sample(net, text, init, samples, sampleLength, rng, embedding > 0, iteration);
          }
        }
      }
      if (samples > 0 && iteration % sampleEvery != 0) {
        sampledOk &= sample(net, text, init, samples, sampleLength, rng, embedding > 0, iteration);
      }
      double after = net.score(test) / testSteps;
      System.out.printf(Locale.ROOT, "%d iterations in %.1f s of training (%.2f s per iteration); %.1f s in all%n", iteration,
          seconds, iteration == 0 ? 0 : seconds / iteration, (System.nanoTime() - wall) / 1e9);
      System.out.printf(Locale.ROOT, "held-out loss per character: %.4f before, %.4f after training (first iteration %.4f, last"
          + " %.4f; uniform %.4f)%n", before, after, first, lastLoss, uniform);
      if (save != null) {
        net.save(save);
        System.out.println("saved to " + save);
      }
      if (check) {
        boolean ok = after < 0.7 * uniform && after < first - 0.5 && sampledOk;
        System.out.printf(Locale.ROOT, "check: held-out %.4f < 0.7 log(%d) = %.4f: %s; < first iteration %.4f - 0.5: %s;"
            + " samples within the character set: %s%n", after, v, 0.7 * uniform, after < 0.7 * uniform, first,
            after < first - 0.5, sampledOk);
        if (!ok) {
          System.out.println("check FAILED");
          System.exit(1);
        }
        System.out.println("check passed");
      }
    }
  }

  /**
   * Deeplearning4j's sampleCharactersFromNetwork: from an initialisation (a random character when
   * none is given), rnnTimeStep over it, then one character at a time drawn from the softmax output
   * and fed back. Prints the samples; returns whether every character drawn is in the set.
   */
  static boolean sample(MultiLayerNetwork net, Text text, String init, int n, int length, Random rng, boolean indices,
      long iteration) {
    String start = init != null ? init : String.valueOf(text.chars.charAt(rng.nextInt(text.chars.length())));
    int v = text.chars.length();
    StringBuilder[] sb = new StringBuilder[n];
    float[] x = new float[indices ? n * start.length() : n * v * start.length()];
    for (int i = 0; i < n; ++i) {
      sb[i] = new StringBuilder(start);
      for (int s = 0; s < start.length(); ++s) {
        int k = text.chars.indexOf(start.charAt(s));
        if (indices) {
          x[i * start.length() + s] = k;
        } else {
          x[(i * v + k) * start.length() + s] = 1;
        }
      }
    }
    boolean ok = true;
    net.rnnClearPreviousState();
    float[] probs;
    try (Tensor in = indices ? Tensor.from(x, n, 1, start.length()) : Tensor.from(x, n, v, start.length());
         Tensor out = net.rnnTimeStep(in);
         Tensor last = out.slice(2, start.length() - 1, start.length())) {
      probs = last.toFloatArray();  // [n, v, 1]
    }
    for (int s = 0; s < length; ++s) {
      float[] next = new float[indices ? n : n * v];
      for (int i = 0; i < n; ++i) {
        int k = draw(probs, i * v, v, rng);
        if (k < 0 || k >= v) {
          ok = false;
          k = 0;
        }
        char c = text.chars.charAt(k);
        ok &= MINIMAL_SET.indexOf(c) >= 0;
        sb[i].append(c);
        next[indices ? i : i * v + k] = indices ? k : 1;
      }
      try (Tensor in = indices ? Tensor.from(next, n, 1) : Tensor.from(next, n, v); Tensor out = net.rnnTimeStep(in)) {
        probs = out.toFloatArray();  // [n, v]
      }
    }
    net.rnnClearPreviousState();
    System.out.printf(Locale.ROOT, "---- %d samples of %d characters after iteration %d, from \"%s\" ----%n", n, length,
        iteration, start.replace("\n", "\\n"));
    for (int i = 0; i < n; ++i) {
      System.out.println(sb[i]);
      System.out.println("----");
    }
    return ok;
  }

  /** Index drawn from the distribution p[off, off + v) (Deeplearning4j's sampleFromDistribution). */
  static int draw(float[] p, int off, int v, Random rng) {
    double d = rng.nextDouble();
    double sum = 0;
    for (int k = 0; k < v; ++k) {
      sum += p[off + k];
      if (d <= sum) {
        return k;
      }
    }
    return v - 1;  // rounding: the sum fell short of d
  }

  /** The fortunes package's text files (not the .dat indexes or the .u8 links), by name. */
  static List<Path> fortuneFiles() throws IOException {
    if (!Files.isDirectory(FORTUNES)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(FORTUNES)) {
      return s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .filter(p -> !p.getFileName().toString().endsWith(".dat") && !p.getFileName().toString().endsWith(".u8"))
          .sorted().collect(Collectors.toList());
    }
  }

  /** Without the '%' lines (the fortune separators) and the backspace overstriking ("_\bx" and "x\bx" are x). */
  static String clean(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (String line : s.split("\n", -1)) {
      if (line.equals("%")) {
        continue;
      }
      for (int i = 0; i < line.length(); ++i) {
        char c = line.charAt(i);
        if (c == '\b') {
          if (out.length() > 0 && out.charAt(out.length() - 1) != '\n') {
            out.setLength(out.length() - 1);
          }
        } else if (c != '\r') {
          out.append(c);
        }
      }
      out.append('\n');
    }
    if (!s.endsWith("\n") && out.length() > 0) {
      out.setLength(out.length() - 1);
    }
    return out.toString();
  }

  /** The text reduced to the characters of the minimal set it uses, and that set (sorted). */
  static final class Text {
    final char[] text;
    final String chars;
    final long dropped;
    private final int[] index = new int[65536];

    Text(CharSequence raw) {
      StringBuilder kept = new StringBuilder(raw.length());
      TreeSet<Character> used = new TreeSet<>();
      for (int i = 0; i < raw.length(); ++i) {
        char c = raw.charAt(i);
        if (MINIMAL_SET.indexOf(c) >= 0) {
          kept.append(c);
          used.add(c);
        }
      }
      this.text = kept.toString().toCharArray();
      this.dropped = raw.length() - kept.length();
      StringBuilder cs = new StringBuilder();
      for (char c : used) {
        cs.append(c);
      }
      this.chars = cs.toString();
      Arrays.fill(index, -1);
      for (int i = 0; i < chars.length(); ++i) {
        index[chars.charAt(i)] = i;
      }
    }

    int indexOf(char c) {
      return index[c];
    }
  }

  static String printable(String chars) {
    return "\"" + chars.replace("\n", "\\n").replace("\t", "\\t") + "\"";
  }

  /**
   * Deeplearning4j's CharacterIterator: each epoch the text cut into windows of length + 1
   * characters at offsets 0, length, 2 length, ... in a new random order (Random(seed + epoch)),
   * minibatches of {@code batch} windows (the last may be smaller); features one-hot [N, chars, length]
   * (or indices [N, 1, length]), labels the next characters one-hot [N, chars, length].
   */
  static final class CharacterIterator implements DataSetIterator {
    private final char[] text;
    private final Text set;
    private final int batch;
    private final int length;
    private final boolean indices;
    private final long seed;
    private int epoch;
    private int[] offsets = new int[0];
    private int pos;

    CharacterIterator(char[] text, Text set, int batch, int length, boolean indices, long seed) {
      this.text = text;
      this.set = set;
      this.batch = batch;
      this.length = length;
      this.indices = indices;
      this.seed = seed;
      reset();
      epoch = 0;
    }

    @Override
    public boolean hasNext() {
      return pos < offsets.length;
    }

    @Override
    public DataSet next() {
      int n = Math.min(batch, offsets.length - pos);
      int[] starts = Arrays.copyOfRange(offsets, pos, pos + n);
      pos += n;
      return windows(text, set, starts, length, indices);
    }

    static DataSet windows(char[] text, Text set, int[] starts, int length, boolean indices) {
      int n = starts.length;
      int v = set.chars.length();
      float[] x = new float[indices ? n * length : n * v * length];
      float[] y = new float[n * v * length];
      for (int b = 0; b < n; ++b) {
        for (int s = 0; s < length; ++s) {
          int in = set.indexOf(text[starts[b] + s]);
          int next = set.indexOf(text[starts[b] + s + 1]);
          if (indices) {
            x[b * length + s] = in;
          } else {
            x[(b * v + in) * length + s] = 1;
          }
          y[(b * v + next) * length + s] = 1;
        }
      }
      return new DataSet(indices ? Tensor.from(x, n, 1, length) : Tensor.from(x, n, v, length), Tensor.from(y, n, v, length));
    }

    @Override
    public void reset() {
      int count = (text.length - 1) / length;
      offsets = new int[count];
      for (int i = 0; i < count; ++i) {
        offsets[i] = i * length;
      }
      Random r = new Random(seed + epoch++);
      for (int i = count - 1; i > 0; --i) {
        int j = r.nextInt(i + 1);
        int t = offsets[i];
        offsets[i] = offsets[j];
        offsets[j] = t;
      }
      pos = 0;
    }

    @Override
    public int batchSize() {
      return batch;
    }

    @Override
    public long numExamples() {
      return offsets.length;
    }

    @Override
    public int totalOutcomes() {
      return set.chars.length();
    }
  }

  private static int positive(String option, String value) {
    int v = Integer.parseInt(value);
    if (v <= 0) {
      usage(option + " must be positive, got " + value);
    }
    return v;
  }

  private static void usage(String error) {
    if (error != null) {
      System.err.println("CharModelling: " + error);
    }
    System.err.println("usage: CharModelling [FILE...] [--lstm 200] [--layers 2] [--embedding D] [--batch 32] [--length 1000]"
        + " [--tbptt 50] [--lr 0.005] [--l2 0.0001] [--epochs 1] [--max-iterations N] [--sample-every 10] [--samples 4]"
        + " [--sample-length 300] [--init TEXT] [--seed 12345] [--threads T] [--save FILE] [--check]");
    System.exit(error == null ? 0 : 2);
  }
}
