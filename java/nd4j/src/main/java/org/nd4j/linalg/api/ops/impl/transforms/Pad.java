package org.nd4j.linalg.api.ops.impl.transforms;

/** ND4J's pad op; its modes are used by {@code Nd4j.pad}, which runs the runtime's pad op. */
public class Pad {
  /** How padded elements are filled. ndrt's pad runs CONSTANT and REFLECT; SYMMETRIC is refused. */
  public enum Mode {
    CONSTANT, REFLECT, SYMMETRIC
  }

  private Pad() {}
}
