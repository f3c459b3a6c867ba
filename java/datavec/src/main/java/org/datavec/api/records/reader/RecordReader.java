package org.datavec.api.records.reader;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import org.datavec.api.conf.Configurable;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.Record;
import org.datavec.api.records.listener.RecordListener;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.Writable;

/** Reads records (lists of Writables) from the locations of an InputSplit (DataVec's RecordReader). */
public interface RecordReader extends Closeable, Serializable, Configurable {
  String NAME_SPACE = RecordReader.class.getName();
  String APPEND_LABEL = NAME_SPACE + ".appendlabel";
  String LABELS = NAME_SPACE + ".labels";

  void initialize(InputSplit split) throws IOException, InterruptedException;

  void initialize(Configuration conf, InputSplit split) throws IOException, InterruptedException;

  boolean batchesSupported();

  List<List<Writable>> next(int num);

  List<Writable> next();

  boolean hasNext();

  List<String> getLabels();

  void reset();

  boolean resetSupported();

  List<Writable> record(URI uri, DataInputStream dataInputStream) throws IOException;

  Record nextRecord();

  Record loadFromMetaData(RecordMetaData recordMetaData) throws IOException;

  List<Record> loadFromMetaData(List<RecordMetaData> recordMetaDatas) throws IOException;

  List<RecordListener> getListeners();

  void setListeners(RecordListener... listeners);

  void setListeners(Collection<RecordListener> listeners);
}
