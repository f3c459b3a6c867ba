package org.datavec.api.records.reader.impl.csv;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.datavec.api.records.SequenceRecord;
import org.datavec.api.records.metadata.RecordMetaData;
import org.datavec.api.records.metadata.RecordMetaDataURI;
import org.datavec.api.records.reader.SequenceRecordReader;
import org.datavec.api.records.reader.impl.FileRecordReader;
import org.datavec.api.writable.Writable;
import org.ndrt.datavec.CsvParser;
import org.ndrt.datavec.LineSource;
import org.ndrt.datavec.PositionedText;

/**
 * One sequence per location (DataVec's CSVSequenceRecordReader): each CSV record of the file is one time
 * step of Texts, after skipNumLines header lines. Values are split by CsvParser, so quoting works as in
 * CSVRecordReader (DataVec splits at the delimiter only). Every time step of a sequence must have as
 * many values as its first, else an IllegalStateException names file, line and column.
 */
public class CSVSequenceRecordReader extends FileRecordReader implements SequenceRecordReader {
  private static final long serialVersionUID = 1L;
  private final int skipNumLines;
  private final String delimiter;

  public CSVSequenceRecordReader() {
    this(0, ",");
  }

  public CSVSequenceRecordReader(int skipNumLines) {
    this(skipNumLines, ",");
  }

  public CSVSequenceRecordReader(int skipNumLines, String delimiter) {
    if (skipNumLines < 0) {
      throw new IllegalArgumentException("skipNumLines must be >= 0: got " + skipNumLines);
    }
    this.skipNumLines = skipNumLines;
    this.delimiter = delimiter;
  }

  @Override
  public List<List<Writable>> sequenceRecord() {
    URI u = nextLocation();
    invokeListeners(u);
    LineSource src = new LineSource(List.of(locationOf(u)), StandardCharsets.UTF_8);
    try {
      src.openNext();
      return readSequence(src);
    } finally {
      src.close();
    }
  }

  private static LineSource.Location locationOf(URI u) {
    return LineSource.of(new org.datavec.api.split.CollectionInputSplit(List.of(u)), StandardCharsets.UTF_8)
        .locationAt(0);
  }

  private List<List<Writable>> readSequence(LineSource src) {
    for (int i = 0; i < skipNumLines && src.readLine() != null; i++) {
      // header lines
    }
    CsvParser parser = new CsvParser(delimiter, '"');
    List<List<Writable>> steps = new ArrayList<>();
    for (List<Writable> r; (r = parser.next(src)) != null; ) {
      if (!steps.isEmpty() && r.size() != steps.get(0).size()) {
        int expected = steps.get(0).size();
        String where = r.size() < expected ? src.name() + ":" + parser.endLine() + ":" + parser.endColumn()
            : ((PositionedText) r.get(expected)).where();
        throw new IllegalStateException(where + ": the time step has " + r.size() + " values where the sequence's first had "
            + expected + (r.size() < expected ? " (a short row)" : " (a long row)"));
      }
      steps.add(r);
    }
    return steps;
  }

  @Override
  public List<List<Writable>> sequenceRecord(URI uri, DataInputStream dataInputStream) throws IOException {
    String text = new String(dataInputStream.readAllBytes(), StandardCharsets.UTF_8);
    LineSource src = LineSource.ofText(uri == null ? "<stream>" : LineSource.nameOf(uri), text);
    src.openNext();
    return readSequence(src);
  }

  @Override
  public SequenceRecord nextSequence() {
    URI u = locations == null || next >= locations.length ? null : locations[next];
    return new org.datavec.api.records.impl.SequenceRecord(sequenceRecord(), new RecordMetaDataURI(u, getClass()));
  }

  @Override
  public SequenceRecord loadSequenceFromMetaData(RecordMetaData recordMetaData) throws IOException {
    throw refused("CSVSequenceRecordReader.loadSequenceFromMetaData", "sequences are not reloaded from metadata");
  }

  @Override
  public List<SequenceRecord> loadSequenceFromMetaData(List<RecordMetaData> recordMetaDatas) throws IOException {
    throw refused("CSVSequenceRecordReader.loadSequenceFromMetaData", "sequences are not reloaded from metadata");
  }
}
