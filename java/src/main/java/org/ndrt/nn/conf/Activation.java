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

  /**
   * The activation of a Deeplearning4j name, any case ("relu", "tanh", "softmax", "identity", ...;
   * "linear" is identity, "lrelu" leaky ReLU), for the deprecated {@code activation(String)} forms.
   *
   * @throws IllegalArgumentException for a name ndrt has no activation for (the message lists them)
   */
  public static Activation fromString(String name) {
    if (name == null) {
      throw new IllegalArgumentException("activation name must not be null");
    }
    String n = name.strip().toUpperCase(java.util.Locale.ROOT);
    switch (n) {
      case "LINEAR": return IDENTITY;
      case "LRELU": return LEAKYRELU;
      default:
        for (Activation a : values()) {
          if (a.name().equals(n)) {
            return a;
          }
        }
        throw new IllegalArgumentException("activation \"" + name + "\" is not in ndrt; it has "
            + java.util.Arrays.toString(values()).toLowerCase(java.util.Locale.ROOT));
    }
  }
}
