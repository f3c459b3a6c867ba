package org.ndrt.nn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.ndrt.DType;
import org.ndrt.Ops;
import org.ndrt.Tensor;
import org.ndrt.nn.conf.NetworkConfiguration;
import org.ndrt.nn.layers.LayerImpl;
import org.ndrt.nn.layers.ParamSpec;
import org.ndrt.nn.updater.Adam;
import org.ndrt.nn.updater.Updater;

/**
 * A network's parameters, gradients and updater state as flat f32 vectors, and the step that
 * updates them: one implementation for MultiLayerNetwork and ComputationGraph. Layout: all
 * weights, then the trained parameters without L2, then non-trained state such as batch-norm
 * running statistics; the layers get views of it ({@link LayerImpl#bind}), so the updater runs as
 * two fused ops per step and ParallelWrapper averages one vector.
 *
 * <p>Mixed precision (dataType F16/BF16): the layers compute on a compute-dtype copy of the
 * parameters ({@link #castToCompute}) and write compute-dtype gradients, which {@link #step} casts
 * back, unscales and checks (a step with an overflow is skipped and the scale halved).
 */
final class FlatParameters {
  final NetworkConfiguration conf;
  final boolean mixed;
  final Tensor params;   // f32 [P]: weights | other trained | state
  final Tensor grads;    // f32 [T]: the trained part
  final Tensor state;    // f32 [slots * T]
  final long[][] gradRanges;  // per layer: {offset, length, offset, length, ...} of its gradients in `grads`
  final Regularizer reg;
  final GradientNormalizer gradNorm;  // null: no layer normalises its gradients
  final LossScaler scaler;
  long updaterStep;
  private final DType dtype;
  private final List<Tensor> owned;
  private final long numA;
  private final long numB;
  private Tensor computeParams;  // mixed precision: compute dtype [M], M = the parameters that compute in it
  private Tensor computeGrads;
  private Tensor masterM;
  private Tensor gradsM;
  private final Tensor paramsA;
  private final Tensor paramsB;
  private final Tensor gradsA;
  private final Tensor gradsB;
  private final Tensor[] stateA;
  private final Tensor[] stateB;
  private final Tensor decayT;     // rank 0: 1 - lr * weightDecay
  private Tensor sumScaleT;  // miniBatch(false): dL = loss scale * N

  /**
   * Lays out the vectors for {@code layers} (layer i configured by {@code conf.layers().get(i)}),
   * binds the layers' views and, with {@code randomize}, initialises the values (seeded); without
   * it they stay zero (load and clone fill them). Every tensor made goes into {@code owned}.
   */
  FlatParameters(NetworkConfiguration conf, LayerImpl[] layers, boolean randomize, List<Tensor> owned) {
    this.conf = conf;
    this.dtype = conf.dataType();
    this.mixed = dtype != DType.F32;
    this.owned = owned;
    List<List<ParamSpec>> specs = new ArrayList<>();
    for (LayerImpl l : layers) {
      specs.add(l.params());
    }
    // Order: weights, trained parameters that compute in the compute dtype, f32-only trained, state.
    long[] sizes = new long[4];
    for (List<ParamSpec> l : specs) {
      for (ParamSpec s : l) {
        sizes[group(s)] += s.numel();
      }
    }
    numA = sizes[0];
    numB = sizes[1] + sizes[2];
    long m = sizes[0] + sizes[1];
    long t = numA + numB;
    long total = t + sizes[3];
    Updater u = conf.updater();
    params = own(Tensor.zeros(DType.F32, total));
    grads = own(Tensor.zeros(DType.F32, t));
    state = own(Tensor.full(u.initialState(), DType.F32, u.stateSlots() * t));
    if (mixed) {
      computeParams = own(Tensor.zeros(dtype, m));
      computeGrads = own(Tensor.zeros(dtype, m));
      masterM = own(params.slice(0, 0, m));
      gradsM = own(grads.slice(0, 0, m));
    }
    paramsA = own(params.slice(0, 0, numA));
    paramsB = own(params.slice(0, numA, t));
    gradsA = own(grads.slice(0, 0, numA));
    gradsB = own(grads.slice(0, numA, t));
    stateA = new Tensor[u.stateSlots()];
    stateB = new Tensor[u.stateSlots()];
    for (int k = 0; k < stateA.length; ++k) {
      stateA[k] = own(state.slice(0, k * t, k * t + numA));
      stateB[k] = own(state.slice(0, k * t + numA, (k + 1) * t));
    }
    scaler = new LossScaler(mixed ? conf.lossScale() : 1);
    decayT = own(Tensor.scalar(1 - u.learningRate() * conf.weightDecay(), DType.F32));

    long[] next = {0, sizes[0], sizes[0] + sizes[1], t};
    long drawn = 0;  // random numbers drawn so far: each weight gets its own part of the seed's stream
    gradRanges = new long[layers.length][];
    List<long[]> regRanges = new ArrayList<>();
    for (int i = 0; i < layers.length; ++i) {
      List<ParamSpec> l = specs.get(i);
      Tensor[] pv = new Tensor[l.size()];
      Tensor[] gv = new Tensor[l.size()];
      long[] ranges = new long[0];
      for (int j = 0; j < l.size(); ++j) {
        ParamSpec s = l.get(j);
        int grp = group(s);
        long off = next[grp];
        next[grp] += s.numel();
        if (s.kind != ParamSpec.Kind.STATE) {
          ranges = Arrays.copyOf(ranges, ranges.length + 2);
          ranges[ranges.length - 2] = off;
          ranges[ranges.length - 1] = s.numel();
          regRanges.add(new long[] {i, s.kind == ParamSpec.Kind.WEIGHT ? 1 : 0, off, s.numel()});
        }
        Tensor master = view(params, off, s.shape);
        if (randomize) {
          if (s.kind == ParamSpec.Kind.WEIGHT) {
            ParamInit.weight(master, s, conf.layers().get(i), conf.seed(), drawn);
            drawn += s.numel();
          } else {
            ParamInit.bias(master, s, conf.layers().get(i));
          }
        }
        boolean compute = mixed && !s.f32Only;
        pv[j] = s.kind == ParamSpec.Kind.STATE ? master : compute ? view(computeParams, off, s.shape) : master;
        gv[j] = s.kind == ParamSpec.Kind.STATE ? null : compute ? view(computeGrads, off, s.shape) : view(grads, off, s.shape);
      }
      layers[i].bind(pv, gv);
      gradRanges[i] = ranges;
    }
    gradNorm = GradientNormalizer.of(conf, gradRanges, grads, this::own);
    reg = new Regularizer(conf, regRanges, params, grads, paramsA, this::own);
  }

