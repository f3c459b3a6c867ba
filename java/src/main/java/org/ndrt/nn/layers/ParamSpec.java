package org.ndrt.nn.layers;

/**
 * One parameter array of a layer: its shape, what it is (which decides L2, training and where it
 * sits in the flat vector) and how it starts.
 */
public final class ParamSpec {
  /** What a parameter is. */
  public enum Kind {
    /** Trained, with L2 / weight decay (weights). */
    WEIGHT,
    /** Trained, without L2 (biases, batch-norm gamma/beta). */
    BIAS,
    /** Not trained: updated by the layer itself (batch-norm running statistics). */
    STATE
  }

  public final String name;
  public final long[] shape;
  public final Kind kind;
  /** Fans for the weight initialisation (weights only). */
  public final double fanIn;
  public final double fanOut;
  /** The starting value of BIAS and STATE parameters. */
  public final double initValue;
  /** Kept in f32 even under mixed precision (batch-norm parameters, which compute in f32). */
  public final boolean f32Only;
  /**
   * BIAS parameters that start with a value per block (null: {@link #initValue} everywhere): the
   * elements split into blocks.length equal consecutive blocks, block k starting at blockInit[k]
   * (an LSTM's forget-gate bias).
   */
  public final double[] blockInit;

  private ParamSpec(String name, long[] shape, Kind kind, double fanIn, double fanOut, double initValue, boolean f32Only) {
    this(name, shape, kind, fanIn, fanOut, initValue, f32Only, null);
  }

  private ParamSpec(String name, long[] shape, Kind kind, double fanIn, double fanOut, double initValue, boolean f32Only,
      double[] blockInit) {
    this.name = name;
    this.shape = shape.clone();
    this.kind = kind;
    this.fanIn = fanIn;
    this.fanOut = fanOut;
    this.initValue = initValue;
    this.f32Only = f32Only;
    this.blockInit = blockInit == null ? null : blockInit.clone();
  }

  public static ParamSpec weight(String name, double fanIn, double fanOut, long... shape) {
    return new ParamSpec(name, shape, Kind.WEIGHT, fanIn, fanOut, 0, false);
  }

  public static ParamSpec bias(String name, double init, boolean f32Only, long... shape) {
    return new ParamSpec(name, shape, Kind.BIAS, 0, 0, init, f32Only);
  }

  /** A bias of {@code blocks.length} equal blocks, block k starting at blocks[k]. */
  public static ParamSpec biasBlocks(String name, double[] blocks, long... shape) {
    ParamSpec s = new ParamSpec(name, shape, Kind.BIAS, 0, 0, 0, false, blocks);
    if (blocks.length == 0 || s.numel() % blocks.length != 0) {
      throw new IllegalArgumentException("ParamSpec " + name + ": " + s.numel() + " elements do not split into "
          + blocks.length + " blocks");
    }
    return s;
  }

  /** The same parameter under another name (Bidirectional's "f" and "b" copies). */
  public ParamSpec withName(String newName) {
    return new ParamSpec(newName, shape, kind, fanIn, fanOut, initValue, f32Only, blockInit);
  }

  public static ParamSpec state(String name, double init, long... shape) {
    return new ParamSpec(name, shape, Kind.STATE, 0, 0, init, true);
  }

  public long numel() {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }
}
