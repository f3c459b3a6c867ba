package org.ndrt.nn;

import org.ndrt.Ndrt;
import org.ndrt.Tensor;
import org.ndrt.data.DataSet;
import org.ndrt.nn.conf.MultiLayerConfiguration;

/**
 * Trains a network a few steps with a system property set while it is built (a layer plan such as
 * org.ndrt.channelsLast or org.ndrt.fuseConvPool), for tests that compare a plan on against off.
 */
final class PropertyRuns {
  private PropertyRuns() {}

  /** Parameters after the steps, the output on the data, and the profiler's summary of the steps. */
  static final class Run {
    float[] params;
    float[] output;
    String ops;
  }

  static Run train(MultiLayerConfiguration conf, String property, String value, DataSet ds, int steps) {
    String old = System.getProperty(property);
    System.setProperty(property, value);
    Run r = new Run();
    try (MultiLayerNetwork n = new MultiLayerNetwork(conf)) {
      n.init();
      Ndrt.clearProfiler();
      Ndrt.setProfilerEnabled(true);
      try {
        for (int i = 0; i < steps; ++i) {
          n.fit(ds);
        }
      } finally {
        Ndrt.setProfilerEnabled(false);
      }
      r.ops = Ndrt.profilerSummary();
      r.params = n.params().toFloatArray();
      try (Tensor out = n.output(ds.getFeatures())) {
        r.output = out.toFloatArray();
      }
    } finally {
      if (old == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, old);
      }
    }
    return r;
  }
}
