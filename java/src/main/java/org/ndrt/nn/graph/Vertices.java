package org.ndrt.nn.graph;

import org.ndrt.DType;
import org.ndrt.nn.conf.graph.DuplicateToTimeSeriesVertex;
import org.ndrt.nn.conf.graph.ElementWiseVertex;
import org.ndrt.nn.conf.graph.GraphVertex;
import org.ndrt.nn.conf.graph.L2NormalizeVertex;
import org.ndrt.nn.conf.graph.LastTimeStepVertex;
import org.ndrt.nn.conf.graph.MergeVertex;
import org.ndrt.nn.conf.graph.PreprocessorVertex;
import org.ndrt.nn.conf.graph.ReshapeVertex;
import org.ndrt.nn.conf.graph.ScaleVertex;
import org.ndrt.nn.conf.graph.ShiftVertex;
import org.ndrt.nn.conf.graph.StackVertex;
import org.ndrt.nn.conf.graph.SubsetVertex;
import org.ndrt.nn.conf.graph.UnstackVertex;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.Layers;

/** Creates the compute side of each configured graph vertex. */
public final class Vertices {
  private Vertices() {}

  /**
   * The implementation of {@code v} whose output type is {@code out}: a {@link VertexImpl} for the
   * vertices with several inputs (merge, stack, element-wise, duplicate: it takes its reference as
   * a second input), a plain layer for the others (LastTimeStepVertex takes its lengths through
   * setSequenceLengths).
   */
  public static LayerImpl create(GraphVertex v, InputType out, DType dtype) {
    if (v instanceof MergeVertex) {
      return new ConcatImpl(false, dtype);
    } else if (v instanceof StackVertex) {
      return new ConcatImpl(true, dtype);
    } else if (v instanceof ElementWiseVertex) {
      return new ElementWiseImpl(((ElementWiseVertex) v).op(), dtype);
    } else if (v instanceof SubsetVertex) {
      return SliceImpl.subset(((SubsetVertex) v).from(), ((SubsetVertex) v).to(), dtype);
    } else if (v instanceof UnstackVertex) {
      return SliceImpl.unstack(((UnstackVertex) v).from(), ((UnstackVertex) v).stackSize(), dtype);
    } else if (v instanceof ScaleVertex) {
      return new AffineImpl(((ScaleVertex) v).scale(), 0, dtype);
    } else if (v instanceof ShiftVertex) {
      return new AffineImpl(1, ((ShiftVertex) v).shift(), dtype);
    } else if (v instanceof L2NormalizeVertex) {
      return new L2NormalizeImpl(((L2NormalizeVertex) v).eps(), dtype);
    } else if (v instanceof ReshapeVertex || v instanceof PreprocessorVertex) {
      return new ReshapeImpl(out.isConvolutional() ? new long[] {-1, out.channels, out.height, out.width}
          : out.isRecurrent() ? new long[] {-1, out.size, out.timeSeriesLength} : new long[] {-1, out.size}, dtype);
    } else if (v instanceof LastTimeStepVertex) {
      return Layers.lastTimeStep(Layers.identity(dtype), dtype);
    } else if (v instanceof DuplicateToTimeSeriesVertex) {
      return new DuplicateImpl(dtype);
    }
    throw new IllegalArgumentException("no implementation for graph vertex type " + v.getClass().getName());
  }

  /** A merge along the feature axis, for a layer given several inputs. */
  public static VertexImpl merge(DType dtype) {
    return new ConcatImpl(false, dtype);
  }
}