  private static int group(ParamSpec s) {
    switch (s.kind) {
      case WEIGHT: return 0;
      case BIAS: return s.f32Only ? 2 : 1;
      default: return 3;
    }
  }

  private Tensor view(Tensor flat, long off, long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    try (Tensor s = flat.slice(0, off, off + n)) {
      return own(s.reshape(shape));
    }
  }

  private Tensor own(Tensor t) {
    owned.add(t);
    return t;
  }

  /** Mixed precision: the layers' compute-dtype parameters from the f32 master copy (no-op in f32). */
  void castToCompute() {
    if (mixed) {
      Ops.cast(masterM, dtype, computeParams);
    }
  }

  /** dL at the output layers: the loss scale, times N for miniBatch(false) (rank 0, f32). */
  Tensor lossGradientScale(long n) {
    if (n == 1) {
      return scaler.scaleTensor();
    }
    if (sumScaleT == null) {
      sumScaleT = own(Tensor.scalar(0, DType.F32));
    }
    sumScaleT.fill(scaler.scale() * n);
    return sumScaleT;
  }

  /**
   * After a backward pass: unless the step is skipped for overflow (mixed precision), normalises
   * the gradients per layer (Deeplearning4j's order: on the raw gradients), runs the updater and
   * lets each layer move its state stepped outside it (a CenterLossOutputLayer's centers).
   */
  void step(LayerImpl[] layers) {
    if (mixed) {
      Ops.cast(computeGrads, DType.F32, gradsM);
      if (!scaler.unscaleAndCheck(grads)) {
        return;
      }
    }
    if (gradNorm != null) {
      gradNorm.apply();
    }
    update();
    for (LayerImpl l : layers) {
      l.afterUpdate();
    }
  }

  private void update() {
    ++updaterStep;
    Updater u = conf.updater();
    if (!reg.fused()) {  // per-layer / bias / l1 regularisation: applied per range, the updater without l2
      reg.beforeUpdate();
      if (numA > 0) {
        u.apply(paramsA, gradsA, stateA, 0, updaterStep);
      }
      if (numB > 0) {
        u.apply(paramsB, gradsB, stateB, 0, updaterStep);
      }
      return;
    }
    double wd = conf.weightDecay();
    if (numA > 0) {
      if (wd > 0 && u instanceof Adam) {
        ((Adam) u).applyDecoupled(paramsA, gradsA, stateA, wd, updaterStep);
      } else {
        if (wd > 0) {
          Ops.mul(paramsA, decayT, paramsA);  // decoupled decay: w -= lr * wd * w
        }
        u.apply(paramsA, gradsA, stateA, conf.l2(), updaterStep);
      }
    }
    if (numB > 0) {
      u.apply(paramsB, gradsB, stateB, 0, updaterStep);
    }
  }

  /** The training state outside the tensors but the model's counters: updater steps, loss scaling, random streams. */
  ModelSerializer.Saved trainingState(LayerImpl[] layers) {
    ModelSerializer.Saved s = new ModelSerializer.Saved();
    s.updaterStep = updaterStep;
    s.lossScale = scaler.scale();
    s.cleanSteps = scaler.cleanSteps;
    s.skippedSteps = scaler.skippedSteps;
    s.randomOffsets = Arrays.stream(layers).mapToLong(LayerImpl::randomOffset).toArray();
    s.randomStream = layers.length == 0 ? 0 : layers[0].randomStream(); // the same in every layer (RandomStreams.setStream)
    return s;
  }

  /** Sets what {@link #trainingState} gives; without random offsets (an old zip) every stream stays at 0. */
  void restore(ModelSerializer.Saved s, LayerImpl[] layers) {
    updaterStep = s.updaterStep;
    scaler.skippedSteps = s.skippedSteps;
    if (mixed) {
      scaler.set(s.lossScale);
      scaler.cleanSteps = (int) Math.min(s.cleanSteps, Integer.MAX_VALUE);
    }
    for (int i = 0; i < layers.length; ++i) {
      layers[i].setRandomStream(s.randomStream);
      if (s.randomOffsets != null) {
        layers[i].setRandomOffset(s.randomOffsets[i]);
      }
    }
  }

  /** Copies {@code src} (a vector of dst's length) into {@code dst}. */
  static void copyInto(Tensor src, Tensor dst, String who) {
    if (src.numel() != dst.numel() || src.rank() != 1) {
      throw new IllegalArgumentException(who + ": need a vector of " + dst.numel() + " elements, got shape "
          + Arrays.toString(src.shape()));
    }
    Ops.copy(src, dst);
  }
}
