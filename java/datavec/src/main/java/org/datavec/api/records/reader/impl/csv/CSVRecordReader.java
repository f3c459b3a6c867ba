package org.datavec.api.records.reader.impl.csv;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import org.datavec.api.conf.Configuration;
import org.datavec.api.records.reader.impl.LineRecordReader;
import org.datavec.api.split.InputSplit;
import org.datavec.api.writable.Writable;
import org.ndrt.datavec.CsvParser;
import org.ndrt.datavec.LineSource;
import org.ndrt.datavec.PositionedText;

/**
 * Comma-separated records (DataVec's CSVRecordReader): each value a Text, as in DataVec. The first
 * skipNumLines lines of every location are skipped. Quoting is RFC 4180's (see CsvParser): quoted values
 * hold delimiters, doubled quotes and line breaks; DataVec's parser takes one line per record and fails
 * on a quoted line break. Empty lines are skipped (DataVec makes them a record of one empty Text).
 *
 * <p>Every record must have as many values as the reader's first: a short or long row is an
 * IllegalStateException naming file, line and column, where DataVec passes ragged rows on. A value
 * that is not a number, converted with toDouble() and friends, is a NumberFormatException naming its
 * file, line and column. A delimiter may be a string of several characters (DataVec refuses those).
 */
public class CSVRecordReader extends LineRecordReader {
  private static final long serialVersionUID = 1L;
  protected int skipNumLines;
  public static final char DEFAULT_DELIMITER = ',';
  public static final char DEFAULT_QUOTE = '"';
  public static final String SKIP_NUM_LINES = NAME_SPACE + ".skipnumlines";
  public static final String DELIMITER = NAME_SPACE + ".delimiter";
  public static final String QUOTE = NAME_SPACE + ".quote";
  private String delimiter;
  private char quote;
  private transient CsvParser parser;
  private transient int expectedValues = -1;

  public CSVRecordReader(int skipNumLines) {
    this(skipNumLines, DEFAULT_DELIMITER);
  }

  public CSVRecordReader(char delimiter) {
    this(0, delimiter);
  }

  public CSVRecordReader(int skipNumLines, char delimiter) {
    this(skipNumLines, delimiter, DEFAULT_QUOTE);
  }

  public CSVRecordReader(int skipNumLines, String delimiter) {
    this(skipNumLines, delimiter, String.valueOf(DEFAULT_QUOTE));
  }

  public CSVRecordReader(int skipNumLines, char delimiter, char quote) {
    this(skipNumLines, String.valueOf(delimiter), String.valueOf(quote));
  }

  public CSVRecordReader(int skipNumLines, String delimiter, String quote) {
    if (skipNumLines < 0) {
      throw new IllegalArgumentException("skipNumLines must be >= 0: got " + skipNumLines);
    }
    if (quote == null || quote.length() != 1) {
      throw new IllegalArgumentException("the quote must be one character: got \"" + quote + "\"");
    }
    this.skipNumLines = skipNumLines;
    this.delimiter = delimiter;
    this.quote = quote.charAt(0);
    this.parser = new CsvParser(delimiter, this.quote);
  }

  public CSVRecordReader() {
    this(0, DEFAULT_DELIMITER);
  }

  @Override
  public void initialize(Configuration conf, InputSplit split) throws IOException, InterruptedException {
    super.initialize(conf, split);
    skipNumLines = conf.getInt(SKIP_NUM_LINES, skipNumLines);
    String d = conf.get(DELIMITER);
    if (d != null && !d.isEmpty()) {
      delimiter = d;
    }
    quote = conf.getChar(QUOTE, quote);
    parser = new CsvParser(delimiter, quote);
    expectedValues = -1;
  }

  @Override
  protected void onLocationOpen(URI location) {
    for (int i = 0; i < skipNumLines && source.readLine() != null; i++) {
      // the header lines of this location
    }
  }

  @Override
  protected List<Writable> readRecord(LineSource src) {
    List<Writable> r = parser.next(src);
    if (r != null) {
      check(r, src.name());
    }
    return r;
  }

  private void check(List<Writable> r, String file) {
    if (expectedValues < 0) {
      expectedValues = r.size();
      return;
    }
    if (r.size() < expectedValues) {
      throw new IllegalStateException(file + ":" + parser.endLine() + ":" + parser.endColumn() + ": the record has "
          + r.size() + " values where the first record had " + expectedValues + " (a short row)");
    }
    if (r.size() > expectedValues) {
      PositionedText extra = (PositionedText) r.get(expectedValues);
      throw new IllegalStateException(extra.where() + ": the record has " + r.size()
          + " values where the first record had " + expectedValues + " (a long row)");
    }
  }

  @Override
  public boolean batchesSupported() {
    return true;
  }

  @Override
  public List<List<Writable>> next(int num) {
    List<List<Writable>> out = new ArrayList<>(Math.min(num, 10000));
    while (out.size() < num && hasNext()) {
      out.add(next());
    }
    return out;
  }

  @Override
  public void reset() {
    super.reset();
    expectedValues = -1;
  }

  /** One record from a stream: the skipped lines, then the first record, no count check. */
  @Override
  public List<Writable> record(URI uri, DataInputStream dataInputStream) throws IOException {
    BufferedReader br = new BufferedReader(new InputStreamReader(dataInputStream, Charset.forName(charset)));
    StringBuilder text = new StringBuilder();
    for (String line; (line = br.readLine()) != null; ) {
      text.append(line).append('\n');
    }
    LineSource src = LineSource.ofText(uri == null ? "<stream>" : LineSource.nameOf(uri), text.toString());
    src.openNext();
    for (int i = 0; i < skipNumLines && src.readLine() != null; i++) {
      // header lines
    }
    return parser.next(src);
  }
}
