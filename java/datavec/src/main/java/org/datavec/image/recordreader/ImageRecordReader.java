package org.datavec.image.recordreader;

import org.datavec.api.io.labels.PathLabelGenerator;

/** Images as records, labels from paths (DataVec's ImageRecordReader); see BaseImageRecordReader. */
public class ImageRecordReader extends BaseImageRecordReader {
  private static final long serialVersionUID = 1L;

  public ImageRecordReader() {}

  public ImageRecordReader(long height, long width, long channels, PathLabelGenerator labelGenerator) {
    super(height, width, channels, labelGenerator);
  }

  public ImageRecordReader(long height, long width, long channels) {
    super(height, width, channels, null);
  }

  /** nchw false: images as [1, height, width, channels] (DataVec's channels-last option). */
  public ImageRecordReader(long height, long width, long channels, boolean nchw) {
    super(height, width, channels, null);
    this.nchw_channels_first = nchw;
  }

  public ImageRecordReader(long height, long width, PathLabelGenerator labelGenerator) {
    super(height, width, 1, labelGenerator);
  }

  public ImageRecordReader(long height, long width) {
    super(height, width, 1, null);
  }
}
