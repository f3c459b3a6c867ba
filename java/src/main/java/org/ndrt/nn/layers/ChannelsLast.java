package org.ndrt.nn.layers;

import java.util.Arrays;

/**
 * Which activations of a network stay channels-last (NHWC) between the layers that make and take
 * them: one planner for the MultiLayerNetwork (a chain) and the ComputationGraph (a DAG).
 *
 * <p>Layers exchange NCHW images, as Deeplearning4j's do, but oneDNN's convolutions run on NHWC
 * without the reorders an NCHW call pays on each pass (LeNet's shapes at batch 64: 10% less time at
 * one thread, 20% at two; a residual network's 3x3 convolutions: see the README's "Graph demos").
 * So where images flow from layer to layer, the layers keep them NHWC: convolution and subsampling
 * ({@link Role#CONVERTS}: run NHWC, turning an NCHW input or output around at the region's edge),
 * batch normalisation, activation and element-wise vertices ({@link Role#FOLLOWS_INPUT}: the same ops
 * on either layout, output in the input's), global pooling ({@link Role#READS}: takes either, gives
 * no image). A network's inputs and outputs, and every layer of another kind, see NCHW.
 *
 * <p>Regions without a convolution are left NCHW; so, by default, is a region whose convolutions all
 * have ndrt's direct NCHW forward kernel on this CPU ({@link ConvolutionImpl#directForward}): that
 * kernel beats oneDNN's NHWC one 1.2-1.6x on LeNet's shapes, and NCHW max pooling's backward is
 * faster too. System property {@code org.ndrt.channelsLast}: {@code auto} (default, as said),
 * {@code true} (every region), {@code false} (none).
 */
public final class ChannelsLast {
  private ChannelsLast() {}

  /** What a layer or vertex does with channels-last images. */
  public enum Role {
    /** Takes and gives NCHW only (the default). */
    NCHW_ONLY,
    /** Computes on either layout; all its inputs and its output share one. */
    FOLLOWS_INPUT,
    /** Runs NHWC; turns an NCHW input or output around itself. */
    CONVERTS,
    /** Takes either layout; its output is not an image. */
    READS
  }

  /**
   * Plans and applies ({@link LayerImpl#setChannelsLast}) the layouts of a network's vertices.
   *
   * @param impls the vertices in topological order
   * @param roles each vertex's role (a caller may lower one to NCHW_ONLY, e.g. a layer fed through a merge)
   * @param inputs per vertex, the vertices it takes, in order (-1: a network input, NCHW)
   * @param image per vertex, whether its output is an image [N, C, H, W]
   * @param isOutput per vertex, whether its output leaves the network (stays NCHW)
   */
  public static void plan(LayerImpl[] impls, Role[] roles, int[][] inputs, boolean[] image, boolean[] isOutput) {
    String mode = System.getProperty("org.ndrt.channelsLast", "auto");
    if (mode.equals("false")) {
      return;
    }
    int n = impls.length;
    boolean[] consumed = new boolean[n];
    boolean[] nhwc = new boolean[n];  // vertex v's output is NHWC
    for (int v = 0; v < n; ++v) {
      nhwc[v] = image[v] && !isOutput[v] && (roles[v] == Role.FOLLOWS_INPUT || roles[v] == Role.CONVERTS);
    }
    for (int v = 0; v < n; ++v) {
      for (int u : inputs[v]) {
        if (u >= 0) {
          consumed[u] = true;
          nhwc[u] &= roles[v] != Role.NCHW_ONLY;
        }
      }
    }
    for (int v = 0; v < n; ++v) {
      nhwc[v] &= consumed[v];
    }
    settleFollowers(roles, inputs, nhwc);
    dropRegionsNotWorthIt(impls, roles, inputs, nhwc, mode.equals("auto") && "1".equals(org.ndrt.Ndrt.config("cpu.direct_conv")));
    for (int v = 0; v < n; ++v) {
      boolean in = inputs[v].length > 0 && inputs[v][0] >= 0 && nhwc[inputs[v][0]];
      if (roles[v] == Role.CONVERTS && (in || nhwc[v])) {
        impls[v].setChannelsLast(in, nhwc[v]);
      } else if (roles[v] == Role.FOLLOWS_INPUT && nhwc[v]) {
        impls[v].setChannelsLast(true, true);
      } else if (roles[v] == Role.READS && in) {
        impls[v].setChannelsLast(true, false);
      }
    }
  }

  /** A follower's inputs and output share a layout: where one of them is NCHW, all become NCHW. */
  private static void settleFollowers(Role[] roles, int[][] inputs, boolean[] nhwc) {
    for (boolean changed = true; changed;) {
      changed = false;
      for (int v = 0; v < roles.length; ++v) {
        if (roles[v] != Role.FOLLOWS_INPUT) {
          continue;
        }
        boolean all = nhwc[v];
        for (int u : inputs[v]) {
          all &= u >= 0 && nhwc[u];
        }
        if (all) {
          continue;
        }
        changed |= nhwc[v];
        nhwc[v] = false;
        for (int u : inputs[v]) {
          if (u >= 0 && nhwc[u]) {
            nhwc[u] = false;
            changed = true;
          }
        }
      }
    }
  }

  /**
   * Connected regions (vertices joined by the NHWC activations between them) without a
   * convolution, or whose convolutions all have the direct NCHW kernel when {@code direct}, go back
   * to NCHW. A whole region goes, so its followers stay consistent.
   */
  private static void dropRegionsNotWorthIt(LayerImpl[] impls, Role[] roles, int[][] inputs, boolean[] nhwc, boolean direct) {
    int n = impls.length;
    int[] root = new int[n];
    Arrays.setAll(root, i -> i);
    for (int v = 0; v < n; ++v) {
      for (int u : inputs[v]) {
        if (u >= 0 && nhwc[u]) {
          root[find(root, u)] = find(root, v);
        }
      }
    }
    boolean[] hasConv = new boolean[n];
    boolean[] allDirect = new boolean[n];
    Arrays.fill(allDirect, true);
    for (int v = 0; v < n; ++v) {
      if (impls[v] instanceof ConvolutionImpl && roles[v] == Role.CONVERTS) {
        int r = find(root, v);
        hasConv[r] = true;
        allDirect[r] &= ((ConvolutionImpl) impls[v]).directForward();
      }
    }
    for (int v = 0; v < n; ++v) {
      int r = find(root, v);
      if (nhwc[v] && (!hasConv[r] || direct && allDirect[r])) {
        nhwc[v] = false;
      }
    }
  }

  private static int find(int[] root, int v) {
    while (root[v] != v) {
      root[v] = root[root[v]];
      v = root[v];
    }
    return v;
  }
}
