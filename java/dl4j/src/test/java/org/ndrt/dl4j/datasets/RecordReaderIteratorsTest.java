package org.ndrt.dl4j.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.datavec.api.records.reader.impl.collection.CollectionRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVSequenceRecordReader;
import org.datavec.api.split.FileSplit;
import org.datavec.api.split.NumberedFileInputSplit;
import org.datavec.api.writable.IntWritable;
import org.datavec.api.writable.NDArrayWritable;
import org.datavec.api.writable.Writable;
import org.deeplearning4j.datasets.datavec.RecordReaderDataSetIterator;
import org.deeplearning4j.datasets.datavec.SequenceRecordReaderDataSetIterator;
import org.deeplearning4j.datasets.datavec.SequenceRecordReaderDataSetIterator.AlignmentMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;

/** The DataVec record-reader iterators on CSV files each test writes. */
class RecordReaderIteratorsTest {
  @TempDir Path dir;

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, text.getBytes(StandardCharsets.UTF_8));
    return p;
  }

  private CSVRecordReader csv(Path p) throws Exception {
    CSVRecordReader rr = new CSVRecordReader();
    rr.initialize(new FileSplit(p.toFile()));
    return rr;
  }

  private static float[] flat(INDArray a) {
    return a.dup('c').reshape(a.length()).toFloatVector();
  }

  private static final String ROWS = "1,2,3,0\n4,5,6,2\n7,8,9,1\n10,11,12,2\n13,14,15,0\n";

  @Test
  void classificationBatchesOneHotAndBatchEdges() throws Exception {
    RecordReaderDataSetIterator it = new RecordReaderDataSetIterator(csv(write("a.csv", ROWS)), 2, 3, 3);
    assertEquals(3, it.inputColumns());
    assertEquals(3, it.totalOutcomes());
    int[] sizes = new int[3];
    List<float[]> feats = new ArrayList<>(), labs = new ArrayList<>();
    int b = 0;
    while (it.hasNext()) {
      DataSet ds = it.next();
      sizes[b++] = (int) ds.getFeatures().size(0);
      assertArrayEquals(new long[] {ds.getFeatures().size(0), 3}, ds.getLabels().shape());
      feats.add(flat(ds.getFeatures()));
      labs.add(flat(ds.getLabels()));
    }
    assertArrayEquals(new int[] {2, 2, 1}, sizes);
    assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, feats.get(0));
    assertArrayEquals(new float[] {1, 0, 0, 0, 0, 1}, labs.get(0));
    assertArrayEquals(new float[] {0, 1, 0, 0, 0, 1}, labs.get(1));
    assertArrayEquals(new float[] {13, 14, 15}, feats.get(2));
    assertArrayEquals(new float[] {1, 0, 0}, labs.get(2));
    it.reset();
    assertTrue(it.hasNext());
    assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, flat(it.next().getFeatures()));
  }

  @Test
  void labelOutOfRangeMessage() throws Exception {
    RecordReaderDataSetIterator it = new RecordReaderDataSetIterator(csv(write("c.csv", "1,2,0\n3,4,1\n5,6,1\n7,8,5\n")), 2, 2, 3);
    it.next();
    IllegalStateException e = assertThrows(IllegalStateException.class, it::next);
    assertTrue(e.getMessage().contains("record 3"), e.getMessage());
    assertTrue(e.getMessage().contains("5") && e.getMessage().contains("0..2"), e.getMessage());
  }

  @Test
  void regressionColumnsAndMiddleLabel() throws Exception {
    Path p = write("d.csv", ROWS);
    DataSet ds = new RecordReaderDataSetIterator(csv(p), 10, 2, 3, true).next();
    assertArrayEquals(new long[] {5, 2}, ds.getFeatures().shape());
    assertArrayEquals(new long[] {5, 2}, ds.getLabels().shape());
    assertArrayEquals(new float[] {3, 0, 6, 2, 9, 1, 12, 2, 15, 0}, flat(ds.getLabels()));
    DataSet mid = new RecordReaderDataSetIterator(csv(p), 2, 1, 1, true).next();
    assertArrayEquals(new float[] {1, 3, 0, 4, 6, 2}, flat(mid.getFeatures()));
    assertArrayEquals(new float[] {2, 5}, flat(mid.getLabels()));
    assertThrows(IllegalArgumentException.class, () -> new RecordReaderDataSetIterator(csv(p), 2, 1, 1, false));
  }

  @Test
  void builderMaxBatchesAndPreProcessor() throws Exception {
    int[] calls = {0};
    RecordReaderDataSetIterator it = new RecordReaderDataSetIterator.Builder(csv(write("e.csv", ROWS)), 2)
        .classification(3, 3).maxNumBatches(2).preProcessor(ds -> calls[0]++).build();
    int n = 0;
    while (it.hasNext()) {
      it.next();
      n++;
    }
    assertEquals(2, n);
    assertEquals(2, calls[0]);
  }

  @Test
  void imageRecordsStackAlongTheFirstDimension() throws Exception {
    List<List<Writable>> recs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      float[] px = new float[2 * 2 * 2];
      Arrays.fill(px, i);
      recs.add(Arrays.asList(new NDArrayWritable(Nd4j.create(px, new long[] {1, 2, 2, 2})), new IntWritable(i)));
    }
    DataSet ds = new RecordReaderDataSetIterator(new CollectionRecordReader(recs), 3, 1, 4).next();
    assertArrayEquals(new long[] {3, 2, 2, 2}, ds.getFeatures().shape());
    float[] f = flat(ds.getFeatures());
    assertEquals(0f, f[0]);
    assertEquals(2f, f[23]);
    assertArrayEquals(new float[] {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, flat(ds.getLabels()));
  }

  /** Sequences of lengths 3, 1, 2 (2 feature columns) and one label step each: many-to-one. */
  private SequenceRecordReaderDataSetIterator manyToOne(AlignmentMode mode) throws Exception {
    String[] f = {"1,2\n3,4\n5,6\n", "7,8\n", "9,10\n11,12\n"};
    String[] l = {"2\n", "0\n", "1\n"};
    for (int i = 0; i < 3; i++) {
      write("f_" + i + ".csv", f[i]);
      write("l_" + i + ".csv", l[i]);
    }
    CSVSequenceRecordReader fr = new CSVSequenceRecordReader();
    fr.initialize(new NumberedFileInputSplit(dir + "/f_%d.csv", 0, 2));
    CSVSequenceRecordReader lr = new CSVSequenceRecordReader();
    lr.initialize(new NumberedFileInputSplit(dir + "/l_%d.csv", 0, 2));
    return new SequenceRecordReaderDataSetIterator(fr, lr, 3, 3, false, mode);
  }

  @Test
  void alignStartMasks() throws Exception {
    DataSet ds = manyToOne(AlignmentMode.ALIGN_START).next();
    assertArrayEquals(new long[] {3, 2, 3}, ds.getFeatures().shape());
    assertArrayEquals(new long[] {3, 3, 3}, ds.getLabels().shape());
    assertArrayEquals(new float[] {1, 3, 5, 2, 4, 6, 7, 0, 0, 8, 0, 0, 9, 11, 0, 10, 12, 0}, flat(ds.getFeatures()));
    assertArrayEquals(new float[] {1, 1, 1, 1, 0, 0, 1, 1, 0}, flat(ds.getFeaturesMaskArray()));
    assertArrayEquals(new float[] {1, 0, 0, 1, 0, 0, 1, 0, 0}, flat(ds.getLabelsMaskArray()));
    // class 2 at step 0 of example 0, class 0 of example 1, class 1 of example 2
    assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},
        flat(ds.getLabels()));
  }

  @Test
  void alignEndMasks() throws Exception {
    DataSet ds = manyToOne(AlignmentMode.ALIGN_END).next();
    assertArrayEquals(new float[] {1, 3, 5, 2, 4, 6, 7, 0, 0, 8, 0, 0, 9, 11, 0, 10, 12, 0}, flat(ds.getFeatures()));
    assertArrayEquals(new float[] {1, 1, 1, 1, 0, 0, 1, 1, 0}, flat(ds.getFeaturesMaskArray()));
    // the label step sits under each example's last feature step
    assertArrayEquals(new float[] {0, 0, 1, 1, 0, 0, 0, 1, 0}, flat(ds.getLabelsMaskArray()));
    float[] l = flat(ds.getLabels());
    assertEquals(1f, l[(0 * 3 + 2) * 3 + 2]);
    assertEquals(1f, l[(1 * 3 + 0) * 3 + 0]);
    assertEquals(1f, l[(2 * 3 + 1) * 3 + 1]);
    float sum = 0;
    for (float v : l) {
      sum += v;
    }
    assertEquals(3f, sum);
  }

  @Test
  void equalLengthRejectsVariableLengths() throws Exception {
    SequenceRecordReaderDataSetIterator it = manyToOne(AlignmentMode.EQUAL_LENGTH);
    assertThrows(RuntimeException.class, it::next);
  }

  @Test
  void singleReaderSequencesPadWithMasks() throws Exception {
    write("s_0.csv", "1,2,0\n3,4,1\n");
    write("s_1.csv", "5,6,2\n");
    CSVSequenceRecordReader r = new CSVSequenceRecordReader();
    r.initialize(new NumberedFileInputSplit(dir + "/s_%d.csv", 0, 1));
    SequenceRecordReaderDataSetIterator it = new SequenceRecordReaderDataSetIterator(r, 2, 3, 2);
    DataSet ds = it.next();
    assertArrayEquals(new float[] {1, 3, 2, 4, 5, 0, 6, 0}, flat(ds.getFeatures()));
    assertArrayEquals(new float[] {1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0}, flat(ds.getLabels()));
    assertArrayEquals(new float[] {1, 1, 1, 0}, flat(ds.getFeaturesMaskArray()));
    assertFalse(it.hasNext());
    it.reset();
    assertEquals(2, it.inputColumns());
    assertEquals(3, it.totalOutcomes());
    write("s_2.csv", "1,2,7\n");
    CSVSequenceRecordReader bad = new CSVSequenceRecordReader();
    bad.initialize(new NumberedFileInputSplit(dir + "/s_%d.csv", 2, 2));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> new SequenceRecordReaderDataSetIterator(bad, 1, 3, 2).next());
    assertTrue(e.getMessage().contains("sequence 0, step 0"), e.getMessage());
  }

  @Test
  void noLabelsGivesFeaturesAsLabels() throws Exception {
    DataSet ds = new RecordReaderDataSetIterator(csv(write("g.csv", ROWS)), 5).next();
    assertArrayEquals(new long[] {5, 4}, ds.getFeatures().shape());
    assertArrayEquals(flat(ds.getFeatures()), flat(ds.getLabels()));
    assertNull(ds.getFeaturesMaskArray());
  }
}
