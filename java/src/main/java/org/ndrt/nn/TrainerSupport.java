package org.ndrt.nn;

import java.io.File;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ndrt.Tensor;

/**
 * What trainers outside this package (org.ndrt.distributed) need from a network beyond its public
 * API: a hook into {@link MultiLayerNetwork#fit(org.ndrt.data.DataSet)}'s backward pass, where each
 * layer's gradients sit in the flat gradient vector, the training state outside the tensors as
 * numbers (to broadcast it), and model zips with extra entries (checkpoints). Not an application
 * API: its shape may change with the trainers.
 */
public final class TrainerSupport {
  private TrainerSupport() {}

  /**
   * Called by {@code fit(DataSet)} on the training thread. Without a hook the network does one null
   * check per layer and nothing else.
   */
  public interface BackwardHook {
    /**
     * Layer {@code layer}'s parameter gradients are final: backward goes from the last layer to the
     * first, so they come in that order (layers without parameters too). The layer's gradient
     * ranges ({@link #gradientRanges}) are not written again in this step, until the update.
     */
    void layerDone(int layer);

    /** Every layer's gradients are done; the updater step follows when this returns. */
    void beforeUpdate();
  }

  /** Sets (or, with null, removes) the network's backward hook. */
  public static void setBackwardHook(Model net, BackwardHook hook) {
    check(net).setBackwardHook(hook);
  }

  /** The network's own flat f32 gradient vector (the trained parameters): do not close. */
  public static Tensor gradients(Model net) {
    return check(net).gradients();
  }

  /**
   * Per layer, where its gradients are in {@link #gradients}: {@code {offset, length, offset,
   * length, ...}} in elements, one pair per trained parameter array (none for a layer without).
   */
  public static long[][] gradientRanges(Model net) {
    return check(net).gradientRanges();
  }

  /** Whether the network computes in f16/bf16 (mixed precision). */
  public static boolean isMixedPrecision(Model net) {
    return check(net).isMixedPrecision();
  }

  /**
   * The training state outside the tensors as numbers: epoch, iteration, updater step, loss scale
   * (the bits of the double), clean steps, skipped steps, random stream, then each layer's random
   * stream offset. {@link #setTrainingState} takes it back.
   */
  public static long[] trainingState(Model net) {
    ModelSerializer.Saved s = check(net).trainingState();
    long[] head = {s.epoch, s.iteration, s.updaterStep, Double.doubleToRawLongBits(s.lossScale), s.cleanSteps,
        s.skippedSteps, s.randomStream};
    long[] v = Arrays.copyOf(head, head.length + s.randomOffsets.length);
    System.arraycopy(s.randomOffsets, 0, v, head.length, s.randomOffsets.length);
    return v;
  }

  /** Sets what {@link #trainingState} gave (from this network or one of the same configuration). */
  public static void setTrainingState(Model net, long[] v) {
    Model n = check(net);
    int layers = n.layers().length;
    if (v == null || v.length != 7 + layers) {
      throw new IllegalArgumentException("TrainerSupport.setTrainingState: need " + (7 + layers) + " values, got "
          + (v == null ? "null" : v.length));
    }
    ModelSerializer.Saved s = new ModelSerializer.Saved();
    s.epoch = v[0];
    s.iteration = v[1];
    s.updaterStep = v[2];
    s.lossScale = Double.longBitsToDouble(v[3]);
    s.cleanSteps = v[4];
    s.skippedSteps = v[5];
    s.randomStream = (int) v[6];
    s.randomOffsets = Arrays.copyOfRange(v, 7, v.length);
    n.restore(s);
  }

  /**
   * Saves the network as {@link MultiLayerNetwork#save} does (a zip that {@link
   * MultiLayerNetwork#load} reads), with further entries; the file appears whole or not at all (a
   * temporary file, synced, then renamed over it).
   */
  public static void save(Model net, File file, Map<String, byte[]> extra) throws IOException {
    ModelSerializer.Saved s = check(net).trainingState();
    s.conf = net.configuration();
    s.params = net.params().toFloatArray();
    s.updater = net.updaterState().toFloatArray();
    s.extra = new LinkedHashMap<>(extra);
    ModelSerializer.write(file, s);
  }

  /**
   * Loads a zip written by {@link #save} (or {@link MultiLayerNetwork#save}) into an existing
   * network of the same configuration: parameters, updater state and training state. Returns the
   * zip's other entries.
   *
   * @throws IOException if the file cannot be read, is not a saved model, or was saved from another
   *     configuration (the network is unchanged then)
   */
  public static Map<String, byte[]> loadInto(Model net, File file) throws IOException {
    Model n = check(net);
    ModelSerializer.Saved s = ModelSerializer.read(file);
    if (!s.conf.toJson().equals(n.configuration().toJson())) {
      throw new IOException(file + ": saved from another configuration than the network's");
    }
    if (s.params.length != n.params().numel() || s.updater.length != n.updaterState().numel()) {
      throw new IOException(file + ": " + s.params.length + " parameters and " + s.updater.length
          + " updater values do not fit the network (" + n.params().numel() + ", " + n.updaterState().numel() + ")");
    }
    long[] before = trainingState(n);
    try {
      n.restore(s);
    } catch (IllegalArgumentException e) {
      setTrainingState(n, before);
      throw new IOException(file + ": " + e.getMessage(), e);
    }
    n.params().copyFrom(s.params);
    n.updaterState().copyFrom(s.updater);
    return s.extra;
  }

  private static Model check(Model net) {
    if (net == null) {
      throw new IllegalArgumentException("TrainerSupport: the network must not be null");
    }
    return net;
  }
}
