package org.ndrt.datavec;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.datavec.api.split.InputSplit;
import org.datavec.api.split.StringSplit;

/**
 * The lines of a split's locations, one location at a time, with the location's name and the number of
 * the last line read, so readers can say where bad input is. A location is opened only when reached.
 */
public final class LineSource implements Closeable {
  /** One location: its name for messages, its URI (null for in-memory text), how to open it. */
  public static final class Location {
    final String name;
    final URI uri;
    final byte[] inMemory;

    Location(String name, URI uri, byte[] inMemory) {
      this.name = name;
      this.uri = uri;
      this.inMemory = inMemory;
    }

    InputStream open() throws IOException {
      if (inMemory != null) {
        return new ByteArrayInputStream(inMemory);
      }
      if ("file".equals(uri.getScheme())) {
        return new FileInputStream(new File(uri));
      }
      return uri.toURL().openStream();
    }
  }

  private final List<Location> locations;
  private final Charset charset;
  private int index = -1;
  private BufferedReader reader;
  private int lineNumber;

  public LineSource(List<Location> locations, Charset charset) {
    this.locations = locations;
    this.charset = charset;
  }

  /** The split's locations in its iteration order; a StringSplit is one in-memory location. */
  public static LineSource of(InputSplit split, Charset charset) {
    List<Location> out = new ArrayList<>();
    if (split instanceof StringSplit) {
      out.add(new Location("<StringSplit>", null, ((StringSplit) split).getData().getBytes(StandardCharsets.UTF_8)));
    } else {
      for (URI u : split.locations()) {
        out.add(new Location(nameOf(u), u, null));
      }
    }
    return new LineSource(out, charset);
  }

  /** The i-th location (for readers that read one location at a time). */
  public Location locationAt(int i) {
    return locations.get(i);
  }

  /** In-memory text as one location with the given name. */
  public static LineSource ofText(String name, String text) {
    List<Location> one = new ArrayList<>();
    one.add(new Location(name, null, text.getBytes(StandardCharsets.UTF_8)));
    return new LineSource(one, StandardCharsets.UTF_8);
  }

  public static String nameOf(URI u) {
    return "file".equals(u.getScheme()) ? new File(u).getPath() : u.toString();
  }

  /** Closes the current location and opens the next; false when there is none. */
  public boolean openNext() {
    closeCurrent();
    if (index + 1 >= locations.size()) {
      index = locations.size();
      return false;
    }
    index++;
    lineNumber = 0;
    Location loc = locations.get(index);
    try {
      reader = new BufferedReader(new InputStreamReader(loc.open(), charset));
    } catch (IOException e) {
      throw new UncheckedIOException(loc.name + ": cannot be opened: " + e.getMessage(), e);
    }
    return true;
  }

  public boolean isOpen() {
    return reader != null;
  }

  public boolean hasMoreLocations() {
    return index + 1 < locations.size();
  }

  /** The next line of the current location, or null at its end (the next location is not opened). */
  public String readLine() {
    if (reader == null) {
      return null;
    }
    try {
      String line = reader.readLine();
      if (line != null) {
        lineNumber++;
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(name() + ":" + (lineNumber + 1) + ": read failed: " + e.getMessage(), e);
    }
  }

  /** The 1-based number of the last line read from the current location. */
  public int lineNumber() {
    return lineNumber;
  }

  public String name() {
    return index >= 0 && index < locations.size() ? locations.get(index).name : "<no location>";
  }

  public URI uri() {
    return index >= 0 && index < locations.size() ? locations.get(index).uri : null;
  }

  /** Back before the first location. */
  public void rewind() {
    closeCurrent();
    index = -1;
  }

  private void closeCurrent() {
    if (reader != null) {
      try {
        reader.close();
      } catch (IOException e) {
        // Nothing was written: a failed close of a reader loses nothing.
      }
      reader = null;
    }
  }

  @Override
  public void close() {
    closeCurrent();
  }
}
