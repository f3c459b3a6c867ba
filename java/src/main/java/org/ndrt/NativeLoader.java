package org.ndrt;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads the native libraries (libndrt, the JNI library, and beside them libndrt_cuda when the build
 * has it) once per class loader, before the first native call. In order:
 *
 * <ol>
 *   <li>the system property {@code ndrt.library.path}: directories (separated by
 *       {@link File#pathSeparator}) holding {@code libndrt.so[.0]} and {@code libndrt_jni.so};
 *   <li>the copies inside the jar ({@code /org/ndrt/native/<os>-<arch>/}), extracted to a fresh
 *       temporary folder (deleted when the JVM exits);
 *   <li>{@link System#loadLibrary} ({@code java.library.path} and the system's library path).
 * </ol>
 *
 * libndrt finds libndrt_cuda.so in its own folder, so the CUDA module travels with it. Where the
 * libraries came from is in the system property {@code ndrt.library.loaded} afterwards.
 */
public final class NativeLoader {
  private NativeLoader() {}

  /** The jar's folder of native libraries for this platform. */
  static final String RESOURCE_DIR = "/org/ndrt/native/" + platform() + "/";

  private static boolean loaded;

  /** Loads the libraries if they are not loaded yet (thread-safe, idempotent). */
  public static synchronized void load() {
    if (loaded) {
      return;
    }
    List<String> tried = new ArrayList<>();
    String where = null;
    String path = System.getProperty("ndrt.library.path");
    if (path != null && !path.isBlank()) {
      where = loadFromPath(path, tried);
      if (where == null) {
        throw new UnsatisfiedLinkError("ndrt: -Dndrt.library.path=" + path
            + " does not hold libndrt.so and libndrt_jni.so (tried " + tried + ")");
      }
    }
    if (where == null) {
      where = loadFromJar(tried);
    }
    if (where == null) {
      try {
        System.loadLibrary("ndrt");
      } catch (UnsatisfiedLinkError e) {
        tried.add("System.loadLibrary(ndrt): " + e.getMessage());
        // libndrt_jni may still find libndrt through the dynamic linker's path
      }
      try {
        System.loadLibrary("ndrt_jni");
      } catch (UnsatisfiedLinkError e) {
        UnsatisfiedLinkError err = new UnsatisfiedLinkError(
            "ndrt: could not load the native libraries; tried " + tried + " and System.loadLibrary"
                + "(ndrt_jni): " + e.getMessage()
                + ". Set -Dndrt.library.path to the folder holding libndrt.so and libndrt_jni.so.");
        err.initCause(e);
        throw err;
      }
      where = "java.library.path";
    }
    System.setProperty("ndrt.library.loaded", where);
    loaded = true;
    long abi = org.ndrt.capi.NdrtC.abi_version();
    if (abi != org.ndrt.capi.NdrtCConstants.NDRT_ABI_VERSION) {
      throw new UnsatisfiedLinkError("ndrt: loaded libndrt has ABI version " + abi + " but these classes were built for "
          + org.ndrt.capi.NdrtCConstants.NDRT_ABI_VERSION + " (from " + where + ")");
    }
  }

  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = "linux";
    } else if (os.startsWith("mac")) {
      os = "darwin";
    } else if (os.startsWith("windows")) {
      os = "windows";
    }
    if (arch.equals("amd64") || arch.equals("x86_64")) {
      arch = "x86_64";
    } else if (arch.equals("aarch64") || arch.equals("arm64")) {
      arch = "aarch64";
    }
    return os + "-" + arch;
  }

  private static String loadFromPath(String path, List<String> tried) {
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path d = Path.of(dir);
      Path core = firstExisting(d, "libndrt.so.0", "libndrt.so");
      if (core != null) {
        System.load(core.toAbsolutePath().toString());
        break;
      }
      tried.add(d.resolve("libndrt.so").toString());
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path jni = Path.of(dir).resolve("libndrt_jni.so");
      if (Files.isRegularFile(jni)) {
        System.load(jni.toAbsolutePath().toString());
        return path;
      }
      tried.add(jni.toString());
    }
    return null;
  }

  private static Path firstExisting(Path dir, String... names) {
    for (String n : names) {
      Path p = dir.resolve(n);
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    return null;
  }

  /**
   * The jar lists its libraries in {@code native.list}: one per line, "load NAME" (System.load in
   * this order) or "extract NAME" (only placed beside the others, e.g. the CUDA module that libndrt
   * opens itself when a CUDA device is first used).
   */
  private static String loadFromJar(List<String> tried) {
    String listing = RESOURCE_DIR + "native.list";
    List<String[]> entries = new ArrayList<>();
    try (InputStream in = NativeLoader.class.getResourceAsStream(listing)) {
      if (in == null) {
        tried.add("jar resource " + listing + " (absent)");
        return null;
      }
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        line = line.trim();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String[] parts = line.split("\\s+", 2);
        if (parts.length == 2) {
          entries.add(parts);
        }
      }
    } catch (IOException e) {
      tried.add("jar resource " + listing + ": " + e);
      return null;
    }
    Path dir;
    try {
      dir = Files.createTempDirectory("ndrt-native-");
      dir.toFile().deleteOnExit(); // registered first: deleted last, once empty
      for (String[] e : entries) {
        Path target = dir.resolve(e[1]);
        try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE_DIR + e[1])) {
          if (in == null) {
            throw new IOException("the jar lists " + e[1] + " but does not hold it");
          }
          Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        target.toFile().deleteOnExit();
      }
    } catch (IOException e) {
      tried.add("extracting the jar's libraries: " + e);
      return null;
    }
    for (String[] e : entries) {
      if (e[0].equals("load")) {
        System.load(dir.resolve(e[1]).toString());
      }
    }
    return dir.toString();
  }
}
