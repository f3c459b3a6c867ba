package org.datavec.image.loader;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import javax.imageio.ImageIO;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * DataVec's Java2DNativeImageLoader: NativeImageLoader plus conversions to and from
 * {@code java.awt.image.BufferedImage}. A BufferedImage goes in through the same decoding path as a
 * file (written losslessly as PNG first, so channels, crop and resize follow NativeImageLoader's
 * rules); an array comes out as 8-bit samples, channels in OpenCV's blue-green-red order as DataVec's.
 */
public class Java2DNativeImageLoader extends NativeImageLoader {
  private static final long serialVersionUID = 1L;

  public Java2DNativeImageLoader() {}

  public Java2DNativeImageLoader(long height, long width) {
    super(height, width);
  }

  public Java2DNativeImageLoader(long height, long width, long channels) {
    super(height, width, channels);
  }

  public Java2DNativeImageLoader(long height, long width, long channels, boolean centerCropIfNeeded) {
    super(height, width, channels, centerCropIfNeeded);
  }

  /** The image as {@code [1, c, h, w]}, as {@code asMatrix(File)} gives it for the same picture. */
  public INDArray asMatrix(BufferedImage image) throws IOException {
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    if (!ImageIO.write(image, "png", png)) {
      throw new IOException("Java2DNativeImageLoader: javax.imageio cannot write this BufferedImage as PNG (type "
          + image.getType() + ")");
    }
    return asMatrix(new ByteArrayInputStream(png.toByteArray()));
  }

  /** As {@link #asMatrix(BufferedImage)}, flattened to {@code [1, c*h*w]}. */
  public INDArray asRowVector(BufferedImage image) throws IOException {
    INDArray m = asMatrix(image);
    return m.reshape(1, m.length());
  }

  /**
   * {@code [c, h, w]} or {@code [1, c, h, w]} (c = 1 or 3, BGR) to an 8-bit gray or BGR image. Each
   * value is taken as an integer and its low 8 bits kept (so an INT8 -1 is 255, as a byte cast in DataVec).
   */
  public BufferedImage asBufferedImage(INDArray array) {
    long[] s = array.shape();
    if (!(s.length == 3 || (s.length == 4 && s[0] == 1))) {
      throw new IllegalArgumentException("Java2DNativeImageLoader.asBufferedImage: expected [c, h, w] or [1, c, h, w],"
          + " got " + java.util.Arrays.toString(s));
    }
    int c = (int) s[s.length - 3];
    int h = (int) s[s.length - 2];
    int w = (int) s[s.length - 1];
    if (c != 1 && c != 3) {
      throw new IllegalArgumentException("Java2DNativeImageLoader.asBufferedImage: 1 or 3 channels, got " + c);
    }
    int[] v = array.castTo(DataType.INT).dup('c').data().asInt();
    BufferedImage img = new BufferedImage(w, h, c == 1 ? BufferedImage.TYPE_BYTE_GRAY : BufferedImage.TYPE_INT_RGB);
    int plane = h * w;
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        int i = y * w + x;
        if (c == 1) {
          img.getRaster().setSample(x, y, 0, v[i] & 0xFF);
        } else {
          int b = v[i] & 0xFF;
          int g = v[plane + i] & 0xFF;
          int r = v[2 * plane + i] & 0xFF;
          img.setRGB(x, y, (r << 16) | (g << 8) | b);
        }
      }
    }
    return img;
  }
}
