package org.ndrt.datavec.probes;

import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.datavec.api.io.labels.ParentPathLabelGenerator;
import org.datavec.api.split.FileSplit;
import org.datavec.api.writable.NDArrayWritable;
import org.datavec.api.writable.Writable;
import org.datavec.image.loader.NativeImageLoader;
import org.datavec.image.recordreader.ImageRecordReader;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * PNG images through NativeImageLoader and ImageRecordReader, printed: run against DataVec (OpenCV) and
 * against ndrt-datavec (javax.imageio), outputs compared. PNG only: JPEG decoders differ by a level or two.
 */
public class ImageProbe {
  static BufferedImage image(Random rnd, int w, int h, int type) {
    BufferedImage img = new BufferedImage(w, h, type);
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        img.setRGB(x, y, rnd.nextInt(1 << 24));
      }
    }
    return img;
  }

  static void print(String tag, INDArray a) {
    StringBuilder sb = new StringBuilder(tag).append(" shape=").append(Arrays.toString(a.shape())).append(" values=");
    INDArray flat = a.dup('c').reshape(a.length());
    for (long i = 0; i < flat.length(); i++) {
      sb.append((int) Math.round(flat.getDouble(i))).append(' ');
    }
    System.out.println(sb);
  }

  public static void main(String[] args) throws Exception {
    Random rnd = new Random(11);
    Path dir = Files.createTempDirectory("imgprobe");
    File rgb = dir.resolve("rgb.png").toFile();
    ImageIO.write(image(rnd, 7, 5, BufferedImage.TYPE_INT_RGB), "png", rgb);
    File gray = dir.resolve("gray.png").toFile();
    ImageIO.write(image(rnd, 6, 4, BufferedImage.TYPE_BYTE_GRAY), "png", gray);
    print("rgb native", new NativeImageLoader().asMatrix(rgb));
    print("rgb as gray", new NativeImageLoader(5, 7, 1).asMatrix(rgb));
    print("gray native", new NativeImageLoader().asMatrix(gray));
    print("gray as bgr", new NativeImageLoader(4, 6, 3).asMatrix(gray));
    print("rgb down 3x4", new NativeImageLoader(3, 4, 3).asMatrix(rgb));
    print("rgb up 9x13", new NativeImageLoader(9, 13, 3).asMatrix(rgb));
    print("gray up 8x12", new NativeImageLoader(8, 12, 1).asMatrix(gray));
    print("rgb nhwc", new NativeImageLoader(5, 7, 3).asMatrix(rgb, false));

    for (String c : new String[] {"zebra", "ant", "moth"}) {
      Files.createDirectories(dir.resolve("img").resolve(c));
      for (int i = 0; i < 2; i++) {
        ImageIO.write(image(rnd, 5, 4, BufferedImage.TYPE_INT_RGB), "png", dir.resolve("img/" + c + "/" + i + ".png").toFile());
      }
    }
    ImageRecordReader rr = new ImageRecordReader(4, 5, 3, new ParentPathLabelGenerator());
    rr.initialize(new FileSplit(dir.resolve("img").toFile(), NativeImageLoader.ALLOWED_FORMATS));
    System.out.println("labels=" + rr.getLabels());
    List<String> lines = new ArrayList<>();
    while (rr.hasNext()) {
      List<Writable> r = rr.next();
      File f = rr.getCurrentFile();
      INDArray a = ((NDArrayWritable) r.get(0)).get();
      lines.add(f.getParentFile().getName() + "/" + f.getName() + " label=" + r.get(1) + " shape="
          + Arrays.toString(a.shape()) + " sum=" + a.sumNumber().longValue());
    }
    lines.sort(null);  // DataVec lists files in the file system's order; the probe compares the set
    lines.forEach(System.out::println);
  }
}
