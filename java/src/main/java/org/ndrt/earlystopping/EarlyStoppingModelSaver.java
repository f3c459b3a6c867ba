package org.ndrt.earlystopping;

import java.io.IOException;
import org.ndrt.nn.Model;

/**
 * Keeps copies of the network during early stopping: the best one so far and, when the configuration
 * asks for it ({@link EarlyStoppingConfiguration#isSaveLastModel()}), the latest one.
 *
 * <p>Any {@link Model}: a MultiLayerNetwork or a ComputationGraph; a saver gives back the kind it was
 * given. The interface is not generic: the getters are generic methods returning the type the caller
 * asks for ({@code MultiLayerNetwork best = saver.getBestModel()}); that cast is unchecked, so asking
 * for another kind than was saved throws ClassCastException at the caller's assignment. An
 * implementation may declare a plain return type instead (javac then warns of the unchecked
 * conversion).
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
  void saveBestModel(Model net, double score) throws IOException;

  /**
   * Saves {@code net} as the latest model, replacing the previous one.
   *
   * @param net the network
   * @param score its score, NaN when the epoch was not scored
   * @throws IOException if a file saver cannot write
   */
  void saveLatestModel(Model net, double score) throws IOException;

  /**
   * @param <T> the model's type (MultiLayerNetwork, ComputationGraph or Model)
   * @return the best model saved, or null if none was; see the implementation for who closes it
   * @throws IOException if a file saver cannot read
   */
  <T extends Model> T getBestModel() throws IOException;

  /**
   * @param <T> the model's type (MultiLayerNetwork, ComputationGraph or Model)
   * @return the latest model saved, or null if none was; see the implementation for who closes it
   * @throws IOException if a file saver cannot read
   */
  <T extends Model> T getLatestModel() throws IOException;
}
