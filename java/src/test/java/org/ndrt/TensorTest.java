package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Factories, reading back, views, description, devices. */
class TensorTest {
  @Test
  void factories() {
    try (Tensor z = Tensor.zeros(DType.F64, 2, 2); Tensor o = Tensor.ones(DType.I32, 3);
        Tensor f = Tensor.full(-1.5, DType.F32, 2); Tensor s = Tensor.scalar(3, DType.I64)) {
      assertArrayEquals(new double[] {0, 0, 0, 0}, z.toDoubleArray());
      assertArrayEquals(new int[] {1, 1, 1}, o.toIntArray());
      assertArrayEquals(new float[] {-1.5f, -1.5f}, f.toFloatArray());
      assertEquals(0, s.rank());
      assertEquals(3.0, s.item());
    }
    try (Tensor a = Tensor.from(new long[] {1, 2, 3, 4}, 2, 2); Tensor b = Tensor.from(new int[] {5, 6}, 2);
        Tensor c = Tensor.from(new byte[] {1, 0, 1}, DType.BOOL, 3)) {
      assertEquals(DType.I64, a.dtype());
      assertArrayEquals(new long[] {1, 2, 3, 4}, a.toLongArray());
      assertArrayEquals(new int[] {5, 6}, b.toIntArray());
      assertArrayEquals(new byte[] {1, 0, 1}, c.toByteArray());
    }
  }

  @Test
  void randomIsReproducibleBySeed() {
    try (Tensor a = Tensor.rand(42, DType.F32, 1000); Tensor b = Tensor.rand(42, DType.F32, 1000);
        Tensor c = Tensor.rand(43, DType.F32, 1000); Tensor n = Tensor.randn(7, DType.F64, 20000)) {
      float[] va = a.toFloatArray();
      assertArrayEquals(va, b.toFloatArray());
      assertFalse(java.util.Arrays.equals(va, c.toFloatArray()));
      for (float v : va) {
        assertTrue(v >= 0 && v < 1, "uniform in [0,1): " + v);
      }
      double[] vn = n.toDoubleArray();
      double mean = 0;
      double sq = 0;
      for (double v : vn) {
        mean += v;
        sq += v * v;
      }
      mean /= vn.length;
      double var = sq / vn.length - mean * mean;
      assertEquals(0, mean, 0.05);
      assertEquals(1, var, 0.05);
    }
    try (Tensor h = Tensor.randn(1, DType.F16, 4)) {
      assertEquals(DType.F16, h.dtype());
    }
  }

  @Test
  void arange() {
    try (Tensor a = Tensor.arange(5); Tensor b = Tensor.arange(10, 0, -3); Tensor c = Tensor.arange(0, 1, 0.25, DType.F32)) {
      assertArrayEquals(new long[] {0, 1, 2, 3, 4}, a.toLongArray());
      assertArrayEquals(new long[] {10, 7, 4, 1}, b.toLongArray());
      assertArrayEquals(new float[] {0, 0.25f, 0.5f, 0.75f}, c.toFloatArray());
    }
  }

  @Test
  void conversionsCastThroughTheRuntime() {
    try (Tensor t = Tensor.from(new double[] {1.5, -2.5, 3}, 3)) {
      assertArrayEquals(new float[] {1.5f, -2.5f, 3f}, t.toFloatArray());
      assertArrayEquals(new long[] {1, -2, 3}, t.toLongArray());
      assertArrayEquals(new int[] {1, -2, 3}, t.toIntArray());
      try (Tensor h = t.cast(DType.BF16)) {
        assertEquals(DType.BF16, h.dtype());
        assertArrayEquals(new double[] {1.5, -2.5, 3}, h.toDoubleArray());
      }
    }
  }

