package org.nd4j.common.resources;

import java.io.BufferedInputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * ND4J's Downloader: fetch a file (retrying, checking its MD5 when one is given) and unpack it. A file
 * already there with the right MD5 is not fetched again. Archives: {@code .zip} (java.util.zip); the
 * tar formats ND4J's ArchiveUtils also unpacks are refused by name. Errors say which URL and file.
 */
public final class Downloader {
  /** ND4J's defaults, in milliseconds. */
  public static final int DEFAULT_CONNECTION_TIMEOUT = 60000;
  public static final int DEFAULT_READ_TIMEOUT = 60000;

  private Downloader() {}

  public static void download(String name, URL url, File f, String targetMD5, int maxTries) throws IOException {
    download(name, url, f, targetMD5, maxTries, DEFAULT_CONNECTION_TIMEOUT, DEFAULT_READ_TIMEOUT);
  }

  /**
   * Downloads {@code url} to {@code f} unless {@code f} is there with MD5 {@code targetMD5} (null or
   * empty: any content); up to {@code maxTries} attempts.
   *
   * @throws IOException when every attempt failed (the last failure attached)
   */
  public static void download(String name, URL url, File f, String targetMD5, int maxTries, int connectionTimeout,
      int readTimeout) throws IOException {
    if (f.isFile() && checkMD5OfFile(targetMD5, f)) {
      return;
    }
    IOException last = null;
    for (int attempt = 1; attempt <= Math.max(1, maxTries); attempt++) {
      try {
        File parent = f.getAbsoluteFile().getParentFile();
        if (parent != null) {
          Files.createDirectories(parent.toPath());
        }
        URLConnection c = url.openConnection();
        c.setConnectTimeout(connectionTimeout);
        c.setReadTimeout(readTimeout);
        try (InputStream in = new BufferedInputStream(c.getInputStream()); OutputStream out = new FileOutputStream(f)) {
          in.transferTo(out);
        }
        if (checkMD5OfFile(targetMD5, f)) {
          return;
        }
        last = new IOException("Downloader: " + name + ": " + url + " gave a file whose MD5 is not " + targetMD5);
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IOException("Downloader: could not download " + name + " from " + url + " to " + f + " after "
        + Math.max(1, maxTries) + " attempts: " + last.getMessage(), last);
  }

  public static void downloadAndExtract(String name, URL url, File f, File extractToDir, String targetMD5,
      int maxTries) throws IOException {
    downloadAndExtract(name, url, f, extractToDir, targetMD5, maxTries, DEFAULT_CONNECTION_TIMEOUT, DEFAULT_READ_TIMEOUT);
  }

  /** {@link #download}, then unpacks the archive into {@code extractToDir}. */
  public static void downloadAndExtract(String name, URL url, File f, File extractToDir, String targetMD5,
      int maxTries, int connectionTimeout, int readTimeout) throws IOException {
    download(name, url, f, targetMD5, maxTries, connectionTimeout, readTimeout);
    String n = f.getName().toLowerCase(java.util.Locale.ROOT);
    if (!n.endsWith(".zip")) {
      throw new UnsupportedOperationException("ndrt's ND4J drop-in Downloader unpacks .zip archives only, not "
          + f.getName() + " (ND4J's ArchiveUtils also unpacks tar, tar.gz and gz)");
    }
    unzip(f, extractToDir);
  }

  private static void unzip(File zip, File dir) throws IOException {
    File root = dir.getCanonicalFile();
    Files.createDirectories(root.toPath());
    try (ZipInputStream in = new ZipInputStream(new BufferedInputStream(Files.newInputStream(zip.toPath())))) {
      for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
        File out = new File(root, e.getName()).getCanonicalFile();
        // An entry naming a place outside the target directory ("../x") is refused (zip slip).
        if (!out.toPath().startsWith(root.toPath())) {
          throw new IOException("Downloader: " + zip + ": entry " + e.getName() + " lies outside " + root);
        }
        if (e.isDirectory()) {
          Files.createDirectories(out.toPath());
        } else {
          Files.createDirectories(out.getParentFile().toPath());
          try (OutputStream o = new FileOutputStream(out)) {
            in.transferTo(o);
          }
        }
      }
    }
  }

  /** @return true if {@code file}'s MD5 (hex, any case) is {@code targetMD5}, or if no MD5 is given */
  public static boolean checkMD5OfFile(String targetMD5, File file) throws IOException {
    if (targetMD5 == null || targetMD5.isEmpty()) {
      return true;
    }
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is not available in this JVM", e);
    }
    try (InputStream in = Files.newInputStream(file.toPath())) {
      byte[] buf = new byte[1 << 16];
      for (int r; (r = in.read(buf)) > 0; ) {
        md.update(buf, 0, r);
      }
    }
    StringBuilder hex = new StringBuilder();
    for (byte b : md.digest()) {
      hex.append(String.format("%02x", b));
    }
    return hex.toString().equalsIgnoreCase(targetMD5);
  }
}
