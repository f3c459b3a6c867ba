package org.datavec.image.recordreader;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.TreeSet;
import org.datavec.api.conf.Configuration;
import org.datavec.api.io.labels.PathLabelGenerator;
import org.datavec.api.records.Record;
import org.datavec.api.records.metadata.RecordMetaDataURI;
import org.datavec.api.records.reader.BaseRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.IntWritable;
import org.datavec.api.writable.NDArrayWritable;
import org.datavec.api.writable.Writable;
import org.datavec.image.loader.NativeImageLoader;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.ndrt.datavec.Pixels;

/**
 * Images of a split as records (DataVec's BaseImageRecordReader): [NDArrayWritable of the image
 * [1, channels, height, width], IntWritable label index] with a label generator, the image alone without.
 * Labels are every location's label, sorted, as DataVec sorts them. next(num) gives DataVec's batch: one
 * record of the features [num, channels, height, width] and the one-hot labels [num, numLabels].
 */
public abstract class BaseImageRecordReader extends BaseRecordReader {
  private static final long serialVersionUID = 1L;
  public static final String HEIGHT = NAME_SPACE + ".height";
  public static final String WIDTH = NAME_SPACE + ".width";
  public static final String CHANNELS = NAME_SPACE + ".channels";
  public static final String CROP_IMAGE = NAME_SPACE + ".cropimage";
  protected Configuration conf;
  protected File currentFile;
  protected PathLabelGenerator labelGenerator;
  protected List<String> labels = new ArrayList<>();
  protected boolean appendLabel;
  protected long height;
  protected long width;
  protected long channels;
  protected boolean cropImage;
  protected NativeImageLoader imageLoader;
  protected boolean nchw_channels_first = true;
  private transient URI[] locations;
  private int next;

  public BaseImageRecordReader() {}

  public BaseImageRecordReader(long height, long width, long channels, PathLabelGenerator labelGenerator) {
    this.height = height;
    this.width = width;
    this.channels = channels;
    this.labelGenerator = labelGenerator;
    this.appendLabel = labelGenerator != null;
  }

  @Override
  public void initialize(InputSplit split) throws IOException {
    if (imageLoader == null) {
      imageLoader = new NativeImageLoader(height, width, channels, cropImage);
    }
    inputSplit = split;
    locations = split.locations();
    if (locations == null || locations.length == 0) {
      throw new IllegalArgumentException("No path locations found in the split.");
    }
    next = 0;
    if (appendLabel && labelGenerator.inferLabelClasses()) {
      TreeSet<String> set = new TreeSet<>();
      for (URI u : locations) {
        set.add(labelGenerator.getLabelForPath(u).toString());
      }
      labels = new ArrayList<>(set);
    }
  }

  @Override
  public void initialize(Configuration conf, InputSplit split) throws IOException, InterruptedException {
    this.conf = conf;
    appendLabel = conf.getBoolean(APPEND_LABEL, appendLabel);
    height = conf.getLong(HEIGHT, height);
    width = conf.getLong(WIDTH, width);
    channels = conf.getLong(CHANNELS, channels);
    cropImage = conf.getBoolean(CROP_IMAGE, cropImage);
    imageLoader = new NativeImageLoader(height, width, channels, cropImage);
    initialize(split);
  }

  private File nextFile() {
    if (locations == null) {
      throw new IllegalStateException(getClass().getSimpleName() + ": call initialize(InputSplit) before reading");
    }
    if (next >= locations.length) {
      throw new NoSuchElementException("No more elements: every image of the split has been read");
    }
    currentFile = new File(locations[next++]);
    invokeListeners(currentFile);
    return currentFile;
  }