  @Test
  void views() {
    try (Tensor t = Tensor.arange(0, 6, 1, DType.F32)) {
      try (Tensor r = t.reshape(2, -1)) {
        assertArrayEquals(new long[] {2, 3}, r.shape());
        assertArrayEquals(new long[] {3, 1}, r.strides());
        try (Tensor p = r.permute(1, 0)) {
          assertArrayEquals(new long[] {3, 2}, p.shape());
          assertFalse(p.isContiguous());
          assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, p.toFloatArray());
          try (Tensor c = p.contiguous()) {
            assertTrue(c.isContiguous());
            assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, c.toFloatArray());
          }
        }
        try (Tensor tr = r.transpose(0, -1)) {
          assertArrayEquals(new long[] {3, 2}, tr.shape());
        }
        try (Tensor s = r.slice(1, -1, -4, -1)) { // reversed columns
          assertArrayEquals(new float[] {2, 1, 0, 5, 4, 3}, s.toFloatArray());
        }
        try (Tensor s = r.slice(1, 0, 3, 2)) {
          assertArrayEquals(new float[] {0, 2, 3, 5}, s.toFloatArray());
          assertEquals(0, s.offset());
        }
      }
      try (Tensor row = t.reshape(1, 6); Tensor e = row.expand(3, 6)) {
        assertArrayEquals(new long[] {3, 6}, e.shape());
        assertEquals(0, e.strides()[0]);
        assertEquals(18, e.toFloatArray().length);
      }
      // a view shares storage: writing through it writes t
      try (Tensor v = t.slice(0, 2, 4)) {
        v.copyFrom(new float[] {-1, -2});
      }
      assertArrayEquals(new float[] {0, 1, -1, -2, 4, 5}, t.toFloatArray());
    }
  }

  @Test
  void viewsOutliveTheirBase() {
    Tensor base = Tensor.from(new int[] {1, 2, 3, 4}, 4);
    Tensor v = base.reshape(2, 2);
    Tensor s = base.share();
    base.close();
    assertArrayEquals(new int[] {1, 2, 3, 4}, v.toIntArray());
    s.close();
    assertArrayEquals(new int[] {1, 2, 3, 4}, v.toIntArray());
    v.close();
    assertTrue(v.isClosed());
    assertEquals("Tensor(closed)", v.toString());
  }

  @Test
  void description() {
    try (Tensor t = Tensor.empty(DType.U8, 2, 3, 40)) {  // past 64 elements: no values printed
      assertEquals(DType.U8, t.dtype());
      assertEquals(3, t.rank());
      assertEquals(240, t.numel());
      assertEquals(Device.current(), t.device());
      assertEquals("Tensor(u8, [2, 3, 40], cpu:0)", t.toString());
      assertNotEquals(0, t.handle());
    }
  }

  @Test
  void devices() {
    assertEquals(1, Device.count(Device.Type.CPU));
    assertTrue(Device.count(Device.Type.CUDA) >= 0);
    Device.CPU.attach();
    assertEquals(Device.CPU, Device.current());
    assertEquals("cpu:0", Device.CPU.name());
    assertEquals(Device.Type.CPU, Device.CPU.type());
    assertEquals(Device.cpu(0), Device.CPU);
    assertThrows(InvalidArgumentException.class, () -> Device.cpu(5).attach());
    // a new thread gets a device of its own (round-robin over the default type) on first use
    Device[] seen = new Device[1];
    Thread th = new Thread(() -> seen[0] = Device.current());
    th.start();
    try {
      th.join();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    assertEquals(Device.defaultType(), seen[0].type());
  }

  @Test
  void versionAndConfig() {
    assertEquals(org.ndrt.capi.NdrtC.NDRT_ABI_VERSION, Ndrt.abiVersion());
    assertTrue(Ndrt.version().matches("\\d+\\.\\d+\\.\\d+.*"), Ndrt.version());
    String old = Ndrt.config("cpu.threads");
    Ndrt.setConfig("cpu.threads", "2");
    assertEquals("2", Ndrt.config("cpu.threads"));
    Ndrt.setConfig("cpu.threads", old);
  }

  @Test
  void profiler() {
    Ndrt.clearProfiler();
    Ndrt.setProfilerEnabled(true);
    try (Tensor a = Tensor.ones(DType.F32, 4); Tensor b = Ops.add(a, a)) {
      assertEquals(4, b.numel());
    } finally {
      Ndrt.setProfilerEnabled(false);
    }
    assertTrue(Ndrt.profilerSummary().contains("add"), Ndrt.profilerSummary());
  }
}
