package org.ndrt.datavec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.datavec.api.io.labels.ParentPathLabelGenerator;
import org.datavec.api.split.FileSplit;
import org.datavec.api.writable.NDArrayWritable;
import org.datavec.api.writable.Writable;
import org.datavec.image.loader.NativeImageLoader;
import org.datavec.image.recordreader.ImageRecordReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * NativeImageLoader and ImageRecordReader on PNG and JPEG files the test writes with javax.imageio,
 * checked pixel by pixel against what the test computes: OpenCV's channel order (blue, green, red),
 * gray conversion, and bilinear resizing against a float reference within one level.
 */
class ImageReadersTest {
  @TempDir Path dir;
  private final Random rnd = new Random(7);

  private BufferedImage image(int w, int h, int type) {
    BufferedImage img = new BufferedImage(w, h, type);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        img.setRGB(x, y, rnd.nextInt(1 << 24));
      }
    }
    return img;
  }

  private File save(BufferedImage img, String format, String name) throws IOException {
    File f = dir.resolve(name).toFile();
    f.getParentFile().mkdirs();
    assertTrue(ImageIO.write(img, format, f));
    return f;
  }

  /** [h][w][3] BGR or [h][w][1] gray of an image as read back by ImageIO (the test's own reading). */
  private static int[][][] expected(File f) throws IOException {
    BufferedImage img = ImageIO.read(f);
    boolean gray = img.getType() == BufferedImage.TYPE_BYTE_GRAY;
    int[][][] out = new int[img.getHeight()][img.getWidth()][gray ? 1 : 3];
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        if (gray) {
          out[y][x][0] = img.getRaster().getSample(x, y, 0);
        } else {
          int rgb = img.getRGB(x, y);
          out[y][x] = new int[] {rgb & 0xFF, (rgb >> 8) & 0xFF, (rgb >> 16) & 0xFF};
        }
      }
    }
    return out;
  }

  private static void assertPixels(int[][][] want, INDArray got, double tol) {
    int h = want.length;
    int w = want[0].length;
    int c = want[0][0].length;
    assertArrayEquals(new long[] {1, c, h, w}, got.shape());
    for (int k = 0; k < c; k++) {
      for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
          double v = got.getDouble(0, k, y, x);
          if (Math.abs(v - want[y][x][k]) > tol) {
            throw new AssertionError("channel " + k + " y " + y + " x " + x + ": want " + want[y][x][k] + ", got " + v);
          }
        }
      }
    }
  }

  @Test
  void pngAndJpegRgbAndGrayAsDecoded() throws Exception {
    File rgbPng = save(image(13, 9, BufferedImage.TYPE_INT_RGB), "png", "rgb.png");
    File grayPng = save(image(7, 11, BufferedImage.TYPE_BYTE_GRAY), "png", "gray.png");
    File rgbJpg = save(image(16, 8, BufferedImage.TYPE_INT_RGB), "jpg", "rgb.jpg");
    File grayJpg = save(image(8, 16, BufferedImage.TYPE_BYTE_GRAY), "jpg", "gray.jpg");
    NativeImageLoader loader = new NativeImageLoader();
    for (File f : new File[] {rgbPng, grayPng, rgbJpg, grayJpg}) {
      assertPixels(expected(f), loader.asMatrix(f), 0);
    }
    try (var in = Files.newInputStream(rgbPng.toPath())) {
      assertPixels(expected(rgbPng), loader.asMatrix(in), 0);
    }
  }

  @Test
  void channelConversions() throws Exception {
    File rgb = save(image(6, 5, BufferedImage.TYPE_INT_RGB), "png", "c.png");
    int[][][] bgr = expected(rgb);
    int[][][] gray = new int[5][6][1];
    for (int y = 0; y < 5; y++) {
      for (int x = 0; x < 6; x++) {
        gray[y][x][0] = (int) Math.round(0.114 * bgr[y][x][0] + 0.587 * bgr[y][x][1] + 0.299 * bgr[y][x][2]);
      }
    }
    assertPixels(gray, new NativeImageLoader(5, 6, 1).asMatrix(rgb), 1);
    File g = save(image(4, 3, BufferedImage.TYPE_BYTE_GRAY), "png", "g.png");
    int[][][] one = expected(g);
    int[][][] three = new int[3][4][3];
    for (int y = 0; y < 3; y++) {
      for (int x = 0; x < 4; x++) {
        three[y][x] = new int[] {one[y][x][0], one[y][x][0], one[y][x][0]};
      }
    }
    assertPixels(three, new NativeImageLoader(3, 4, 3).asMatrix(g), 0);
  }

  /** Bilinear with pixel centres aligned and edges clamped, in doubles. */
  private static int[][][] resized(int[][][] src, int h, int w) {
    int sh = src.length;
    int sw = src[0].length;
    int c = src[0][0].length;
    int[][][] out = new int[h][w][c];
    for (int y = 0; y < h; y++) {
      double fy = Math.min(Math.max((y + 0.5) * sh / h - 0.5, 0), sh - 1);
      int y0 = (int) Math.floor(fy);
      int y1 = Math.min(y0 + 1, sh - 1);
      double wy = fy - y0;
      for (int x = 0; x < w; x++) {
        double fx = Math.min(Math.max((x + 0.5) * sw / w - 0.5, 0), sw - 1);
        int x0 = (int) Math.floor(fx);
        int x1 = Math.min(x0 + 1, sw - 1);
        double wx = fx - x0;
        for (int k = 0; k < c; k++) {
          double top = src[y0][x0][k] * (1 - wx) + src[y0][x1][k] * wx;
          double bot = src[y1][x0][k] * (1 - wx) + src[y1][x1][k] * wx;
          out[y][x][k] = (int) Math.round(top * (1 - wy) + bot * wy);
        }
      }
    }
    return out;
  }

  @Test
  void resizeUpAndDown() throws Exception {
    File f = save(image(10, 7, BufferedImage.TYPE_INT_RGB), "png", "r.png");
    int[][][] src = expected(f);
    assertPixels(resized(src, 4, 5), new NativeImageLoader(4, 5, 3).asMatrix(f), 1);
    assertPixels(resized(src, 15, 23), new NativeImageLoader(15, 23, 3).asMatrix(f), 1);
    INDArray nhwc = new NativeImageLoader(4, 5, 3).asMatrix(f, false);
    assertArrayEquals(new long[] {1, 4, 5, 3}, nhwc.shape());
    assertEquals(1 * 3 * 4 * 5, new NativeImageLoader(4, 5, 3).asRowVector(f).length());
  }

  @Test
  void imageRecordReaderLabelsFromParentDirectories() throws Exception {
    String[] classes = {"dog", "cat", "bird"};
    for (String c : classes) {
      for (int i = 0; i < 2; i++) {
        save(image(9, 6, BufferedImage.TYPE_INT_RGB), "png", "img/" + c + "/" + i + ".png");
      }
    }
    Files.writeString(dir.resolve("img/cat/notes.txt"), "not an image");
    ImageRecordReader rr = new ImageRecordReader(6, 9, 3, new ParentPathLabelGenerator());
    rr.initialize(new FileSplit(dir.resolve("img").toFile(), NativeImageLoader.ALLOWED_FORMATS, new Random(3)));
    assertEquals(List.of("bird", "cat", "dog"), rr.getLabels());
    int n = 0;
    while (rr.hasNext()) {
      List<Writable> r = rr.next();
      File f = rr.getCurrentFile();
      assertEquals(rr.getLabels().indexOf(f.getParentFile().getName()), r.get(1).toInt());
      assertPixels(expected(f), ((NDArrayWritable) r.get(0)).get(), 0);
      n++;
    }
    assertEquals(6, n);
    rr.reset();
    List<List<Writable>> batch = rr.next(4);
    assertEquals(1, batch.size());
    INDArray features = ((NDArrayWritable) batch.get(0).get(0)).get();
    INDArray labels = ((NDArrayWritable) batch.get(0).get(1)).get();
    assertArrayEquals(new long[] {4, 3, 6, 9}, features.shape());
    assertArrayEquals(new long[] {4, 3}, labels.shape());
    assertEquals(4.0, labels.sumNumber().doubleValue());
    assertEquals(2, rr.next(4).get(0).get(0) instanceof NDArrayWritable ? 2 : -1);
    assertFalse(rr.hasNext());
  }

  @Test
  void unreadableImageNamesTheFile() throws Exception {
    File bad = dir.resolve("broken.png").toFile();
    Files.writeString(bad.toPath(), "this is not a PNG");
    IOException e = assertThrows(IOException.class, () -> new NativeImageLoader(4, 4, 3).asMatrix(bad));
    assertTrue(e.getMessage().startsWith(bad.getPath() + ": "), e.getMessage());
    File empty = dir.resolve("empty.jpg").toFile();
    Files.write(empty.toPath(), new byte[0]);
    assertThrows(IOException.class, () -> new NativeImageLoader().asMatrix(empty));
    ImageRecordReader rr = new ImageRecordReader(4, 4, 3);
    rr.initialize(new FileSplit(bad));
    RuntimeException r = assertThrows(RuntimeException.class, rr::next);
    assertTrue(r.getMessage().contains(bad.getPath()), r.getMessage());
  }
}
