package org.datavec.api.split;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A file, or the files under a directory (DataVec's FileSplit): recursive by default, kept to names that
 * end with one of the allowed formats ("csv" or ".csv", case-sensitive as DataVec's suffix filter is),
 * optionally shuffled by a Random, again at each reset().
 *
 * <p>Unlike DataVec, which lists in the file system's order, files come in sorted path order, so a run
 * repeats on another machine; the shuffle is DataVec's (Fisher-Yates over the iteration order). A
 * missing root is an IllegalArgumentException (DataVec creates a missing absolute path as an empty file).
 */
public class FileSplit extends BaseInputSplit {
  protected File rootDir;
  protected String[] allowFormat;
  protected boolean recursive;
  protected Random random;
  protected boolean randomize;

  protected FileSplit(File rootDir, String[] allowFormat, boolean recursive, Random random, boolean runMain) {
    this.rootDir = rootDir;
    this.allowFormat = allowFormat;
    this.recursive = recursive;
    this.random = random;
    this.randomize = random != null;
    if (runMain) {
      initialize();
    }
  }

  public FileSplit(File rootDir) {
    this(rootDir, null, true, null, true);
  }

  public FileSplit(File rootDir, Random rng) {
    this(rootDir, null, true, rng, true);
  }

  public FileSplit(File rootDir, String[] allowFormat) {
    this(rootDir, allowFormat, true, null, true);
  }

  public FileSplit(File rootDir, String[] allowFormat, Random rng) {
    this(rootDir, allowFormat, true, rng, true);
  }

  public FileSplit(File rootDir, String[] allowFormat, boolean recursive) {
    this(rootDir, allowFormat, recursive, null, true);
  }

  protected void initialize() {
    if (rootDir == null) {
      throw new IllegalArgumentException("File path must not be null");
    }
    if (!rootDir.exists()) {
      throw new IllegalArgumentException("No such file or directory: " + rootDir.getAbsolutePath());
    }
    uriStrings = new ArrayList<>();
    length = 0;
    iterationOrder = null;
    if (rootDir.isDirectory()) {
      List<Path> files = new ArrayList<>();
      listFiles(rootDir.toPath(), files);
      for (Path p : files) {
        uriStrings.add(p.toFile().toURI().toString());
      }
      length = files.size();
      if (randomize) {
        iterationOrder = new int[files.size()];
        for (int i = 0; i < iterationOrder.length; i++) {
          iterationOrder[i] = i;
        }
        shuffle(iterationOrder, random);
      }
    } else {
      // DataVec's length for a single file is its size in bytes.
      uriStrings.add(rootDir.toURI().toString());
      length = rootDir.length();
    }
  }

  private void listFiles(Path dir, List<Path> out) {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      stream.forEach(entries::add);
    } catch (IOException e) {
      throw new UncheckedIOException("FileSplit: cannot list " + dir, e);
    }
    entries.sort(null);
    for (Path p : entries) {
      if (Files.isDirectory(p)) {
        if (recursive) {
          listFiles(p, out);
        }
      } else if (accepted(p.getFileName().toString())) {
        out.add(p);
      }
    }
  }

  private boolean accepted(String name) {
    if (allowFormat == null) {
      return true;
    }
    for (String f : allowFormat) {
      if (name.endsWith(f)) {
        return true;
      }
    }
    return false;
  }

  static void shuffle(int[] a, Random rng) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  @Override
  public void updateSplitLocations(boolean reset) {
    if (reset) {
      initialize();
    }
  }

  @Override
  public void reset() {
    if (randomize) {
      shuffle(iterationOrder, random);
    }
  }

  @Override
  public boolean resetSupported() {
    return true;
  }

  public File getRootDir() {
    return rootDir;
  }

  @Override
  public String toString() {
    return "FileSplit(" + rootDir + ", " + uriStrings.size() + " files)";
  }
}
