package org.ndrt.nn.conf.layers;

import java.util.Map;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.WeightInit;

/**
 * Deeplearning4j's {@code Bidirectional} wrapper: two copies of a recurrent layer (LSTM or GRU) with
 * parameters of their own, one reading the sequences forwards, one backwards (the op's reverse =
 * true: with a features mask, each valid prefix read from its last valid step down to step 0), their
 * outputs combined per step by {@link Mode}: CONCAT (default; [N, 2 nOut, T], forward first), ADD,
 * MUL or AVERAGE ([N, nOut, T]). Parameters: the forward copy's with prefix "f" ("fW", "fRW", "fb"),
 * then the backward copy's with prefix "b". Not with truncated BPTT or rnnTimeStep (the backward
 * direction needs the whole sequence).
 */
public final class Bidirectional extends Layer {
  /** How the two directions' outputs are combined. */
  public enum Mode {
    ADD,
    MUL,
    AVERAGE,
    CONCAT
  }

  private final Mode mode;
  private final BaseRecurrentLayer fwd;

  /** CONCAT of the two directions. */
  public Bidirectional(Layer layer) {
    this(Mode.CONCAT, layer);
  }

  public Bidirectional(Mode mode, Layer layer) {
    super(new LastTimeStep.WrapperBuilder(layer));
    if (!(layer instanceof BaseRecurrentLayer)) {
      throw new IllegalArgumentException("Bidirectional wraps a recurrent layer (LSTM, GRU), got "
          + (layer == null ? null : layer.getClass().getSimpleName()));
    }
    if (mode == null) {
      throw new IllegalArgumentException("Bidirectional: the mode must not be null");
    }
    this.mode = mode;
    this.fwd = (BaseRecurrentLayer) layer;
  }

  public Mode getMode() {
    return mode;
  }

  /** The wrapped layer (each direction has a copy of its parameters). */
  public Layer getFwd() {
    return fwd;
  }

  @Override
  public void applyDefaults(String defaultName, Activation act, WeightInit init) {
    if (name == null) {
      name = defaultName;
    }
    fwd.applyDefaults(name, act, init);
    activation = fwd.activation();
    weightInit = fwd.weightInit();
  }

  @Override
  public boolean hasParams() {
    return true;
  }

  @Override
  public InputType impliedInput() {
    return fwd.impliedInput();
  }

  @Override
  public InputType inferOutput(InputType in) {
    InputType out = fwd.inferOutput(in);
    nIn = fwd.nIn();
    nOut = mode == Mode.CONCAT ? 2 * out.size : out.size;
    return InputType.recurrent(nOut, out.timeSeriesLength);
  }

  @Override
  public Map<String, Object> toJson() {
    Map<String, Object> m = super.toJson();
    m.put("mode", mode.name());
    m.put("underlying", fwd.toJson());
    return m;
  }

  static Bidirectional wrapperFromJson(Map<String, Object> m) {
    Bidirectional l = new Bidirectional(Mode.valueOf(Json.str(m, "mode")),
        Layer.fromJson(Json.obj(m.get("underlying"), "Bidirectional's underlying layer")));
    l.name = Json.str(m, "name", null);
    return l;
  }
}
