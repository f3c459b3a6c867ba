package org.ndrt.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** IDX reading and writing, checked against byte layouts built by hand from the format's definition. */
class IdxFileTest {
  @TempDir Path dir;

  /** Header bytes per the format: 00 00 type rank, then big-endian int32 dims. */
  private static byte[] header(int type, int... dims) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(0);
    b.write(0);
    b.write(type);
    b.write(dims.length);
    for (int d : dims) {
      b.write(d >>> 24);
      b.write(d >>> 16);
      b.write(d >>> 8);
      b.write(d);
    }
    return b.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] gzip(byte[] raw) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (OutputStream g = new GZIPOutputStream(b)) {
      g.write(raw);
    }
    return b.toByteArray();
  }

  private Path file(String name, byte[] content) throws IOException {
    return Files.write(dir.resolve(name), content);
  }

  @Test
  void unsignedBytesRoundTripAndExactLayout() throws IOException {
    byte[] data = new byte[3 * 4 * 5];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 37 + 200); // covers values >= 128
    }
    Path p = dir.resolve("u8-idx3-ubyte");
    IdxFile.writeUnsignedBytes(p, data, 3, 4, 5);
    assertArrayEquals(concat(header(0x08, 3, 4, 5), data), Files.readAllBytes(p));

    IdxFile.Array a = IdxFile.read(p);
    assertEquals(IdxFile.UBYTE, a.type());
    assertArrayEquals(new int[] {3, 4, 5}, a.dims());
    assertEquals(60, a.size());
    assertArrayEquals(data, a.bytes());
    for (int i = 0; i < data.length; i++) {
      assertEquals(data[i] & 0xff, a.getDouble(i), "unsigned value " + i);
      assertEquals(data[i] & 0xff, a.toIntArray()[i]);
    }
    int[] dims = new int[3];
    assertArrayEquals(data, IdxFile.readUnsignedBytes(p, dims));
    assertArrayEquals(new int[] {3, 4, 5}, dims);
    IOException wrongRank = assertThrows(IOException.class, () -> IdxFile.readUnsignedBytes(p, new int[1]));
    assertTrue(wrongRank.getMessage().contains("rank 3"), wrongRank.getMessage());
  }

  @Test
  void floatRoundTripIsBitExactAndBigEndian() throws IOException {
    float[] v = {1.0f, -2.5f, 0f, -0f, Float.MIN_VALUE, Float.MAX_VALUE, Float.NaN, (float) Math.PI};
    Path p = dir.resolve("f32.idx");
    IdxFile.writeFloats(p, v, 2, 4);
    byte[] raw = Files.readAllBytes(p);
    assertArrayEquals(header(0x0D, 2, 4), Arrays.copyOf(raw, 12));
    // 1.0f is 0x3F800000: big-endian puts 3F first.
    assertArrayEquals(new byte[] {0x3F, (byte) 0x80, 0, 0}, Arrays.copyOfRange(raw, 12, 16));
    assertEquals(12 + 4 * v.length, raw.length);

    IdxFile.Array a = IdxFile.read(p);
    assertEquals(IdxFile.FLOAT, a.type());
    assertArrayEquals(new int[] {2, 4}, a.dims());
    float[] back = a.toFloatArray();
    for (int i = 0; i < v.length; i++) {
      assertEquals(Float.floatToRawIntBits(v[i]), Float.floatToRawIntBits(back[i]), "element " + i);
    }
    assertThrows(IllegalStateException.class, a::bytes);
    assertThrows(IllegalStateException.class, a::toIntArray);
  }

  @Test
  void intAndDoubleRoundTrip() throws IOException {
    int[] ints = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 123456789};
    Path pi = dir.resolve("i32.idx");
    IdxFile.writeInts(pi, ints, 6);
    assertArrayEquals(concat(header(0x0C, 6), new byte[] {0, 0, 0, 0, 0, 0, 0, 1, -1, -1, -1, -1, 0x7f, -1, -1, -1,
        (byte) 0x80, 0, 0, 0, 0x07, 0x5B, (byte) 0xCD, 0x15}), Files.readAllBytes(pi));
    assertArrayEquals(ints, IdxFile.read(pi).toIntArray());

    double[] ds = {Math.E, -1e300, 5e-324};
    Path pd = dir.resolve("f64.idx");
    IdxFile.writeDoubles(pd, ds, 1, 3);
    IdxFile.Array a = IdxFile.read(pd);
    assertEquals(IdxFile.DOUBLE, a.type());
    assertArrayEquals(ds, a.toDoubleArray());
  }

  @Test
  void signedByteAndShortFilesWrittenByHand() throws IOException {
    Path pb = file("i8.idx", concat(header(0x09, 4), new byte[] {-128, -1, 0, 127}));
    assertArrayEquals(new double[] {-128, -1, 0, 127}, IdxFile.read(pb).toDoubleArray());
    assertArrayEquals(new int[] {-128, -1, 0, 127}, IdxFile.read(pb).toIntArray());

    // int16 big-endian: 0x0102 = 258, 0xFFFE = -2, 0x8000 = -32768.
    Path ps = file("i16.idx", concat(header(0x0B, 3), new byte[] {1, 2, -1, -2, (byte) 0x80, 0}));
    IdxFile.Array s = IdxFile.read(ps);
    assertEquals(IdxFile.SHORT, s.type());
    assertArrayEquals(new int[] {258, -2, -32768}, s.toIntArray());
  }

  @Test
  void rankZeroAndEmptyDimensions() throws IOException {
    Path scalar = file("scalar.idx", concat(header(0x08), new byte[] {42}));
    IdxFile.Array a = IdxFile.read(scalar);
    assertEquals(0, a.dims().length);
    assertEquals(1, a.size());
    assertEquals(42, a.getDouble(0));

    Path empty = dir.resolve("empty.idx");
    IdxFile.writeUnsignedBytes(empty, new byte[0], 0, 28, 28);
    assertArrayEquals(new int[] {0, 28, 28}, IdxFile.read(empty).dims());
  }

  @Test
  void gzipIsReadTransparently() throws IOException {
    byte[] data = {0, 1, 2, (byte) 255, 7, 8};
    byte[] raw = concat(header(0x08, 2, 3), data);
    // Compressed by the JDK directly (not by IdxFile), as the original MNIST .gz files are.
    Path gz = file("t10k-images-idx3-ubyte.gz", gzip(raw));
    IdxFile.Array a = IdxFile.read(gz);
    assertArrayEquals(new int[] {2, 3}, a.dims());
    assertArrayEquals(data, a.bytes());

    // Writing a .gz name compresses (gzip magic 1f 8b) and reads back the same.
    Path written = dir.resolve("w.idx.gz");
    IdxFile.writeUnsignedBytes(written, data, 6);
    byte[] bytes = Files.readAllBytes(written);
    assertEquals(0x1f, bytes[0] & 0xff);
    assertEquals(0x8b, bytes[1] & 0xff);
    assertArrayEquals(data, IdxFile.read(written).bytes());
  }

  private IOException readFails(String name, byte[] content) throws IOException {
    Path p = file(name, content);
    IOException e = assertThrows(IOException.class, () -> IdxFile.read(p));
    assertTrue(e.getMessage().contains(p.toString()), "the message names the file: " + e.getMessage());
    return e;
  }

  private static void assertMentions(IOException e, String what) {
    assertTrue(e.getMessage().contains(what), "expected '" + what + "' in: " + e.getMessage());
  }

  @Test
  void badMagicIsRejected() throws IOException {
    assertMentions(readFails("png.idx", new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 0}), "not an IDX file");
    assertMentions(readFails("short.idx", new byte[] {0, 0}), "not an IDX file");
    assertMentions(readFails("empty.idx", new byte[0]), "not an IDX file");
    assertMentions(readFails("type.idx", concat(header(0x0A, 1), new byte[] {1})), "unknown IDX type code 0x0A");
  }

  @Test
  void truncatedFilesAreRejected() throws IOException {
    byte[] full = concat(header(0x08, 10), new byte[10]);
    assertMentions(readFails("data.idx", Arrays.copyOf(full, full.length - 3)), "truncated IDX data");
    assertMentions(readFails("hdr.idx", Arrays.copyOf(header(0x08, 60000, 28, 28), 10)), "truncated IDX header");
    // The same inside gzip, and a gzip stream cut in the middle.
    assertMentions(readFails("data.idx.gz", gzip(Arrays.copyOf(full, full.length - 1))), "truncated IDX data");
    byte[] gz = gzip(concat(header(0x0D, 1000), new byte[4000]));
    assertMentions(readFails("cut.gz", Arrays.copyOf(gz, gz.length / 2)), "truncated gzip");
    // Dims promising far more than the file holds: rejected, not allocated.
    assertMentions(readFails("huge.idx", concat(header(0x0E, 20000, 10000), new byte[16])), "truncated IDX data");
    assertMentions(readFails("toobig.idx", header(0x0E, 60000, 60000)), "more than 2 GiB");
  }

  @Test
  void dimsSmallerThanTheFileAreRejected() throws IOException {
    IOException e = readFails("extra.idx", concat(header(0x0C, 2), new byte[12]));
    assertMentions(e, "4 bytes after the IDX data");
    assertMentions(e, "do not match the file size");
  }

  @Test
  void inconsistentArraysAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new IdxFile.Array(IdxFile.FLOAT, new int[] {2}, new byte[4]));
    assertThrows(IllegalArgumentException.class, () -> new IdxFile.Array(0x42, new int[] {1}, new byte[1]));
    assertThrows(IllegalArgumentException.class, () -> new IdxFile.Array(IdxFile.UBYTE, new int[] {-1}, new byte[0]));
    assertThrows(IllegalArgumentException.class, () -> IdxFile.writeUnsignedBytes(dir.resolve("x"), new byte[5], 2, 3));
    assertTrue(Files.notExists(dir.resolve("x")), "no file is left behind by a failed write");
  }
}
