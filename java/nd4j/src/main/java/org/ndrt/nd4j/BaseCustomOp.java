package org.ndrt.nd4j;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.CustomOp;

/** The drop-in's custom ops: fixed inputs and outputs, run as runtime ops by {@link #run()}. */
public abstract class BaseCustomOp implements CustomOp {
  protected final List<INDArray> inputs = new ArrayList<>();
  protected final List<INDArray> outputs = new ArrayList<>();

  protected BaseCustomOp(INDArray[] in, INDArray[] out) {
    inputs.addAll(Arrays.asList(in));
    outputs.addAll(Arrays.asList(out));
  }

  /** Runs the op; returns its outputs. */
  public abstract INDArray[] run();

  @Override
  public List<INDArray> inputArguments() {
    return new ArrayList<>(inputs);
  }

  @Override
  public List<INDArray> outputArguments() {
    return new ArrayList<>(outputs);
  }
}
