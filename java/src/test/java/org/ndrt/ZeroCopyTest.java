package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.ndrt.capi.NdrtC;

/** Zero-copy both ways on cpu: tensor memory as a direct ByteBuffer, a direct ByteBuffer as a tensor. */
class ZeroCopyTest {
  @Test
  void tensorAsByteBuffer() {
    Device.CPU.attach();
    Tensor t = Tensor.from(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    ByteBuffer bytes = t.asByteBuffer();
    assertEquals(ByteOrder.nativeOrder(), bytes.order());
    assertEquals(24, bytes.capacity());
    assertTrue(bytes.isDirect());
    FloatBuffer fb = bytes.asFloatBuffer();
    assertEquals(3f, fb.get(2));
    // write through the buffer, read through the tensor
    fb.put(4, 42f);
    assertArrayEquals(new float[] {1, 2, 3, 4, 42, 6}, t.toFloatArray());
    // write through the tensor (an op with a given output), read through the buffer
    Ops.neg(t, t);
    assertEquals(-42f, fb.get(4));
    // the address is the tensor's: no copy anywhere
    assertEquals(NdrtC.tensor_data_ptr(t.handle()), addressOf(bytes));
    // the buffer keeps the storage alive after the tensor is closed
    t.close();
    assertEquals(-6f, fb.get(5));
    fb.put(5, 7f);
    assertEquals(7f, fb.get(5));
  }

  @Test
  void aNonContiguousViewHasNoBuffer() {
    try (Tensor t = Tensor.zeros(DType.F32, 2, 3); Tensor v = t.transpose(0, 1)) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, v::asByteBuffer);
      assertTrue(e.getMessage().contains("non-contiguous"), e.getMessage());
      try (Tensor row = t.slice(0, 1, 2)) { // a contiguous view with an offset
        ByteBuffer b = row.asByteBuffer();
        assertEquals(12, b.capacity());
        b.asFloatBuffer().put(0, 9f);
        assertArrayEquals(new float[] {0, 0, 0, 9, 0, 0}, t.toFloatArray());
      }
    }
  }

  @Test
  void byteBufferAsTensor() {
    Device.CPU.attach();
    ByteBuffer buf = ByteBuffer.allocateDirect(6 * 4).order(ByteOrder.nativeOrder());
    FloatBuffer fb = buf.asFloatBuffer();
    for (int i = 0; i < 6; ++i) {
      fb.put(i, i + 1);
    }
    AtomicInteger released = new AtomicInteger();
    long wrappedBefore = Memory.stats(Device.CPU).wrapped();
    Tensor t = Tensor.wrap(buf, DType.F32, new long[] {2, 3}, null, released::incrementAndGet);
    assertEquals(wrappedBefore + 24, Memory.stats(Device.CPU).wrapped());
    assertEquals(addressOf(buf), NdrtC.tensor_data_ptr(t.handle()), "no copy");
    // read through the tensor what the buffer holds
    assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, t.toFloatArray());
    // write through the buffer, read through the tensor
    fb.put(0, -1f);
    assertEquals(-1f, t.toFloatArray()[0]);
    // write through the tensor (op output), read through the buffer
    try (Tensor two = Tensor.full(2, DType.F32, 2, 3)) {
      Ops.mul(t, two, t);
    }
    assertEquals(-2f, fb.get(0));
    assertEquals(12f, fb.get(5));
    // views keep the memory: the hook runs once, when the last one dies
    Tensor view = t.reshape(3, 2);
    Tensor col = t.slice(1, 0, 1);
    t.close();
    assertEquals(0, released.get());
    view.close();
    assertEquals(0, released.get());
    assertArrayEquals(new float[] {-2, 8}, col.toFloatArray());
    col.close();
    assertEquals(1, released.get(), "the release hook ran once");
    col.close();
    assertEquals(1, released.get());
    assertEquals(wrappedBefore, Memory.stats(Device.CPU).wrapped());
  }

  @Test
  void releaseHookOnANativeThread() {
    ByteBuffer buf = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
    AtomicInteger released = new AtomicInteger();
    AtomicReference<Thread> on = new AtomicReference<>();
    long h = NdrtC.tensor_wrap_buffer(DType.I32.code(), new long[] {4}, null, buf, () -> {
      on.set(Thread.currentThread());
      released.incrementAndGet();
    });
    // released by a thread the JVM does not know: the hook attaches it as a daemon to run
    NdrtC.debug_release_on_native_thread(h);
    assertEquals(1, released.get());
    assertNotEquals(Thread.currentThread(), on.get());
    assertTrue(on.get().isDaemon(), "attached as a daemon");
    assertEquals("ndrt-native", on.get().getName());
  }

  @Test
  void releaseHookAfterGarbageCollection() throws InterruptedException {
    AtomicInteger released = new AtomicInteger();
    wrapAndDrop(released);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (released.get() == 0 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(10);
    }
    assertEquals(1, released.get(), "the Cleaner released the wrapping tensor, the hook ran once");
  }

  private static void wrapAndDrop(AtomicInteger released) {
    ByteBuffer buf = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
    Tensor t = Tensor.wrap(buf, DType.F64, new long[] {8}, null, released::incrementAndGet);
    assertEquals(8, t.numel());
  }

  @Test
  void badBuffers() {
    InvalidArgumentException heap = assertThrows(InvalidArgumentException.class,
        () -> Tensor.wrap(ByteBuffer.allocate(16), DType.F32, 4));
    assertTrue(heap.getMessage().contains("not direct"), heap.getMessage());
    InvalidArgumentException ro = assertThrows(InvalidArgumentException.class,
        () -> Tensor.wrap(ByteBuffer.allocateDirect(16).asReadOnlyBuffer(), DType.F32, 4));
    assertTrue(ro.getMessage().contains("read-only"), ro.getMessage());
    InvalidArgumentException small = assertThrows(InvalidArgumentException.class,
        () -> Tensor.wrap(ByteBuffer.allocateDirect(12), DType.F32, 4));
    assertTrue(small.getMessage().contains("outside the 12-byte buffer"), small.getMessage());
  }

  @Test
  void wrappedWithStrides() {
    ByteBuffer buf = ByteBuffer.allocateDirect(6 * 8).order(ByteOrder.nativeOrder());
    for (int i = 0; i < 6; ++i) {
      buf.putLong(i * 8, i);
    }
    // a column-major 2x3 view: strides {1, 2}
    try (Tensor t = Tensor.wrap(buf, DType.I64, new long[] {2, 3}, new long[] {1, 2}, null)) {
      assertArrayEquals(new long[] {0, 2, 4, 1, 3, 5}, t.toLongArray());
      assertTrue(!t.isContiguous());
    }
  }

  /** The address of a direct buffer, via the tensor that wraps it (no reflection into the JDK). */
  private static long addressOf(ByteBuffer b) {
    long h = NdrtC.tensor_wrap_buffer(DType.U8.code(), new long[] {b.capacity()}, null, b, null);
    try {
      return NdrtC.tensor_data_ptr(h);
    } finally {
      NdrtC.tensor_release(h);
    }
  }
}