  private Pixels pixels(File f) {
    try {
      return imageLoader.loadPixels(Files.readAllBytes(f.toPath()), f.getPath());
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  private int labelIndex(File f) {
    String label = labelGenerator.getLabelForPath(f.getPath()).toString();
    int i = labels.indexOf(label);
    if (i < 0) {
      throw new IllegalStateException(f.getPath() + ": label \"" + label + "\" is not one of " + labels);
    }
    return i;
  }

  @Override
  public List<Writable> next() {
    File f = nextFile();
    Pixels p = pixels(f);
    List<Writable> out = new ArrayList<>(2);
    out.add(new NDArrayWritable(layout(Nd4j.create(p.planar(), new long[] {1, p.channels, p.rows, p.cols}))));
    if (appendLabel) {
      out.add(labelGenerator.inferLabelClasses() ? new IntWritable(labelIndex(f)) : labelGenerator.getLabelForPath(f.getPath()));
    }
    return out;
  }

  private INDArray layout(INDArray nchw) {
    return nchw_channels_first ? nchw : nchw.permute(0, 2, 3, 1);
  }

  public boolean isNchw_channels_first() {
    return nchw_channels_first;
  }

  public void setNchw_channels_first(boolean nchw) {
    this.nchw_channels_first = nchw;
  }

  @Override
  public boolean hasNext() {
    return locations != null && next < locations.length;
  }

  @Override
  public boolean batchesSupported() {
    return true;
  }

  /** One record of the batch's features and (with labels) its one-hot labels, built in one array each. */
  @Override
  public List<List<Writable>> next(int num) {
    if (num <= 0) {
      throw new IllegalArgumentException("Number of examples must be > 0: got " + num);
    }
    List<float[]> images = new ArrayList<>();
    List<Integer> idx = new ArrayList<>();
    Pixels first = null;
    while (images.size() < num && hasNext()) {
      File f = nextFile();
      Pixels p = pixels(f);
      if (first == null) {
        first = p;
      } else if (p.rows != first.rows || p.cols != first.cols || p.channels != first.channels) {
        throw new IllegalStateException(f.getPath() + ": image is " + p.channels + "x" + p.rows + "x" + p.cols
            + " where the batch's first is " + first.channels + "x" + first.rows + "x" + first.cols
            + " (give the reader a height, width and channels to resize to)");
      }
      images.add(p.planar());
      if (appendLabel && labelGenerator.inferLabelClasses()) {
        idx.add(labelIndex(f));
      }
    }
    if (first == null) {
      throw new NoSuchElementException("No more elements: every image of the split has been read");
    }
    int per = images.get(0).length;
    float[] all = new float[per * images.size()];
    for (int i = 0; i < images.size(); i++) {
      System.arraycopy(images.get(i), 0, all, i * per, per);
    }
    List<Writable> batch = new ArrayList<>(2);
    batch.add(new NDArrayWritable(layout(Nd4j.create(all, new long[] {images.size(), first.channels, first.rows, first.cols}))));
    if (appendLabel) {
      if (!labelGenerator.inferLabelClasses()) {
        throw refused("BaseImageRecordReader.next(int) with a label generator that does not infer classes",
            "batched regression labels are not built");
      }
      float[] onehot = new float[images.size() * labels.size()];
      for (int i = 0; i < idx.size(); i++) {
        onehot[i * labels.size() + idx.get(i)] = 1f;
      }
      batch.add(new NDArrayWritable(Nd4j.create(onehot, new long[] {images.size(), labels.size()})));
    }
    return Collections.singletonList(batch);
  }

  @Override
  public void close() {}

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  public File getCurrentFile() {
    return currentFile;
  }

  public void setCurrentFile(File currentFile) {
    this.currentFile = currentFile;
  }

  @Override
  public List<String> getLabels() {
    return labels;
  }

  public void setLabels(List<String> labels) {
    this.labels = labels;
  }

  public int numLabels() {
    return labels.size();
  }

  public String getLabel(String path) {
    return labelGenerator != null ? labelGenerator.getLabelForPath(path).toString() : new File(path).getParentFile().getName();
  }

  @Override
  public void reset() {
    if (inputSplit == null) {
      throw new UnsupportedOperationException("Cannot reset without first initializing");
    }
    inputSplit.reset();
    locations = inputSplit.locations();
    next = 0;
  }

  @Override
  public boolean resetSupported() {
    return inputSplit != null && inputSplit.resetSupported();
  }

  @Override
  public List<Writable> record(URI uri, DataInputStream dataInputStream) throws IOException {
    if (imageLoader == null) {
      imageLoader = new NativeImageLoader(height, width, channels, cropImage);
    }
    INDArray a = imageLoader.asMatrix(dataInputStream, nchw_channels_first);
    List<Writable> out = new ArrayList<>(2);
    out.add(new NDArrayWritable(a));
    if (appendLabel && labelGenerator.inferLabelClasses()) {
      out.add(new IntWritable(labels.indexOf(getLabel(new File(uri).getPath()))));
    }
    return out;
  }

  @Override
  public Record nextRecord() {
    List<Writable> r = next();
    return new org.datavec.api.records.impl.Record(r, new RecordMetaDataURI(currentFile.toURI(), BaseImageRecordReader.class));
  }
}
