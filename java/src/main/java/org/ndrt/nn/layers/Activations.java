package org.ndrt.nn.layers;

import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.Activation;

/** Activation functions and their gradients as runtime ops (given outputs, no allocation). */
final class Activations {
  private Activations() {}

  static final double LEAKY_ALPHA = 0.01;
  static final double ELU_ALPHA = 1.0;

  /** y = act(z); for IDENTITY returns z itself (no copy). */
  static Tensor forward(Activation a, Tensor z, Tensor y) {
    switch (a) {
      case IDENTITY: return z;
      case RELU: return Ops.relu(z, y);
      case LEAKYRELU: return Ops.leakyRelu(z, LEAKY_ALPHA, y);
      case TANH: return Ops.tanh(z, y);
      case SIGMOID: return Ops.sigmoid(z, y);
      case SOFTMAX: return Ops.softmax(z, -1, y);
      case ELU: return Ops.elu(z, ELU_ALPHA, y);
      case GELU: return Ops.gelu(z, false, y);
      default: throw new IllegalStateException("activation " + a);
    }
  }

  /** dz = dL/dz from dy = dL/dy, with z the pre-activation and y the output; IDENTITY returns dy. */
  static Tensor backward(Activation a, Tensor z, Tensor y, Tensor dy, Tensor dz) {
    switch (a) {
      case IDENTITY: return dy;
      case RELU: return Ops.reluBp(z, dy, dz);
      case LEAKYRELU: return Ops.leakyReluBp(z, dy, LEAKY_ALPHA, dz);
      case TANH: return Ops.tanhBp(y, dy, dz);
      case SIGMOID: return Ops.sigmoidBp(y, dy, dz);
      case SOFTMAX: return Ops.softmaxBp(y, dy, -1, dz);
      case ELU: return Ops.eluBp(z, dy, ELU_ALPHA, dz);
      case GELU: return Ops.geluBp(z, dy, false, dz);
      default: throw new IllegalStateException("activation " + a);
    }
  }
}
