package org.datavec.image.loader;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.datavec.Pixels;

/**
 * Images to arrays as DataVec's NativeImageLoader gives them: [1, channels, height, width] float,
 * samples 0..255 (0..65535 for 16-bit images), colour channels in OpenCV's order blue, green, red. The
 * image is decoded by javax.imageio (PNG, JPEG, BMP, GIF, TIFF) instead of OpenCV; then, as DataVec
 * does: converted to the channel count asked for (1 or 3), centre-cropped if asked, resized with
 * OpenCV's bilinear rule to height x width when both are positive. JPEG decoders differ slightly, so a
 * JPEG's samples may differ from DataVec's by a few levels; PNGs match. Image transforms, multi-page
 * TIFF and 4-channel output are not part of the drop-in (those constructors are absent). A file that
 * cannot be decoded is an IOException naming it.
 */
public class NativeImageLoader extends BaseImageLoader {
  private static final long serialVersionUID = 1L;
  public static final String[] ALLOWED_FORMATS = {"bmp", "gif", "jpg", "jpeg", "png", "tif", "tiff",
      "BMP", "GIF", "JPG", "JPEG", "PNG", "TIF", "TIFF"};

  public NativeImageLoader() {}

  public NativeImageLoader(long height, long width) {
    this.height = height;
    this.width = width;
  }

  public NativeImageLoader(long height, long width, long channels) {
    this(height, width);
    if (channels != 1 && channels != 3 && channels > 0) {
      throw new UnsupportedOperationException("ndrt's DataVec drop-in does not implement NativeImageLoader with "
          + channels + " channels: 1 (gray) and 3 (BGR) only");
    }
    this.channels = channels;
  }

  public NativeImageLoader(long height, long width, long channels, boolean centerCropIfNeeded) {
    this(height, width, channels);
    this.centerCropIfNeeded = centerCropIfNeeded;
  }

  protected NativeImageLoader(NativeImageLoader other) {
    this(other.height, other.width, other.channels, other.centerCropIfNeeded);
  }

  @Override
  public String[] getAllowedFormats() {
    return ALLOWED_FORMATS;
  }

  /**
   * Decoded, converted, cropped and resized pixels of one image (for ImageRecordReader's batches; not
   * DataVec API).
   */
  public Pixels loadPixels(byte[] bytes, String name) throws IOException {
    Pixels p = Pixels.decode(bytes, name);
    if (channels > 0) {
      p = p.toChannels((int) channels);
    }
    if (centerCropIfNeeded) {
      p = p.centerCrop();
    }
    if (height > 0 && width > 0) {
      p = p.resize((int) height, (int) width);
    }
    return p;
  }

  private INDArray array(byte[] bytes, String name, boolean nchw) throws IOException {
    Pixels p = loadPixels(bytes, name);
    INDArray a = Nd4j.create(p.planar(), new long[] {1, p.channels, p.rows, p.cols});
    return nchw ? a : a.permute(0, 2, 3, 1);
  }

  private static byte[] read(File f) throws IOException {
    try {
      return Files.readAllBytes(f.toPath());
    } catch (IOException e) {
      throw new IOException(f.getPath() + ": cannot be read: " + e.getMessage(), e);
    }
  }

  public INDArray asMatrix(String filename) throws IOException {
    return asMatrix(new File(filename));
  }

  @Override
  public INDArray asMatrix(File f) throws IOException {
    return asMatrix(f, true);
  }

  @Override
  public INDArray asMatrix(File f, boolean nchw) throws IOException {
    return array(read(f), f.getPath(), nchw);
  }

  @Override
  public INDArray asMatrix(InputStream is) throws IOException {
    return asMatrix(is, true);
  }

  @Override
  public INDArray asMatrix(InputStream is, boolean nchw) throws IOException {
    return array(is.readAllBytes(), "<input stream>", nchw);
  }

  public INDArray asRowVector(String filename) throws IOException {
    return asRowVector(new File(filename));
  }

  @Override
  public INDArray asRowVector(File f) throws IOException {
    INDArray a = asMatrix(f);
    return a.reshape(1, a.length());
  }

  @Override
  public INDArray asRowVector(InputStream is) throws IOException {
    INDArray a = asMatrix(is);
    return a.reshape(1, a.length());
  }
}
