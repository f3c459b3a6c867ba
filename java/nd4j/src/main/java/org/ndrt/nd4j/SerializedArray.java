package org.ndrt.nd4j;

import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.nd4j.linalg.cpu.nativecpu.NDArray;
import org.ndrt.DType;
import org.ndrt.Device;
import org.ndrt.Tensor;

/**
 * What Java serialisation writes for an INDArray ({@link ArrayCore#writeReplace}): the dtype, shape,
 * order and the elements' bytes in row-major order, not the native handle, so an array crosses to
 * another JVM (Spark ships DataSets in tasks and caches) and reads back as a new root array with
 * equal contents. A view arrives as a copy of what it shows, as ND4J's serialisation does.
 */
final class SerializedArray implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String dtype;
  private final long[] shape;
  private final char order;
  private final boolean bigEndian;
  private final byte[] bytes;

  SerializedArray(Tensor t, char order) {
    this.dtype = t.dtype().name();
    this.shape = t.shape();
    this.order = order;
    this.bigEndian = ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
    try (Tensor host = Device.CPU.equals(t.device()) ? t.share() : t.to(Device.CPU);
         Tensor c = host.contiguous()) {
      ByteBuffer b = c.asByteBuffer();
      this.bytes = new byte[b.remaining()];
      b.get(bytes);
    }
  }

  private Object readResolve() throws ObjectStreamException {
    if (bigEndian != (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN)) {
      throw new InvalidObjectException("INDArray: written on a machine of the other byte order");
    }
    DType d;
    try {
      d = DType.valueOf(dtype);
    } catch (IllegalArgumentException e) {
      throw new InvalidObjectException("INDArray: unknown dtype " + dtype);
    }
    long n = 1;
    for (long s : shape) {
      if (s < 0) {
        throw new InvalidObjectException("INDArray: negative extent in shape " + Arrays.toString(shape));
      }
      n = Math.multiplyExact(n, s);
    }
    if (n * d.itemSize() != bytes.length) {
      throw new InvalidObjectException("INDArray: " + bytes.length + " bytes for shape " + Arrays.toString(shape)
          + " of " + dtype);
    }
    Tensor t = Tensor.empty(d, shape);
    t.asByteBuffer().put(bytes);
    NDArray a = ArrayCore.wrap(t);
    return order == 'f' ? a.dup('f') : a;
  }
}
