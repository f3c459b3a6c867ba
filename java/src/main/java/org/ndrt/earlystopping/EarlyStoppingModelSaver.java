package org.ndrt.earlystopping;

import java.io.IOException;
import org.ndrt.nn.MultiLayerNetwork;

/**
 * Keeps copies of the network during early stopping: the best one so far and, when the configuration
 * asks for it ({@link EarlyStoppingConfiguration#isSaveLastModel()}), the latest one.
 */
public interface EarlyStoppingModelSaver {
  /**
   * Saves {@code net} as the best model, replacing the previous best. The saver copies it: training
   * goes on changing {@code net}.
   *
   * @param net the network
   * @param score its score
   * @throws IOException if a file saver cannot write
   */
  void saveBestModel(MultiLayerNetwork net, double score) throws IOException;

  /**
   * Saves {@code net} as the latest model, replacing the previous one.
   *
   * @param net the network
   * @param score its score, NaN when the epoch was not scored
   * @throws IOException if a file saver cannot write
   */
  void saveLatestModel(MultiLayerNetwork net, double score) throws IOException;

  /**
   * @return the best model saved, or null if none was; see the implementation for who closes it
   * @throws IOException if a file saver cannot read
   */
  MultiLayerNetwork getBestModel() throws IOException;

  /**
   * @return the latest model saved, or null if none was; see the implementation for who closes it
   * @throws IOException if a file saver cannot read
   */
  MultiLayerNetwork getLatestModel() throws IOException;
}
