package org.datavec.api.records.reader.impl;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.Record;
import org.datavec.api.records.metadata.RecordMetaDataLine;
import org.datavec.api.records.reader.BaseRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;
import org.ndrt.datavec.LineSource;

/**
 * Each line of each location is one record of one Text (DataVec's LineRecordReader); locations are
 * read in the split's order, each opened when reached. Subclasses override {@link #readRecord} to read
 * records of another shape from the same lines (CSVRecordReader).
 */
public class LineRecordReader extends BaseRecordReader {
  private static final long serialVersionUID = 1L;
  protected URI[] locations;
  protected int splitIndex;
  protected int lineIndex;
  protected Configuration conf;
  protected boolean initialized;
  protected String charset = StandardCharsets.UTF_8.name();
  protected transient LineSource source;
  private transient List<Writable> pending;
  private transient int pendingLine;
  private transient URI pendingUri;

  public LineRecordReader() {}

  @Override
  public void initialize(Configuration conf, InputSplit split) throws IOException, InterruptedException {
    this.conf = conf;
    this.inputSplit = split;
    this.locations = split.locations();
    if (source != null) {
      source.close();
    }
    this.source = LineSource.of(split, Charset.forName(charset));
    this.pending = null;
    this.initialized = true;
  }

  /** Called when a location is opened (CSVRecordReader skips its header lines here). */
  protected void onLocationOpen(URI location) {}

  /**
   * The next record of the source's current location, or null at its end. Here: the next line as a
   * Text (an empty line is an empty Text, as in DataVec).
   */
  protected List<Writable> readRecord(LineSource src) {
    String line = src.readLine();
    if (line == null) {
      return null;
    }
    List<Writable> out = new ArrayList<>(1);
    out.add(new Text(line));
    return out;
  }

  private boolean fill() {
    if (!initialized) {
      throw new IllegalStateException(getClass().getSimpleName() + ": call initialize(InputSplit) before reading");
    }
    while (pending == null) {
      if (source.isOpen()) {
        int before = source.lineNumber();
        List<Writable> r = readRecord(source);
        if (r != null) {
          pending = r;
          pendingLine = before + 1;
          pendingUri = source.uri();
          // readRecord may skip blank lines: the record's own line is the first non-blank one.
          pendingLine = firstLineOf(r, pendingLine);
          return true;
        }
      }
      if (!source.openNext()) {
        return false;
      }
      splitIndex = Math.max(0, indexOf(source.uri()));
      onLocationOpen(source.uri());
    }
    return true;
  }

  private int indexOf(URI u) {
    if (locations == null) {
      return 0;
    }
    for (int i = 0; i < locations.length; i++) {
      if (locations[i].equals(u)) {
        return i;
      }
    }
    return 0;
  }

  private static int firstLineOf(List<Writable> r, int fallback) {
    if (!r.isEmpty() && r.get(0) instanceof org.ndrt.datavec.PositionedText) {
      return ((org.ndrt.datavec.PositionedText) r.get(0)).line();
    }
    return fallback;
  }

  @Override
  public boolean hasNext() {
    return fill();
  }

  @Override
  public List<Writable> next() {
    if (!fill()) {
      throw new NoSuchElementException("No next element found: every location of the split has been read");
    }
    List<Writable> r = pending;
    pending = null;
    lineIndex = pendingLine;
    invokeListeners(r);
    return r;
  }

  @Override
  public Record nextRecord() {
    List<Writable> r = next();
    // DataVec's line numbers in metadata count from 0.
    return new org.datavec.api.records.impl.Record(r, new RecordMetaDataLine(lineIndex - 1, pendingUri, getClass()));
  }

  @Override
  public void close() throws IOException {
    if (source != null) {
      source.close();
    }
  }

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public List<String> getLabels() {
    return null;
  }

  @Override
  public void reset() {
    if (source == null) {
      throw new IllegalStateException("Cannot reset without first initializing");
    }
    inputSplit.reset();
    locations = inputSplit.locations();
    source.close();
    source = LineSource.of(inputSplit, Charset.forName(charset));
    pending = null;
    lineIndex = 0;
  }

  @Override
  public boolean resetSupported() {
    return inputSplit == null || inputSplit.resetSupported();
  }

  @Override
  public List<Writable> record(URI uri, DataInputStream dataInputStream) throws IOException {
    BufferedReader br = new BufferedReader(new InputStreamReader(dataInputStream, Charset.forName(charset)));
    List<Writable> out = new ArrayList<>(1);
    out.add(new Text(br.readLine()));
    return out;
  }

  public String getCharset() {
    return charset;
  }

  public void setCharset(String charset) {
    this.charset = charset;
  }
}
