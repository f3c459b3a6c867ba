package org.ndrt.dl4j.probes;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVSequenceRecordReader;
import org.datavec.api.split.FileSplit;
import org.datavec.api.split.NumberedFileInputSplit;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.deeplearning4j.datasets.datavec.SequenceRecordReaderDataSetIterator;
import org.deeplearning4j.datasets.datavec.SequenceRecordReaderDataSetIterator.AlignmentMode;
import org.deeplearning4j.datasets.iterator.impl.IrisDataSetIterator;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.dataset.api.iterator.DataSetIterator;

/**
 * Minibatches of the record-reader iterators (CSV files written here) and of IrisDataSetIterator,
 * printed value by value: run against Deeplearning4j 1.0.0-M2.1 and against ndrt-dl4j, outputs compared.
 */
public class DataIteratorProbe {
  static String arr(INDArray a) {
    if (a == null) {
      return "null";
    }
    INDArray c = a.dup('c');
    double[] v = c.reshape(c.length()).toDoubleVector();
    StringBuilder sb = new StringBuilder(Arrays.toString(a.shape())).append(' ').append(a.dataType()).append(" {");
    for (int i = 0; i < v.length; i++) {
      sb.append(i == 0 ? "" : " ").append(String.format("%.5f", v[i]));
    }
    return sb.append('}').toString();
  }

  static void dump(String tag, DataSetIterator it) {
    int b = 0;
    while (it.hasNext()) {
      DataSet ds = it.next();
      System.out.println(tag + " batch " + b++);
      System.out.println("  features " + arr(ds.getFeatures()));
      System.out.println("  labels " + arr(ds.getLabels()));
      System.out.println("  featuresMask " + arr(ds.getFeaturesMaskArray()));
      System.out.println("  labelsMask " + arr(ds.getLabelsMaskArray()));
    }
  }

  static Path write(Path dir, String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, text.getBytes(StandardCharsets.UTF_8));
    return p;
  }

  public static void main(String[] args) throws Exception {
    // Deeplearning4j reads iris.dat from <resources dir>/data/iris (downloading it when absent):
    // put its own copy (iris.dat on its class path) there so it runs offline. ndrt ignores this.
    Path res = Files.createTempDirectory("dl4jres");
    System.setProperty("org.deeplearning4j.resources.directory", res.toString());
    try (InputStream in = DataIteratorProbe.class.getResourceAsStream("/iris.dat")) {
      if (in != null) {
        Files.createDirectories(res.resolve("data/iris"));
        Files.copy(in, res.resolve("data/iris/iris.dat"), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Path dir = Files.createTempDirectory("dl4jprobe");
    Path csv = write(dir, "cls.csv", "0.5,1.5,2,0\n1,2,3,1\n3,0.25,7,2\n4,5,6,1\n9,8,7,0\n");
    CSVRecordReader rr = new CSVRecordReader();
    rr.initialize(new FileSplit(csv.toFile()));
    RecordReaderDataSetIterator it = new RecordReaderDataSetIterator(rr, 2, 3, 3);
    System.out.println("cls inputColumns=" + it.inputColumns() + " totalOutcomes=" + it.totalOutcomes());
    it.reset();
    dump("cls", it);
    it.reset();
    dump("cls-again", it);

    rr = new CSVRecordReader();
    rr.initialize(new FileSplit(csv.toFile()));
    dump("cls-first-col", new RecordReaderDataSetIterator(rr, 3, 0, 10));

    rr = new CSVRecordReader();
    rr.initialize(new FileSplit(csv.toFile()));
    dump("reg", new RecordReaderDataSetIterator(rr, 4, 2, 3, true));

    rr = new CSVRecordReader();
    rr.initialize(new FileSplit(csv.toFile()));
    dump("reg-middle", new RecordReaderDataSetIterator(rr, 5, 1, 1, true));

    rr = new CSVRecordReader();
    rr.initialize(new FileSplit(csv.toFile()));
    dump("builder", new RecordReaderDataSetIterator.Builder(rr, 3).classification(3, 4).maxNumBatches(1).build());

    rr = new CSVRecordReader();
    rr.initialize(new FileSplit(csv.toFile()));
    dump("nolabels", new RecordReaderDataSetIterator(rr, 5));

    // Sequences: features 2 columns, labels one class per step; lengths 3, 1, 2.
    String[] feats = {"1,2\n3,4\n5,6\n", "7,8\n", "9,10\n11,12\n"};
    String[] labsEq = {"0\n1\n2\n", "1\n", "2\n0\n"};
    String[] labsOne = {"2\n", "0\n", "1\n"};
    for (int i = 0; i < 3; i++) {
      write(dir, "f_" + i + ".csv", feats[i]);
      write(dir, "le_" + i + ".csv", labsEq[i]);
      write(dir, "lo_" + i + ".csv", labsOne[i]);
      write(dir, "s_" + i + ".csv", feats[i].replace("\n", "," + (i % 3) + "\n"));
    }
    for (AlignmentMode mode : AlignmentMode.values()) {
      for (String lab : new String[] {"le", "lo"}) {
        if (mode == AlignmentMode.EQUAL_LENGTH && lab.equals("lo")) {
          continue;
        }
        CSVSequenceRecordReader f = new CSVSequenceRecordReader();
        f.initialize(new NumberedFileInputSplit(dir + "/f_%d.csv", 0, 2));
        CSVSequenceRecordReader l = new CSVSequenceRecordReader();
        l.initialize(new NumberedFileInputSplit(dir + "/" + lab + "_%d.csv", 0, 2));
        // EQUAL_LENGTH takes no minibatch of sequences of different lengths: one sequence per batch.
        int mb = mode == AlignmentMode.EQUAL_LENGTH ? 1 : 3;
        dump("seq-" + mode + "-" + lab, new SequenceRecordReaderDataSetIterator(f, l, mb, 3, false, mode));
      }
    }
    CSVSequenceRecordReader f = new CSVSequenceRecordReader();
    f.initialize(new NumberedFileInputSplit(dir + "/f_%d.csv", 0, 2));
    CSVSequenceRecordReader l = new CSVSequenceRecordReader();
    l.initialize(new NumberedFileInputSplit(dir + "/f_%d.csv", 0, 2));
    dump("seq-regression", new SequenceRecordReaderDataSetIterator(f, l, 2, -1, true, AlignmentMode.ALIGN_START));
    CSVSequenceRecordReader s = new CSVSequenceRecordReader();
    s.initialize(new NumberedFileInputSplit(dir + "/s_%d.csv", 0, 2));
    dump("seq-single", new SequenceRecordReaderDataSetIterator(s, 2, 3, 2));
    s = new CSVSequenceRecordReader();
    s.initialize(new NumberedFileInputSplit(dir + "/s_%d.csv", 0, 2));
    dump("seq-single-reg", new SequenceRecordReaderDataSetIterator(s, 3, -1, 0, true));

    IrisDataSetIterator iris = new IrisDataSetIterator(40, 150);
    System.out.println("iris inputColumns=" + iris.inputColumns() + " totalOutcomes=" + iris.totalOutcomes());
    dump("iris", iris);
    dump("iris-default", new IrisDataSetIterator());
  }
}
