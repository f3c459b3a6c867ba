package org.deeplearning4j.earlystopping;

import java.io.IOException;
import java.io.Serializable;
import org.deeplearning4j.nn.api.Model;

/** Deeplearning4j's model saver for early stopping: keeps the best (and optionally latest) model. */
public interface EarlyStoppingModelSaver<T extends Model> extends Serializable {
  void saveBestModel(T net, double score) throws IOException;

  void saveLatestModel(T net, double score) throws IOException;

  T getBestModel() throws IOException;

  T getLatestModel() throws IOException;
}
