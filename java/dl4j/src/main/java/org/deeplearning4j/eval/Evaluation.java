package org.deeplearning4j.eval;

import java.util.List;
import java.util.Map;

/**
 * Deeplearning4j's older name of the classification evaluation (kept, deprecated, in 1.0.0-M2.1): the same
 * class as {@link org.nd4j.evaluation.classification.Evaluation}. Programs written against it get it from
 * the networks' and the Spark networks' {@code evaluate}.
 */
@Deprecated
public class Evaluation extends org.nd4j.evaluation.classification.Evaluation {
  private static final long serialVersionUID = 1L;

  public Evaluation() {
    super();
  }

  public Evaluation(int numClasses) {
    super(numClasses);
  }

  public Evaluation(List<String> labels) {
    super(labels);
  }

  public Evaluation(Map<Integer, String> labels) {
    super(labels);
  }
}
