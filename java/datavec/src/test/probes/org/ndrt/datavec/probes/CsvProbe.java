package org.ndrt.datavec.probes;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVSequenceRecordReader;
import org.datavec.api.split.FileSplit;
import org.datavec.api.split.NumberedFileInputSplit;
import org.datavec.api.writable.DoubleWritable;
import org.datavec.api.writable.IntWritable;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;

/**
 * CSV and sequence-CSV records, printed: run against DataVec and against ndrt-datavec, outputs compared.
 * Only input both read alike (no quoted line breaks, no blank lines inside, no ragged rows).
 */
public class CsvProbe {
  static void print(String tag, List<Writable> r) {
    StringBuilder sb = new StringBuilder(tag).append(" n=").append(r.size());
    for (Writable w : r) {
      sb.append(" [").append(w.getType()).append(':').append(w).append(']');
    }
    System.out.println(sb);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("csvprobe");
    Path f = dir.resolve("data.csv");
    Files.write(f, ("sepal,petal,name\n5.1,3.5,\"setosa, var\"\n4.9,3.0,\"say \"\"hi\"\"\"\n-1e3,7,plain\n,2,\n")
        .getBytes(StandardCharsets.UTF_8));
    CSVRecordReader rr = new CSVRecordReader(1);
    rr.initialize(new FileSplit(f.toFile()));
    int i = 0;
    while (rr.hasNext()) {
      List<Writable> r = rr.next();
      print("csv" + i++, r);
      try {
        System.out.println("  toDouble(0)=" + r.get(0).toDouble() + " toDouble(1)=" + r.get(1).toDouble());
      } catch (NumberFormatException e) {
        System.out.println("  NumberFormatException");
      }
    }
    rr.reset();
    System.out.println("after reset batch=" + rr.next(2).size() + " hasNext=" + rr.hasNext());

    Path g = dir.resolve("semi.csv");
    Files.write(g, "1;2;'a;b'\n3;4;c\n".getBytes(StandardCharsets.UTF_8));
    CSVRecordReader semi = new CSVRecordReader(0, ';', '\'');
    semi.initialize(new FileSplit(g.toFile()));
    while (semi.hasNext()) {
      print("semi", semi.next());
    }

    for (int s = 0; s < 3; s++) {
      StringBuilder sb = new StringBuilder("t,v\n");
      for (int t = 0; t <= s; t++) {
        sb.append(t).append(',').append(s * 10 + t).append('\n');
      }
      Files.write(dir.resolve("seq_" + s + ".csv"), sb.toString().getBytes(StandardCharsets.UTF_8));
    }
    CSVSequenceRecordReader seq = new CSVSequenceRecordReader(1, ",");
    seq.initialize(new NumberedFileInputSplit(dir + File.separator + "seq_%d.csv", 0, 2));
    while (seq.hasNext()) {
      List<List<Writable>> steps = seq.sequenceRecord();
      System.out.println("sequence length=" + steps.size());
      for (List<Writable> step : steps) {
        print("  step", step);
      }
    }
    NumberedFileInputSplit split = new NumberedFileInputSplit(dir + File.separator + "x_%03d.txt", 8, 10);
    System.out.println("numbered length=" + split.length() + " first=" + new File(split.locations()[0]).getName());
    System.out.println("writables " + new IntWritable(3) + " " + new DoubleWritable(0.25) + " " + new Text("t")
        + " eq=" + new Text("a").equals(new Text("a")) + " " + new Text("2.5").toDouble());
  }
}
