package org.ndrt.nn;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.ComputationGraphConfiguration;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NetworkConfiguration;

/**
 * The saved-model zip: configuration.json (the configuration's JSON), params.bin and updater.bin
 * (magic "NDRTF32\0", an int64 count, then the f32 values, all little-endian), state.json (the
 * training state outside the parameters: epoch, iteration, updater step, loss scale, mixed
 * precision's clean-step and skipped-step counts, each layer's random stream offset, and which of
 * the layers' random streams the network draws from, "randomStream" (see RandomStreams).
 *
 * <p>Further entries may follow (a distributed checkpoint's checkpoint.json, see TrainerSupport):
 * load ignores them. The zip is written to a temporary file, synced, and renamed over the target.
 *
 * <p>Zips written before the last four keys existed still load: a missing "cleanSteps" or
 * "skippedSteps" reads as 0, a missing "randomStream" as 0 (the only stream there was), and without
 * "randomOffsets" every layer's random stream starts again at offset 0 (the old behaviour: dropout
 * after loading then repeats the masks of the first iterations instead of going on where the saved
 * network was).
 */
final class ModelSerializer {
  private static final byte[] MAGIC = "NDRTF32\0".getBytes(StandardCharsets.US_ASCII);
  private static final List<String> REQUIRED = List.of("configuration.json", "params.bin", "updater.bin", "state.json");

  private ModelSerializer() {}

  /** What a zip holds. */
  static final class Saved {
    NetworkConfiguration conf;
    float[] params;
    float[] updater;
    long epoch;
    long iteration;
    long updaterStep;
    double lossScale = 1;
    long cleanSteps;
    long skippedSteps;
    long[] randomOffsets; // per layer; null: not in the zip (written before they were saved)
    int randomStream; // the same for every layer; 0 when not in the zip
    /** Further entries (name -> bytes): written after the four above; on reading, every other entry. */
    Map<String, byte[]> extra = new LinkedHashMap<>();
  }

  /** Saves an initialised network (Model.save). */
  static void save(Model net, File file) throws IOException {
    Saved s = net.trainingState();
    s.conf = net.configuration();
    s.params = net.params().toFloatArray();
    s.updater = net.updaterState().toFloatArray();
    write(file, s);
  }

  /** A new network from a saved one, of the kind the zip holds; closed again if the zip does not fit. */
  static Model loadAny(File file) throws IOException {
    Saved s = read(file);
    Model net = s.conf instanceof ComputationGraphConfiguration ? new ComputationGraph((ComputationGraphConfiguration) s.conf)
        : new MultiLayerNetwork((MultiLayerConfiguration) s.conf);
    try {
      net.init(false);
      fill(file, s, net.params(), net.updaterState());
      try {
        net.restore(s);
      } catch (IllegalArgumentException e) {  // an offset for a layer that draws no random numbers
        throw new IOException(file + ": " + e.getMessage(), e);
      }
      return net;
    } catch (IOException | RuntimeException e) {
      net.close();
      throw e;
    }
  }

  /** {@link #loadAny} when the zip holds a {@code kind}; IOException naming what it holds otherwise. */
  static <T extends Model> T load(File file, Class<T> kind) throws IOException {
    Model m = loadAny(file);
    if (!kind.isInstance(m)) {
      m.close();
      throw new IOException(file + ": holds a " + m.getClass().getSimpleName() + ", not a " + kind.getSimpleName()
          + " (load it with " + m.getClass().getSimpleName() + ".load or Model.load)");
    }
    return kind.cast(m);
  }

  /** The saved parameters and updater state into a new network's vectors (IOException when they do not fit). */
  private static void fill(File file, Saved s, Tensor p, Tensor u) throws IOException {
    if (s.params.length != p.numel() || s.updater.length != u.numel()) {
      throw new IOException(file + ": " + s.params.length + " parameters and " + s.updater.length
          + " updater values do not fit the configuration (" + p.numel() + ", " + u.numel() + ")");
    }
    p.copyFrom(s.params);
    u.copyFrom(s.updater);
  }

