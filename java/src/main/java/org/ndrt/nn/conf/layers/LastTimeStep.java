package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.WeightInit;

/**
 * Deeplearning4j's {@code LastTimeStep} wrapper: runs a recurrent layer (LSTM, GRU or Bidirectional)
 * and gives, for each example, its output at the last valid time step, [N, nOut]: step T - 1, or
 * with a features mask the step before the first masked one (the last step of the valid prefix; a
 * sequence of length 0 gives zeros). Feeds an OutputLayer or DenseLayer. Its parameters are the
 * wrapped layer's.
 */
public final class LastTimeStep extends Layer {
  private final Layer underlying;

  /** Wraps {@code underlying}, a recurrent layer (LSTM, GRU or Bidirectional). */
  public LastTimeStep(Layer underlying) {
    super(new WrapperBuilder(underlying));
    if (!(underlying instanceof BaseRecurrentLayer) && !(underlying instanceof Bidirectional)) {
      throw new IllegalArgumentException("LastTimeStep wraps a recurrent layer (LSTM, GRU, Bidirectional), got "
          + (underlying == null ? null : underlying.getClass().getSimpleName()));
    }
    this.underlying = underlying;
  }

  /** The wrapped layer. */
  public Layer getUnderlying() {
    return underlying;
  }

  @Override
  public void applyDefaults(String defaultName, Activation act, WeightInit init) {
    if (name == null) {
      name = defaultName;
    }
    underlying.applyDefaults(name, act, init);
    activation = underlying.activation();
    weightInit = underlying.weightInit();
  }

  @Override
  public boolean hasParams() {
    return underlying.hasParams();
  }

  @Override
  public InputType impliedInput() {
    return underlying.impliedInput();
  }

  @Override
  public InputType inferOutput(InputType in) {
    InputType out = underlying.inferOutput(in);
    nIn = underlying.nIn();
    nOut = out.size;
    return InputType.feedForward(out.size);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("underlying", underlying.toJson());
    return m;
  }

  static LastTimeStep wrapperFromJson(Map<String, Object> m) {
    LastTimeStep l = new LastTimeStep(Layer.fromJson(Json.obj(m.get("underlying"), "LastTimeStep's underlying layer")));
    l.name = Json.str(m, "name", null);
    return l;
  }

  /** Carries the wrapped layer's settings into Layer's constructor. */
  static final class WrapperBuilder extends Layer.Builder<WrapperBuilder> {
    WrapperBuilder(Layer underlying) {
      if (underlying != null) {
        nIn = underlying.nIn();
        nOut = underlying.nOut();
        activation = underlying.activation();
        weightInit = underlying.weightInit();
        System.arraycopy(underlying.regularization, 0, regularization, 0, regularization.length);  // the wrapped layer's params
      }
    }

    @Override
    public Layer build() {
      throw new UnsupportedOperationException();
    }
  }
}
