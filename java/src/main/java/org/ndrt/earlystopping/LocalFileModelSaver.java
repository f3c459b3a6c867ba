package org.ndrt.earlystopping;

import java.io.File;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.ndrt.nn.Model;

/**
 * Saves the best and latest models as {@code bestModel.zip} and {@code latestModel.zip} in a
 * directory ({@code Model.save} / {@code Model.load}: a MultiLayerNetwork or a ComputationGraph,
 * loaded back as the kind that was saved), so they survive the process.
 *
 * <p>Each save writes a temporary file and then renames it over the old one, so a crash while saving
 * leaves the previous model intact. {@link #getBestModel()} and {@link #getLatestModel()} load a new
 * network on every call from whatever file is in the directory, also one from an earlier run; the
 * caller closes it.
 */
public final class LocalFileModelSaver implements EarlyStoppingModelSaver {
  /** File name of the best model in the directory. */
  public static final String BEST_MODEL = "bestModel.zip";
  /** File name of the latest model in the directory. */
  public static final String LATEST_MODEL = "latestModel.zip";

  private final File dir;

  /**
   * @param dir the directory's path; created (with its parents) if missing
   * @throws IllegalArgumentException if {@code dir} is null or exists and is not a directory
   * @throws java.io.UncheckedIOException if it cannot be created
   */
  public LocalFileModelSaver(String dir) {
    this(dir == null ? null : new File(dir));
  }

  /**
   * @param dir the directory; created (with its parents) if missing
   * @throws IllegalArgumentException if {@code dir} is null or exists and is not a directory
   * @throws java.io.UncheckedIOException if it cannot be created
   */
  public LocalFileModelSaver(File dir) {
    if (dir == null) {
      throw new IllegalArgumentException("LocalFileModelSaver: the directory must not be null");
    }
    if (dir.exists() && !dir.isDirectory()) {
      throw new IllegalArgumentException("LocalFileModelSaver: " + dir + " exists and is not a directory");
    }
    try {
      Files.createDirectories(dir.toPath());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("LocalFileModelSaver: cannot create " + dir, e);
    }
    this.dir = dir;
  }

  /** @return the directory the models are saved in */
  public File getDirectory() {
    return dir;
  }

  @Override
  public void saveBestModel(Model net, double score) throws IOException {
    save(net, BEST_MODEL);
  }

  @Override
  public void saveLatestModel(Model net, double score) throws IOException {
    save(net, LATEST_MODEL);
  }

  /** A new copy loaded from {@value #BEST_MODEL}; the cast to the caller's type is unchecked (see {@link EarlyStoppingModelSaver}). */
  @Override
  @SuppressWarnings("unchecked")
  public <T extends Model> T getBestModel() throws IOException {
    return (T) load(BEST_MODEL);
  }

  /** A new copy loaded from {@value #LATEST_MODEL}; the cast to the caller's type is unchecked. */
  @Override
  @SuppressWarnings("unchecked")
  public <T extends Model> T getLatestModel() throws IOException {
    return (T) load(LATEST_MODEL);
  }

  private void save(Model net, String name) throws IOException {
    Path target = dir.toPath().resolve(name);
    Path tmp = dir.toPath().resolve(name + ".tmp");
    try {
      net.save(tmp.toFile());
      try {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(tmp); // a half-written file is no model
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private Model load(String name) throws IOException {
    File f = new File(dir, name);
    return f.isFile() ? Model.load(f) : null;
  }

  @Override
  public String toString() {
    return "LocalFileModelSaver(" + dir + ")";
  }
}
