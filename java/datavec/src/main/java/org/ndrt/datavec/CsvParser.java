package org.ndrt.datavec;

import java.util.ArrayList;
import java.util.List;
import org.datavec.api.writable.Writable;

/**
 * RFC 4180 records from a LineSource: values split at the delimiter (a character or a string); a
 * value that starts with the quote character (after blanks) runs to the matching quote, holding
 * delimiters, doubled quotes (one quote) and line breaks (as '\n'); characters after the closing quote
 * up to the delimiter are kept, as DataVec's parser keeps them. Empty lines between records are skipped.
 * Each value is a PositionedText naming its file, line and column.
 */
public final class CsvParser {
  private final String delimiter;
  private final char quote;
  private int endLine;
  private int endColumn;

  public CsvParser(String delimiter, char quote) {
    if (delimiter == null || delimiter.isEmpty()) {
      throw new IllegalArgumentException("CSV delimiter must not be empty");
    }
    this.delimiter = delimiter;
    this.quote = quote;
  }

  /** Line of the record's end (a quoted line break moves it past the start line). */
  public int endLine() {
    return endLine;
  }

  /** Column just past the record's last character on its end line. */
  public int endColumn() {
    return endColumn;
  }

  /** The next record of the source's current location, or null at its end. */
  public List<Writable> next(LineSource src) {
    String line;
    do {
      line = src.readLine();
      if (line == null) {
        return null;
      }
    } while (line.isEmpty());
    return parse(line, src);
  }

  /** One record starting at {@code line} (already read from src); src gives continuation lines. */
  public List<Writable> parse(String line, LineSource src) {
    List<Writable> out = new ArrayList<>();
    StringBuilder sb = new StringBuilder();
    int i = 0;
    while (true) {
      int fieldLine = src.lineNumber();
      int fieldCol = i + 1;
      int j = i;
      while (j < line.length() && (line.charAt(j) == ' ' || line.charAt(j) == '\t')) {
        j++;
      }
      if (j < line.length() && line.charAt(j) == quote) {
        int openLine = src.lineNumber();
        int openCol = j + 1;
        i = j + 1;
        while (true) {
          if (i >= line.length()) {  // the line ends inside quotes: the value goes on on the next line
            String more = src.readLine();
            if (more == null) {
              throw new IllegalStateException(src.name() + ":" + openLine + ":" + openCol
                  + ": the quote opened here is not closed before the end of the file");
            }
            sb.append('\n');
            line = more;
            i = 0;
            continue;
          }
          char c = line.charAt(i);
          if (c == quote) {
            if (i + 1 < line.length() && line.charAt(i + 1) == quote) {
              sb.append(quote);
              i += 2;
              continue;
            }
            i++;
            break;
          }
          sb.append(c);
          i++;
        }
      }
      int d = line.indexOf(delimiter, i);
      int end = d < 0 ? line.length() : d;
      sb.append(line, i, end);
      out.add(new PositionedText(sb.toString(), src.name(), fieldLine, fieldCol));
      sb.setLength(0);
      if (d < 0) {
        endLine = src.lineNumber();
        endColumn = line.length() + 1;
        return out;
      }
      i = d + delimiter.length();
    }
  }
}
