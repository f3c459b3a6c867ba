package org.ndrt.nn.conf;

/** Layer activations (Deeplearning4j's names). Each maps to one runtime op and its gradient op. */
public enum Activation {
  IDENTITY,
  RELU,
  LEAKYRELU,
  TANH,
  SIGMOID,
  SOFTMAX,
  ELU,
  GELU;

  /**
   * The {@code activation} code of the fused {@code linear} op, or -1 when the op does not fuse it
   * (then the dense layer runs the activation as its own op).
   */
  public int linearCode() {
    switch (this) {
      case IDENTITY: return 0;
      case RELU: return 1;
      case SIGMOID: return 2;
      case TANH: return 3;
      case LEAKYRELU: return 4;
      default: return -1;  // gelu's fused backward recomputes a GEMM; softmax and elu are not fused
    }
  }
}
