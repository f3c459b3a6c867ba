package org.ndrt.datavec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.datavec.api.records.reader.RecordReader;
import org.datavec.api.records.reader.impl.collection.CollectionRecordReader;
import org.datavec.api.records.reader.impl.collection.ListStringRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVRecordReader;
import org.datavec.api.records.reader.impl.csv.CSVSequenceRecordReader;
import org.datavec.api.split.FileSplit;
import org.datavec.api.split.ListStringSplit;
import org.datavec.api.split.NumberedFileInputSplit;
import org.datavec.api.writable.IntWritable;
import org.datavec.api.writable.Text;
import org.datavec.api.writable.Writable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CSV, sequence and collection readers and the splits, on files each test writes. */
class CsvReadersTest {
  @TempDir Path dir;

  private File write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.write(p, text.getBytes(StandardCharsets.UTF_8));
    return p.toFile();
  }

  private static List<List<String>> readAll(RecordReader rr) {
    List<List<String>> out = new ArrayList<>();
    while (rr.hasNext()) {
      List<String> r = new ArrayList<>();
      for (Writable w : rr.next()) {
        r.add(w.toString());
      }
      out.add(r);
    }
    return out;
  }

  private static List<String> row(String... v) {
    return Arrays.asList(v);
  }

  @Test
  void quotingDelimitersAndLineBreaks() throws Exception {
    File f = write("q.csv", "h1,h2,h3\n1,\"a,b\",x\n2,\"say \"\"hi\"\"\",y\n3,\"two\nlines\",z\r\n4, \"sp\" ,\n");
    CSVRecordReader rr = new CSVRecordReader(1);
    rr.initialize(new FileSplit(f));
    assertEquals(List.of(row("1", "a,b", "x"), row("2", "say \"hi\"", "y"), row("3", "two\nlines", "z"),
        row("4", "sp ", "")), readAll(rr));
    rr.reset();
    assertEquals(4, readAll(rr).size());
  }

  @Test
  void otherDelimitersQuotesAndBlankLines() throws Exception {
    File f = write("s.csv", "1;2.5;'a;b'\n\n3;4;c\n\n\n");
    CSVRecordReader rr = new CSVRecordReader(0, ';', '\'');
    rr.initialize(new FileSplit(f));
    List<Writable> first = rr.next();
    assertEquals(2.5, first.get(1).toDouble());
    assertEquals(1, first.get(0).toInt());
    assertEquals(new Text("a;b"), first.get(2));
    assertEquals(List.of(row("3", "4", "c")), readAll(rr));
    File g = write("m.csv", "1::2::3\n4::5::6");  // no final line break
    CSVRecordReader multi = new CSVRecordReader(0, "::");
    multi.initialize(new FileSplit(g));
    assertEquals(List.of(row("1", "2", "3"), row("4", "5", "6")), readAll(multi));
  }

  @Test
  void skipLinesApplyToEveryFileAndBatchesSpanFiles() throws Exception {
    write("d/a.csv", "header\n1,2\n3,4\n");
    write("d/b.csv", "header\n5,6\n");
    CSVRecordReader rr = new CSVRecordReader(1, ',');
    rr.initialize(new FileSplit(dir.resolve("d").toFile()));
    assertTrue(rr.batchesSupported());
    List<List<Writable>> batch = rr.next(10);
    assertEquals(3, batch.size());
    assertEquals(5, batch.get(2).get(0).toInt());
    assertFalse(rr.hasNext());
  }

  @Test
  void shortAndLongRowsNameFileLineAndColumn() throws Exception {
    File f = write("bad.csv", "a,b,c\n1,2,3\n4,5\n");
    CSVRecordReader rr = new CSVRecordReader();
    rr.initialize(new FileSplit(f));
    rr.next();
    rr.next();
    IllegalStateException e = assertThrows(IllegalStateException.class, rr::next);
    assertTrue(e.getMessage().startsWith(f.getPath() + ":3:4: "), e.getMessage());
    assertTrue(e.getMessage().contains("2 values where the first record had 3"), e.getMessage());
    File g = write("long.csv", "1,2\n3,4,5\n");
    rr.initialize(new FileSplit(g));
    rr.next();
    e = assertThrows(IllegalStateException.class, rr::next);
    assertTrue(e.getMessage().startsWith(g.getPath() + ":2:5: "), e.getMessage());
  }

  @Test
  void unparsableNumberNamesFileLineAndColumn() throws Exception {
    File f = write("n.csv", "x,y\n1.5,2\n3,abc\n");
    CSVRecordReader rr = new CSVRecordReader(1);
    rr.initialize(new FileSplit(f));
    rr.next();
    List<Writable> r = rr.next();
    NumberFormatException e = assertThrows(NumberFormatException.class, () -> r.get(1).toDouble());
    assertEquals(f.getPath() + ":3:3: \"abc\" is not a number", e.getMessage());
    assertEquals(new Text("abc"), r.get(1));
  }

  @Test
  void unterminatedQuoteNamesWhereItOpened() throws Exception {
    File f = write("u.csv", "1,2\n3,\"open\n4,5\n");
    CSVRecordReader rr = new CSVRecordReader();
    rr.initialize(new FileSplit(f));
    rr.next();
    IllegalStateException e = assertThrows(IllegalStateException.class, rr::next);
    assertTrue(e.getMessage().startsWith(f.getPath() + ":2:3: "), e.getMessage());
  }

  @Test
  void sequenceReaderOneSequencePerFile() throws Exception {
    for (int i = 0; i < 3; i++) {
      StringBuilder sb = new StringBuilder("t,v\n");
      for (int t = 0; t <= i; t++) {
        sb.append(t).append(',').append(10 * i + t).append('\n');
      }
      write("seq/s_" + i + ".csv", sb.toString());
    }
    CSVSequenceRecordReader rr = new CSVSequenceRecordReader(1, ",");
    rr.initialize(new NumberedFileInputSplit(dir.resolve("seq").toString() + "/s_%d.csv", 0, 2));
    for (int i = 0; i < 3; i++) {
      assertTrue(rr.hasNext());
      List<List<Writable>> s = rr.sequenceRecord();
      assertEquals(i + 1, s.size());
      assertEquals(10 * i + i, s.get(i).get(1).toInt());
    }
    assertFalse(rr.hasNext());
    rr.reset();
    assertEquals(1, rr.nextSequence().getSequenceLength());
    write("seq/bad.csv", "h\n1,2\n3\n");
    rr.initialize(new FileSplit(dir.resolve("seq/bad.csv").toFile()));
    IllegalStateException e = assertThrows(IllegalStateException.class, rr::sequenceRecord);
    assertTrue(e.getMessage().contains("bad.csv:3:2: "), e.getMessage());
  }

  @Test
  void fileSplitOverATree() throws Exception {
    write("t/a/1.csv", "x");
    write("t/a/2.txt", "x");
    write("t/b/c/3.csv", "x");
    write("t/4.csv", "x");
    File root = dir.resolve("t").toFile();
    FileSplit all = new FileSplit(root);
    assertEquals(4, all.locations().length);
    assertEquals(4, all.length());
    List<String> names = new ArrayList<>();
    all.locationsPathIterator().forEachRemaining(p -> names.add(root.toPath().relativize(Path.of(p)).toString()));
    assertEquals(List.of("4.csv", "a/1.csv", "a/2.txt", "b/c/3.csv"), names);
    assertEquals(3, new FileSplit(root, new String[] {"csv"}).locations().length);
    assertEquals(1, new FileSplit(root, new String[] {".csv"}, false).locations().length);
    FileSplit shuffled = new FileSplit(root, null, new Random(42));
    List<String> order1 = new ArrayList<>();
    shuffled.locationsIterator().forEachRemaining(u -> order1.add(u.toString()));
    assertEquals(new HashSet<>(order1).size(), 4);
    FileSplit again = new FileSplit(root, null, new Random(42));
    List<String> order2 = new ArrayList<>();
    again.locationsIterator().forEachRemaining(u -> order2.add(u.toString()));
    assertEquals(order1, order2);
    assertThrows(IllegalArgumentException.class, () -> new FileSplit(dir.resolve("missing").toFile()));
  }

  @Test
  void numberedFileInputSplit() {
    NumberedFileInputSplit s = new NumberedFileInputSplit("/data/f_%d.csv", 3, 5);
    assertEquals(3, s.length());
    assertEquals(new File("/data/f_4.csv").toURI(), s.locations()[1]);
    assertEquals("/data/g_007.csv", new NumberedFileInputSplit("/data/g_%03d.csv", 7, 7).locationsPathIterator().next());
    assertThrows(IllegalArgumentException.class, () -> new NumberedFileInputSplit("/data/f.csv", 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new NumberedFileInputSplit("/d/%d_%d.csv", 0, 1));
  }

  @Test
  void collectionReaders() throws Exception {
    List<List<Writable>> data = List.of(List.of(new IntWritable(1), new Text("a")), List.of(new IntWritable(2), new Text("b")));
    CollectionRecordReader c = new CollectionRecordReader(data);
    assertEquals(List.of(row("1", "a"), row("2", "b")), readAll(c));
    c.reset();
    assertEquals(2, readAll(c).size());
    ListStringRecordReader l = new ListStringRecordReader();
    l.initialize(new ListStringSplit(List.of(List.of("1", "x"), List.of("2", "y"))));
    assertEquals(List.of(row("1", "x"), row("2", "y")), readAll(l));
    assertNotEquals(new Text("1"), new IntWritable(1));
  }
}