  static void write(File file, Saved s) throws IOException {
    Map<String, Object> st = new LinkedHashMap<>();
    st.put("epoch", s.epoch);
    st.put("iteration", s.iteration);
    st.put("updaterStep", s.updaterStep);
    st.put("lossScale", s.lossScale);
    st.put("cleanSteps", s.cleanSteps);
    st.put("skippedSteps", s.skippedSteps);
    st.put("randomOffsets", s.randomOffsets);
    st.put("randomStream", s.randomStream);
    File tmp = new File(file.getPath() + ".tmp");
    FileOutputStream fos = new FileOutputStream(tmp);
    try (ZipOutputStream z = new ZipOutputStream(new BufferedOutputStream(fos))) {
      entry(z, "configuration.json", s.conf.toJson().getBytes(StandardCharsets.UTF_8));
      entry(z, "params.bin", floats(s.params));
      entry(z, "updater.bin", floats(s.updater));
      entry(z, "state.json", Json.write(st).getBytes(StandardCharsets.UTF_8));
      for (Map.Entry<String, byte[]> e : s.extra.entrySet()) {
        if (REQUIRED.contains(e.getKey())) {
          throw new IllegalArgumentException("ModelSerializer: extra entry " + e.getKey() + " clashes with a model entry");
        }
        entry(z, e.getKey(), e.getValue());
      }
      z.finish();
      z.flush();
      fos.getFD().sync();  // on disk before the rename makes it the file
    }
    if (!tmp.renameTo(file)) {  // the old file stays whole until the new one is complete
      java.nio.file.Files.move(tmp.toPath(), file.toPath(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void entry(ZipOutputStream z, String name, byte[] data) throws IOException {
    z.putNextEntry(new ZipEntry(name));
    z.write(data);
    z.closeEntry();
  }

  private static byte[] floats(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 8 + 4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).putLong(v.length);
    b.asFloatBuffer().put(v);
    return b.array();
  }

  static Saved read(File file) throws IOException {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    try (ZipInputStream z = new ZipInputStream(new BufferedInputStream(new FileInputStream(file)))) {
      for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
        entries.put(e.getName(), readAll(z));
      }
    } catch (java.util.zip.ZipException e) {
      throw new IOException(file + ": not a saved ndrt model (" + e.getMessage() + ")", e);
    }
    for (String need : REQUIRED) {
      if (!entries.containsKey(need)) {
        throw new IOException(file + ": not a saved ndrt model (no " + need + ")");
      }
    }
    Saved s = new Saved();
    try {
      s.conf = configuration(new String(entries.get("configuration.json"), StandardCharsets.UTF_8));
      Map<String, Object> st = Json.obj(Json.parse(new String(entries.get("state.json"), StandardCharsets.UTF_8)), "state");
      s.epoch = count(st, "epoch", -1);
      s.iteration = count(st, "iteration", -1);
      s.updaterStep = count(st, "updaterStep", -1);
      s.lossScale = Json.num(st, "lossScale", 1);
      s.cleanSteps = count(st, "cleanSteps", 0);
      s.skippedSteps = count(st, "skippedSteps", 0);
      s.randomOffsets = offsets(st, s.conf.layers().size());
      long stream = count(st, "randomStream", 0);
      if (stream > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("state.json: \"randomStream\" must be <= " + Integer.MAX_VALUE + ", got " + stream);
      }
      s.randomStream = (int) stream;
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
    s.params = floats(file, "params.bin", entries.get("params.bin"));
    s.updater = floats(file, "updater.bin", entries.get("updater.bin"));
    for (Map.Entry<String, byte[]> e : entries.entrySet()) {
      if (!REQUIRED.contains(e.getKey())) {
        s.extra.put(e.getKey(), e.getValue());
      }
    }
    return s;
  }

  /** A count in state.json: an integer {@code >= 0}; {@code dflt} when missing, required when {@code dflt < 0}. */
  /** A stack's or a graph's configuration, by its "format". */
  private static NetworkConfiguration configuration(String json) {
    Object format = Json.obj(Json.parse(json), "the configuration").get("format");
    return ComputationGraphConfiguration.FORMAT.equals(format) ? ComputationGraphConfiguration.fromJson(json)
        : MultiLayerConfiguration.fromJson(json);
  }

  private static long count(Map<String, Object> st, String key, long dflt) {
    long v = dflt < 0 ? Json.integer(st, key) : Json.integer(st, key, dflt);
    if (v < 0) {
      throw new IllegalArgumentException("state.json: \"" + key + "\" must be >= 0, got " + v);
    }
    return v;
  }

  /** "randomOffsets": one integer >= 0 per layer, or null when the zip predates them. */
  private static long[] offsets(Map<String, Object> st, int layers) {
    Object v = st.get("randomOffsets");
    if (v == null) {
      return null;
    }
    String what = "state.json: \"randomOffsets\" must be an array of " + layers + " integers >= 0 (one per layer)";
    if (!(v instanceof List) || ((List<?>) v).size() != layers) {
      throw new IllegalArgumentException(what + ", got " + v);
    }
    long[] out = new long[layers];
    for (int i = 0; i < layers; ++i) {
      Object x = ((List<?>) v).get(i);
      if (!(x instanceof Long) || (Long) x < 0) {  // the parser gives Long for integers written without a fraction
        throw new IllegalArgumentException(what + ", got " + v);
      }
      out[i] = (Long) x;
    }
    return out;
  }

  private static byte[] readInto(ByteBuffer b, byte[] into) {
    b.get(into);
    return into;
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  private static float[] floats(File file, String name, byte[] data) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    byte[] magic = new byte[MAGIC.length];
    if (data.length < MAGIC.length + 8 || !java.util.Arrays.equals(readInto(b, magic), MAGIC)) {
      throw new IOException(file + ": " + name + " is not an ndrt f32 array");
    }
    long n = b.getLong();
    if (n < 0 || n * 4 != data.length - MAGIC.length - 8) {
      throw new IOException(file + ": " + name + " says " + n + " values but holds " + (data.length - MAGIC.length - 8) + " bytes");
    }
    float[] v = new float[(int) n];
    b.asFloatBuffer().get(v);
    return v;
  }
}
