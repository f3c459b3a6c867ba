package org.deeplearning4j.util;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.deeplearning4j.nn.api.Model;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.ndrt.DType;
import org.ndrt.Tensor;

/**
 * Deeplearning4j's ModelSerializer over org.ndrt.nn's: the zip org.ndrt.nn.MultiLayerNetwork.save or
 * ComputationGraph.save writes (configuration, f32 parameters and updater state, training counters and
 * random streams, so training goes on bit for bit) plus {@value #DL4J_CONF}, the Deeplearning4j
 * configuration's JSON. Not Deeplearning4j's file format: zips written by Deeplearning4j are not read.
 * The updater state is always written; {@code loadUpdater false} starts it from zero.
 */
public final class ModelSerializer {
  /** The zip entry holding the Deeplearning4j configuration's toJson(). */
  public static final String DL4J_CONF = "dl4j-configuration.json";

  private ModelSerializer() {}

  /** org.ndrt.nn's save of the model to a file. */
  private interface NdrtSave {
    void save(File f) throws IOException;
  }

  public static void writeModel(Model model, File file, boolean saveUpdater) throws IOException {
    if (model instanceof MultiLayerNetwork) {
      MultiLayerNetwork net = (MultiLayerNetwork) model;
      write(file, net.ndrtNetwork()::save, net.getLayerWiseConfigurations().toJson());
    } else if (model instanceof ComputationGraph) {
      ComputationGraph g = (ComputationGraph) model;
      write(file, g.ndrtGraph()::save, g.getConfiguration().toJson());
    } else {
      throw new UnsupportedOperationException("ModelSerializer.writeModel: ndrt's Deeplearning4j drop-in saves "
          + "MultiLayerNetwork and ComputationGraph, got " + model.getClass().getName());
    }
  }

  /** org.ndrt.nn's zip with the Deeplearning4j configuration's JSON added. */
  private static void write(File file, NdrtSave save, String dl4jJson) throws IOException {
    File tmp = File.createTempFile("ndrt-dl4j", ".zip");
    try {
      save.save(tmp);
      try (ZipFile in = new ZipFile(tmp); ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(file.toPath()))) {
        for (ZipEntry e : java.util.Collections.list(in.entries())) {
          out.putNextEntry(new ZipEntry(e.getName()));
          try (InputStream s = in.getInputStream(e)) {
            s.transferTo(out);
          }
          out.closeEntry();
        }
        out.putNextEntry(new ZipEntry(DL4J_CONF));
        out.write(dl4jJson.getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    } finally {
      Files.deleteIfExists(tmp.toPath());
    }
  }

  public static void writeModel(Model model, String path, boolean saveUpdater) throws IOException {
    writeModel(model, new File(path), saveUpdater);
  }

  public static void writeModel(Model model, OutputStream stream, boolean saveUpdater) throws IOException {
    File tmp = File.createTempFile("ndrt-dl4j", ".zip");
    try {
      writeModel(model, tmp, saveUpdater);
      Files.copy(tmp.toPath(), stream);
    } finally {
      Files.deleteIfExists(tmp.toPath());
    }
  }

  /** The Deeplearning4j configuration's JSON in a zip the drop-in wrote. */
  private static String dl4jJson(File file) throws IOException {
    try (ZipFile z = new ZipFile(file)) {
      ZipEntry e = z.getEntry(DL4J_CONF);
      if (e == null) {
        throw new IOException(file + ": no " + DL4J_CONF + " (not written by ndrt's Deeplearning4j drop-in; "
            + "Deeplearning4j's own zips are not read)");
      }
      try (InputStream s = z.getInputStream(e)) {
        return new String(s.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
  }

  /** Without {@code loadUpdater} the updater state starts from zero. */
  private static void updater(Tensor state, boolean loadUpdater, java.util.function.Consumer<Tensor> set) {
    if (!loadUpdater) {
      try (Tensor z = Tensor.zeros(DType.F32, state.shape())) {
        set.accept(z);
      }
    }
  }

  public static MultiLayerNetwork restoreMultiLayerNetwork(File file) throws IOException {
    return restoreMultiLayerNetwork(file, true);
  }

  public static MultiLayerNetwork restoreMultiLayerNetwork(File file, boolean loadUpdater) throws IOException {
    String json = dl4jJson(file);
    org.ndrt.nn.MultiLayerNetwork n = org.ndrt.nn.MultiLayerNetwork.load(file);
    updater(n.updaterState(), loadUpdater, n::setUpdaterState);
    return new MultiLayerNetwork(MultiLayerConfiguration.fromJson(json), n);
  }

  public static MultiLayerNetwork restoreMultiLayerNetwork(String path) throws IOException {
    return restoreMultiLayerNetwork(new File(path), true);
  }

  public static MultiLayerNetwork restoreMultiLayerNetwork(String path, boolean loadUpdater) throws IOException {
    return restoreMultiLayerNetwork(new File(path), loadUpdater);
  }

  public static MultiLayerNetwork restoreMultiLayerNetwork(InputStream stream, boolean loadUpdater) throws IOException {
    return fromStream(stream, f -> restoreMultiLayerNetwork(f, loadUpdater));
  }

  public static MultiLayerNetwork restoreMultiLayerNetwork(InputStream stream) throws IOException {
    return restoreMultiLayerNetwork(stream, true);
  }

  public static ComputationGraph restoreComputationGraph(File file) throws IOException {
    return restoreComputationGraph(file, true);
  }

  public static ComputationGraph restoreComputationGraph(File file, boolean loadUpdater) throws IOException {
    String json = dl4jJson(file);
    org.ndrt.nn.ComputationGraph n = org.ndrt.nn.ComputationGraph.load(file);
    updater(n.updaterState(), loadUpdater, n::setUpdaterState);
    return new ComputationGraph(ComputationGraphConfiguration.fromJson(json), n);
  }

  public static ComputationGraph restoreComputationGraph(String path) throws IOException {
    return restoreComputationGraph(new File(path), true);
  }

  public static ComputationGraph restoreComputationGraph(String path, boolean loadUpdater) throws IOException {
    return restoreComputationGraph(new File(path), loadUpdater);
  }

  public static ComputationGraph restoreComputationGraph(InputStream stream, boolean loadUpdater) throws IOException {
    return fromStream(stream, f -> restoreComputationGraph(f, loadUpdater));
  }

  public static ComputationGraph restoreComputationGraph(InputStream stream) throws IOException {
    return restoreComputationGraph(stream, true);
  }

  private interface FileReader<T> {
    T read(File f) throws IOException;
  }

  /** What {@code read} makes of the stream's bytes (a model zip), through a temporary file. */
  private static <T> T fromStream(InputStream stream, FileReader<T> read) throws IOException {
    File tmp = File.createTempFile("ndrt-dl4j", ".zip");
    try {
      Files.copy(stream, tmp.toPath(), StandardCopyOption.REPLACE_EXISTING);
      return read.read(tmp);
    } finally {
      Files.deleteIfExists(tmp.toPath());
    }
  }
}
