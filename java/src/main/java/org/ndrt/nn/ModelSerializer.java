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
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.MultiLayerConfiguration;

/**
 * The saved-model zip: configuration.json (the configuration's JSON), params.bin and updater.bin
 * (magic "NDRTF32\0", an int64 count, then the f32 values, all little-endian), state.json (epoch,
 * iteration, updater step, loss scale).
 */
final class ModelSerializer {
  private static final byte[] MAGIC = "NDRTF32\0".getBytes(StandardCharsets.US_ASCII);

  private ModelSerializer() {}

  static final class Saved {
    MultiLayerConfiguration conf;
    float[] params;
    float[] updater;
    long[] counters = new long[3];
    double lossScale = 1;
  }

  static void write(File file, MultiLayerConfiguration conf, float[] params, float[] updater, long[] counters,
      double lossScale) throws IOException {
    Map<String, Object> st = new LinkedHashMap<>();
    st.put("epoch", counters[0]);
    st.put("iteration", counters[1]);
    st.put("updaterStep", counters[2]);
    st.put("lossScale", lossScale);
    File tmp = new File(file.getPath() + ".tmp");
    try (ZipOutputStream z = new ZipOutputStream(new BufferedOutputStream(new FileOutputStream(tmp)))) {
      entry(z, "configuration.json", conf.toJson().getBytes(StandardCharsets.UTF_8));
      entry(z, "params.bin", floats(params));
      entry(z, "updater.bin", floats(updater));
      entry(z, "state.json", Json.write(st).getBytes(StandardCharsets.UTF_8));
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
    for (String need : List.of("configuration.json", "params.bin", "updater.bin", "state.json")) {
      if (!entries.containsKey(need)) {
        throw new IOException(file + ": not a saved ndrt model (no " + need + ")");
      }
    }
    Saved s = new Saved();
    try {
      s.conf = MultiLayerConfiguration.fromJson(new String(entries.get("configuration.json"), StandardCharsets.UTF_8));
      Map<String, Object> st = Json.obj(Json.parse(new String(entries.get("state.json"), StandardCharsets.UTF_8)), "state");
      s.counters[0] = Json.integer(st, "epoch");
      s.counters[1] = Json.integer(st, "iteration");
      s.counters[2] = Json.integer(st, "updaterStep");
      s.lossScale = Json.num(st, "lossScale", 1);
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
    s.params = floats(file, "params.bin", entries.get("params.bin"));
    s.updater = floats(file, "updater.bin", entries.get("updater.bin"));
    return s;
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
