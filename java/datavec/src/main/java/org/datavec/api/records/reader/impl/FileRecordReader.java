package org.datavec.api.records.reader.impl;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.Record;
import org.datavec.api.records.metadata.RecordMetaDataURI;
import org.datavec.api.records.reader.BaseRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;

/**
 * Each location is one record: its whole text as one Text (DataVec's FileRecordReader). Labels from
 * parent directories (DataVec's appendLabel) are not part of the drop-in: getLabels() is null.
 */
public class FileRecordReader extends BaseRecordReader {
  private static final long serialVersionUID = 1L;
  protected transient URI[] locations;
  protected int next;
  protected Configuration conf;
  protected String charset = StandardCharsets.UTF_8.name();

  public FileRecordReader() {}

  @Override
  public void initialize(Configuration conf, InputSplit split) throws IOException, InterruptedException {
    this.conf = conf;
    this.inputSplit = split;
    this.locations = split.locations();
    this.next = 0;
  }

  /** The next location, advancing; NoSuchElementException after the last. */
  protected URI nextLocation() {
    if (locations == null) {
      throw new IllegalStateException(getClass().getSimpleName() + ": call initialize(InputSplit) before reading");
    }
    if (next >= locations.length) {
      throw new NoSuchElementException("No next element found: every location of the split has been read");
    }
    return locations[next++];
  }

  protected static InputStream open(URI u) throws IOException {
    return "file".equals(u.getScheme()) ? Files.newInputStream(new File(u).toPath()) : u.toURL().openStream();
  }

  @Override
  public List<Writable> next() {
    URI u = nextLocation();
    try (InputStream in = open(u)) {
      List<Writable> out = new ArrayList<>(1);
      out.add(new Text(new String(in.readAllBytes(), Charset.forName(charset))));
      invokeListeners(u);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(u + ": cannot be read: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean hasNext() {
    return locations != null && next < locations.length;
  }

  @Override
  public Record nextRecord() {
    URI u = locations == null || next >= locations.length ? null : locations[next];
    return new org.datavec.api.records.impl.Record(next(), new RecordMetaDataURI(u, getClass()));
  }

  @Override
  public void close() throws IOException {}

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
    List<Writable> out = new ArrayList<>(1);
    out.add(new Text(new String(dataInputStream.readAllBytes(), Charset.forName(charset))));
    return out;
  }
}
