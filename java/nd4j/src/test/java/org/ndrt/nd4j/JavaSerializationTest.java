package org.ndrt.nd4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.junit.jupiter.api.Test;
import org.nd4j.evaluation.classification.Evaluation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;

/**
 * Java serialisation of INDArrays (what Spark does to the DataSets of an RDD): the elements, dtype, shape and
 * order arrive; a view arrives as a copy of what it shows; a DataSet and an Evaluation cross whole.
 */
class JavaSerializationTest {
  @SuppressWarnings("unchecked")
  private static <T extends Serializable> T roundTrip(T o) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void arraysOfEveryCommonDtypeCrossWithTheirValues() throws Exception {
    Nd4j.getRandom().setSeed(7);
    INDArray f = Nd4j.rand(3, 4, 5).subi(0.5);
    INDArray back = roundTrip(f);
    assertArrayEquals(f.shape(), back.shape());
    assertEquals(DataType.FLOAT, back.dataType());
    assertArrayEquals(f.data().asFloat(), back.data().asFloat(), 0f);
    assertFalse(back.isView());

    INDArray d = Nd4j.rand(DataType.DOUBLE, 6, 2);
    assertArrayEquals(d.data().asDouble(), roundTrip(d).data().asDouble(), 0.0);
    INDArray i = Nd4j.createFromArray(new int[] {3, -1, 7, 2147483647});
    assertArrayEquals(i.toIntVector(), roundTrip(i).toIntVector());
    INDArray l = Nd4j.createFromArray(new long[] {-5L, 1L << 40});
    assertArrayEquals(l.toLongVector(), roundTrip(l).toLongVector());
    INDArray h = Nd4j.rand(DataType.HALF, 3, 3);
    assertArrayEquals(h.castTo(DataType.FLOAT).data().asFloat(),
        roundTrip(h).castTo(DataType.FLOAT).data().asFloat(), 0f);
  }

  @Test
  void viewsAndFortranOrderArriveAsWhatTheyShow() throws Exception {
    INDArray base = Nd4j.rand(5, 6).subi(0.5);
    INDArray view = base.get(NDArrayIndex.interval(1, 4), NDArrayIndex.interval(2, 5));
    INDArray back = roundTrip(view);
    assertArrayEquals(new long[] {3, 3}, back.shape());
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        assertEquals(view.getDouble(r, c), back.getDouble(r, c), 0.0);
      }
    }
    INDArray f = base.dup('f');
    INDArray fBack = roundTrip(f);
    assertEquals('f', fBack.ordering());
    assertEquals(base, fBack);
    INDArray t = base.transpose();
    assertEquals(t, roundTrip(t));
  }

  @Test
  void dataSetsAndEvaluationsCrossWhole() throws Exception {
    INDArray x = Nd4j.rand(4, 3);
    INDArray y = Nd4j.eye(4);
    DataSet ds = new DataSet(x, y);
    DataSet back = roundTrip(ds);
    assertEquals(x, back.getFeatures());
    assertEquals(y, back.getLabels());
    assertNull(back.getFeaturesMaskArray());

    Evaluation e = new Evaluation(4);
    e.eval(y, y);
    Evaluation eBack = roundTrip(e);
    assertEquals(1.0, eBack.accuracy(), 0.0);
    assertEquals(4, eBack.getNumRowCounter());
  }

  @Test
  void corruptContentIsRefused() throws Exception {
    // What ArrayCore.writeReplace writes, with one element's bytes missing: refused when read, not an
    // array over too little memory.
    SerializedArray sa = new SerializedArray(((ArrayCore) Nd4j.rand(2, 2)).tensor(), 'c');
    java.lang.reflect.Field bytesField = SerializedArray.class.getDeclaredField("bytes");
    bytesField.setAccessible(true);
    bytesField.set(sa, new byte[12]);
    InvalidObjectException e = assertThrows(InvalidObjectException.class, () -> roundTrip(sa));
    assertEquals("INDArray: 12 bytes for shape [2, 2] of F32", e.getMessage());

    assertEquals("INDArray: unknown dtype F99", refused("dtype", "F99").getMessage());
    assertEquals("INDArray: negative extent in shape [2, -2]", refused("shape", new long[] {2, -2}).getMessage());
    assertEquals("INDArray: written on a machine of the other byte order",
        refused("bigEndian", java.nio.ByteOrder.nativeOrder() != java.nio.ByteOrder.BIG_ENDIAN).getMessage());
  }

  /** What reading back an array whose field {@code name} was set to {@code value} throws. */
  private static InvalidObjectException refused(String name, Object value) throws Exception {
    SerializedArray sa = new SerializedArray(((ArrayCore) Nd4j.rand(2, 2)).tensor(), 'c');
    java.lang.reflect.Field f = SerializedArray.class.getDeclaredField(name);
    f.setAccessible(true);
    f.set(sa, value);
    return assertThrows(InvalidObjectException.class, () -> roundTrip(sa));
  }
}
