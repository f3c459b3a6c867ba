package org.ndrt.nn.layers;

import org.ndrt.Tensor;
import org.ndrt.DType;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.layers.ActivationLayer;

/** y = act(x) by the activation ops the other layers fuse in; keeps x and y for the backward pass. */
final class ActivationImpl extends LayerImpl {
  private final Activation act;
  private Tensor x;
  private Tensor y;

  ActivationImpl(ActivationLayer conf, DType dtype) {
    super(dtype);
    this.act = conf.activation();
  }

  @Override
  public ChannelsLast.Role channelsLastRole() {
    return ChannelsLast.Role.FOLLOWS_INPUT;
  }

  @Override
  public Tensor forward(Tensor x, boolean training) {
    this.x = x;
    y = Activations.forward(act, x, buffer("y", dtype, x.shape()));
    return y;
  }

  @Override
  public Tensor backward(Tensor dy, boolean needDx) {
    return needDx ? Activations.backward(act, x, y, dy, buffer("dx", dtype, dy.shape())) : null;
  }
}
