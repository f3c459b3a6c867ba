package org.ndrt.datavec;

import java.awt.color.ColorSpace;
import java.awt.image.BufferedImage;
import java.awt.image.ColorModel;
import java.awt.image.IndexColorModel;
import java.awt.image.Raster;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.imageio.ImageIO;

/**
 * A decoded image as DataVec's NativeImageLoader sees it through OpenCV: rows x cols x channels integer
 * samples, channels in OpenCV's order (1: gray, 3: blue, green, red), 8 or 16 bits as stored. Decoding is
 * the JDK's javax.imageio; the conversions (gray, resize, crop) follow OpenCV's integer arithmetic.
 */
public final class Pixels {
  public final int rows;
  public final int cols;
  public final int channels;
  /** Row-major, interleaved: v[(y * cols + x) * channels + k]. */
  public final int[] v;
  final int maxValue;

  Pixels(int rows, int cols, int channels, int maxValue) {
    this.rows = rows;
    this.cols = cols;
    this.channels = channels;
    this.maxValue = maxValue;
    this.v = new int[rows * cols * channels];
  }

  /** Decodes with javax.imageio; an IOException naming {@code name} when it cannot. Alpha is dropped. */
  public static Pixels decode(byte[] bytes, String name) throws IOException {
    if (bytes.length == 0) {
      throw new IOException(name + ": could not decode image: the input is empty (no data)");
    }
    BufferedImage img;
    try {
      img = ImageIO.read(new ByteArrayInputStream(bytes));
    } catch (IOException | RuntimeException e) {
      throw new IOException(name + ": could not decode image: " + e.getMessage(), e);
    }
    if (img == null) {
      throw new IOException(name + ": could not decode image: not a format javax.imageio reads (PNG, JPEG, BMP, GIF, TIFF)");
    }
    int w = img.getWidth();
    int h = img.getHeight();
    ColorModel cm = img.getColorModel();
    Raster r = img.getRaster();
    int bits = r.getSampleModel().getSampleSize(0);
    boolean indexed = cm instanceof IndexColorModel;
    if (!indexed && cm.getColorSpace().getType() == ColorSpace.TYPE_GRAY) {
      // Gray samples as stored (8 or 16 bits): getRGB would pass them through a gamma conversion.
      Pixels p = new Pixels(h, w, 1, bits > 8 ? 65535 : 255);
      r.getSamples(0, 0, w, h, 0, p.v);
      return p;
    }
    if (!indexed && bits > 8 && r.getNumBands() >= 3 && cm.getColorSpace().isCS_sRGB()) {
      Pixels p = new Pixels(h, w, 3, 65535);
      int[] band = new int[w * h];
      for (int b = 0; b < 3; b++) {
        r.getSamples(0, 0, w, h, b, band);
        for (int i = 0; i < band.length; i++) {
          p.v[i * 3 + 2 - b] = band[i];
        }
      }
      return p;
    }
    Pixels p = new Pixels(h, w, 3, 255);
    int[] argb = img.getRGB(0, 0, w, h, null, 0, w);
    for (int i = 0; i < argb.length; i++) {
      p.v[i * 3] = argb[i] & 0xFF;
      p.v[i * 3 + 1] = (argb[i] >> 8) & 0xFF;
      p.v[i * 3 + 2] = (argb[i] >> 16) & 0xFF;
    }
    return p;
  }

  /** To 1 or 3 channels: OpenCV's GRAY2BGR (copies) or BGR2GRAY (its 14-bit fixed-point weights). */
  public Pixels toChannels(int c) {
    if (c == channels) {
      return this;
    }
    Pixels p = new Pixels(rows, cols, c, maxValue);
    int n = rows * cols;
    if (channels == 1 && c == 3) {
      for (int i = 0; i < n; i++) {
        p.v[i * 3] = p.v[i * 3 + 1] = p.v[i * 3 + 2] = v[i];
      }
    } else if (channels == 3 && c == 1) {
      for (int i = 0; i < n; i++) {
        p.v[i] = (v[i * 3] * 1868 + v[i * 3 + 1] * 9617 + v[i * 3 + 2] * 4899 + (1 << 13)) >> 14;
      }
    } else {
      throw new IllegalArgumentException("Cannot convert from " + channels + " to " + c + " channels.");
    }
    return p;
  }

