package org.deeplearning4j.ui.model.storage;

import java.io.File;
import org.deeplearning4j.core.storage.StatsStorage;

/**
 * Deeplearning4j's FileStatsStorage: org.ndrt.ui.FileStatsStorage (ndrt's own append-only text
 * format; an existing file's records are read, so a run reopens later in the UI).
 */
public class FileStatsStorage extends org.ndrt.ui.FileStatsStorage implements StatsStorage {
  public FileStatsStorage(File file) {
    super(file);
  }
}
