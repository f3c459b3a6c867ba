package org.deeplearning4j.earlystopping.saver;

import java.io.File;
import java.io.IOException;
import java.nio.charset.Charset;
import org.deeplearning4j.earlystopping.EarlyStoppingModelSaver;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;

/**
 * Deeplearning4j's LocalFileModelSaver: {@code bestModel.bin} and {@code latestModel.bin} in a
 * directory, written and read by the drop-in's ModelSerializer (so each file restores as a
 * Deeplearning4j-named network, configuration included). Each get restores a new network from the
 * file; the caller closes it.
 */
public class LocalFileModelSaver implements EarlyStoppingModelSaver<MultiLayerNetwork> {
  private static final String BEST_MODEL_BIN = "bestModel.bin";
  private static final String LATEST_MODEL_BIN = "latestModel.bin";
  private final String directory;

  public LocalFileModelSaver(String directory) {
    this(directory, Charset.defaultCharset());
  }

  public LocalFileModelSaver(File directory) {
    this(directory.getPath());
  }

  /** The charset is accepted for Deeplearning4j's signature; file names here are ASCII. */
  public LocalFileModelSaver(String directory, Charset encoding) {
    this.directory = directory;
    File dir = new File(directory);
    if (!dir.exists() && !dir.mkdirs()) {
      throw new IllegalStateException("LocalFileModelSaver: could not create the directory " + dir.getAbsolutePath());
    }
  }

  @Override
  public void saveBestModel(MultiLayerNetwork net, double score) throws IOException {
    ModelSerializer.writeModel(net, new File(directory, BEST_MODEL_BIN), true);
  }

  @Override
  public void saveLatestModel(MultiLayerNetwork net, double score) throws IOException {
    ModelSerializer.writeModel(net, new File(directory, LATEST_MODEL_BIN), true);
  }

  @Override
  public MultiLayerNetwork getBestModel() throws IOException {
    return ModelSerializer.restoreMultiLayerNetwork(new File(directory, BEST_MODEL_BIN));
  }

  @Override
  public MultiLayerNetwork getLatestModel() throws IOException {
    return ModelSerializer.restoreMultiLayerNetwork(new File(directory, LATEST_MODEL_BIN));
  }

  @Override
  public String toString() {
    return "LocalFileModelSaver(dir=" + directory + ")";
  }
}
