package org.ndrt;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deprecated Deeplearning4j forms that ndrt accepts so that DL4J programs move with their imports
 * only (string activations, {@code learningRate(..)} with an {@code Updater} enum, {@code
 * regularization(true)}, {@code iterations(1)}, ...): each says once per JVM, on one line on
 * {@code System.err}, which modern form to write instead. {@code -Dndrt.legacy.warnings=false}
 * silences them. Used by the training layer; not meant for programs.
 */
public final class LegacyApi {
  /** The system property that silences the warnings ({@code false}). */
  public static final String PROPERTY = "ndrt.legacy.warnings";

  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

  private LegacyApi() {}

  /**
   * Warns once per {@code used} (the deprecated form, e.g. {@code activation("relu")}) that
   * {@code modern} is the form to use.
   */
  public static void warn(String used, String modern) {
    if (!WARNED.add(used) || "false".equalsIgnoreCase(System.getProperty(PROPERTY))) {
      return;
    }
    System.err.println("ndrt: " + used + " is deprecated Deeplearning4j API; use " + modern);
  }

  /**
   * Warns once per {@code used} that it does nothing here ({@code why}) and can be left out, e.g.
   * {@code backprop(true)}.
   */
  public static void warnNoOp(String used, String why) {
    if (!WARNED.add(used) || "false".equalsIgnoreCase(System.getProperty(PROPERTY))) {
      return;
    }
    System.err.println("ndrt: " + used + " is deprecated Deeplearning4j API that does nothing here (" + why + "); leave it out");
  }
}
