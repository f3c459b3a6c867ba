package org.ndrt.ui;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

/**
 * A {@link StatsStorage} kept in a file, to view a run later: an append-only text file, the line
 * {@value #HEADER} then one record per line (compact JSON, {@link StatsRecord}). Opening an existing
 * file reads its records (a run's stats reopen in the dashboard); new records are appended and
 * flushed one by one, so a crash loses at most the line being written (a torn last line is skipped
 * on reading). Not Deeplearning4j's binary format: its files are refused by name.
 */
public class FileStatsStorage extends InMemoryStatsStorage {
  public static final String HEADER = "ndrt-stats 1";
  private final File file;
  private Writer out;

  /** Opens (reading what it holds) or creates {@code file}. */
  public FileStatsStorage(File file) {
    if (file == null) {
      throw new IllegalArgumentException("FileStatsStorage: the file must not be null");
    }
    this.file = file;
    try {
      boolean fresh = !file.exists() || file.length() == 0;
      if (!fresh) {
        read();
      }
      out = Files.newBufferedWriter(file.toPath(), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      if (fresh) {
        out.write(HEADER + "\n");
        out.flush();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("FileStatsStorage: cannot open " + file + ": " + e.getMessage(), e);
    }
  }

  private void read() throws IOException {
    try (BufferedReader r = Files.newBufferedReader(file.toPath(), StandardCharsets.ISO_8859_1)) {
      String first = r.readLine();
      if (!HEADER.equals(first)) {
        throw new IllegalArgumentException("FileStatsStorage: " + file + " is not an ndrt stats file (it does not"
            + " start with \"" + HEADER + "\"; files of Deeplearning4j's own FileStatsStorage are not read)");
      }
    }
    try (BufferedReader r = Files.newBufferedReader(file.toPath(), StandardCharsets.UTF_8)) {
      r.readLine();
      String line;
      int n = 1;
      while ((line = r.readLine()) != null) {
        ++n;
        if (line.isEmpty()) {
          continue;
        }
        StatsRecord rec;
        try {
          rec = StatsRecord.parse(line);
        } catch (IllegalArgumentException e) {
          if (r.readLine() == null) {
            break;  // a torn last line (the writer was killed mid-line): what came before stands
          }
          throw new IllegalArgumentException("FileStatsStorage: " + file + " line " + n + ": " + e.getMessage(), e);
        }
        super.put(rec);
      }
    }
  }

  /** The file. */
  public File getFile() {
    return file;
  }

  @Override
  public void put(StatsRecord r) {
    synchronized (this) {
      if (out == null) {
        throw new IllegalStateException("FileStatsStorage: " + file + " is closed");
      }
      super.put(r);
      try {
        out.write(r.json());
        out.write('\n');
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("FileStatsStorage: writing " + file + " failed: " + e.getMessage(), e);
      }
    }
  }

  @Override
  public synchronized void close() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException("FileStatsStorage: closing " + file + " failed: " + e.getMessage(), e);
      } finally {
        out = null;
      }
    }
  }
}