  /** DataVec's centre crop: the longer side loses |w - h| / 2 at its start (and only there, as DataVec does). */
  public Pixels centerCrop() {
    int x = 0;
    int y = 0;
    int w = cols;
    int h = rows;
    int diff = Math.abs(cols - rows) / 2;
    if (cols > rows) {
      x = diff;
      w = cols - diff;
    } else if (rows > cols) {
      y = diff;
      h = rows - diff;
    }
    if (x == 0 && y == 0) {
      return this;
    }
    Pixels p = new Pixels(h, w, channels, maxValue);
    for (int yy = 0; yy < h; yy++) {
      System.arraycopy(v, ((yy + y) * cols + x) * channels, p.v, yy * w * channels, w * channels);
    }
    return p;
  }

  /**
   * OpenCV's INTER_LINEAR resize: pixel centres aligned ((d + 0.5) * scale - 0.5), edges clamped, the
   * weights rounded to 11 bits and the two passes combined in integers, rounded as OpenCV's 8-bit
   * vectorised pass rounds (checked against DataVec by java_datavec_compare_probes).
   */
  public Pixels resize(int dstRows, int dstCols) {
    if (dstRows == rows && dstCols == cols) {
      return this;
    }
    int[] xs = new int[dstCols];
    int[] xw = new int[dstCols];
    taps(cols, dstCols, xs, xw, true);
    int[] ys = new int[dstRows];
    int[] yw = new int[dstRows];
    taps(rows, dstRows, ys, yw, false);
    Pixels p = new Pixels(dstRows, dstCols, channels, maxValue);
    int[] h0 = new int[dstCols * channels];
    int[] h1 = new int[dstCols * channels];
    for (int dy = 0; dy < dstRows; dy++) {
      horizontal(Math.max(0, Math.min(ys[dy], rows - 1)), xs, xw, h0);
      horizontal(Math.max(0, Math.min(ys[dy] + 1, rows - 1)), xs, xw, h1);
      long b1 = yw[dy];
      long b0 = 2048 - b1;
      int base = dy * dstCols * channels;
      for (int i = 0; i < h0.length; i++) {
        int out;
        if (maxValue == 255) {
          // OpenCV's vectorised 8-bit vertical pass: 16-bit high products, then +2 >> 2.
          out = (int) ((((b0 * (h0[i] >> 4)) >> 16) + ((b1 * (h1[i] >> 4)) >> 16) + 2) >> 2);
        } else {
          out = (int) ((b0 * h0[i] + b1 * h1[i] + (1L << 21)) >> 22);
        }
        p.v[base + i] = Math.max(0, Math.min(maxValue, out));
      }
    }
    return p;
  }

  /**
   * Source index and 11-bit weight of the second tap per output index. OpenCV clamps the weight at the
   * edges for columns only; rows keep their weights and read the edge row twice.
   */
  private static void taps(int src, int dst, int[] start, int[] weight, boolean clampWeights) {
    double scale = (double) src / dst;
    for (int d = 0; d < dst; d++) {
      float f = (float) ((d + 0.5) * scale - 0.5);
      int s = (int) Math.floor(f);
      f -= s;
      if (clampWeights && s < 0) {
        f = 0;
        s = 0;
      }
      if (clampWeights && s >= src - 1) {
        f = 0;
        s = src - 1;
      }
      start[d] = s;
      weight[d] = (int) Math.rint(f * 2048);  // OpenCV's saturate_cast<short>: round half to even
    }
  }

  private void horizontal(int y, int[] xs, int[] xw, int[] out) {
    int row = y * cols * channels;
    for (int d = 0; d < xs.length; d++) {
      int s0 = row + xs[d] * channels;
      int s1 = row + Math.min(xs[d] + 1, cols - 1) * channels;
      int a1 = xw[d];
      int a0 = 2048 - a1;
      for (int k = 0; k < channels; k++) {
        out[d * channels + k] = v[s0 + k] * a0 + v[s1 + k] * a1;
      }
    }
  }

  /** Planar float copy, channel by channel (the NCHW layout DataVec's arrays have). */
  public float[] planar() {
    float[] out = new float[v.length];
    int n = rows * cols;
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < channels; k++) {
        out[k * n + i] = v[i * channels + k];
      }
    }
    return out;
  }
}
