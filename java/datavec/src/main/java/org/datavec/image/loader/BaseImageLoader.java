package org.datavec.image.loader;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.Random;
import org.nd4j.linalg.api.ndarray.INDArray;

/** What image loaders share (DataVec's BaseImageLoader): the target size (-1: as decoded) and the formats read. */
public abstract class BaseImageLoader implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String[] ALLOWED_FORMATS = {"tif", "jpg", "png", "jpeg", "bmp", "JPEG", "JPG", "TIF", "PNG"};
  protected Random rng = new Random(System.currentTimeMillis());
  protected long height = -1;
  protected long width = -1;
  protected long channels = -1;
  protected boolean centerCropIfNeeded = false;

  public BaseImageLoader() {}

  public String[] getAllowedFormats() {
    return ALLOWED_FORMATS;
  }

  public abstract INDArray asRowVector(File f) throws IOException;

  public abstract INDArray asRowVector(InputStream inputStream) throws IOException;

  public abstract INDArray asMatrix(File f) throws IOException;

  public abstract INDArray asMatrix(File f, boolean nchw) throws IOException;

  public abstract INDArray asMatrix(InputStream inputStream) throws IOException;

  public abstract INDArray asMatrix(InputStream inputStream, boolean nchw) throws IOException;
}
