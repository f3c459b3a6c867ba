package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ndrt.capi.NdrtC;

/**
 * Every exception class, raised by a real failing call where the runtime has one, with the status
 * and the runtime's message checked. This JVM presents two cpu devices (cpu.virtual_devices=2, set
 * before the first device use) so that a device mismatch can happen without a GPU.
 */
class ExceptionsTest {
  @BeforeAll
  static void twoCpuDevices() {
    Ndrt.setConfig("cpu.virtual_devices", "2");
    Device.CPU.attach();
  }

  private static <T extends NdrtException> T expect(Class<T> type, int status, String messagePart,
      org.junit.jupiter.api.function.Executable call) {
    T e = assertThrows(type, call);
    assertEquals(status, e.status(), () -> "status of " + e);
    assertTrue(e.getMessage().contains(messagePart), () -> "message '" + e.getMessage() + "' lacks '" + messagePart + "'");
    assertEquals(NdrtException.statusName(status), e.statusName());
    assertEquals(NdrtC.status_name(status), e.statusName());
    assertInstanceOf(NdrtException.class, e);
    return e;
  }

  @Test
  void outOfMemory() {
    // 2^50 f32 elements: 4 PiB
    expect(OutOfMemoryException.class, 100, "out of memory allocating",
        () -> Tensor.empty(DType.F32, 1L << 50));
  }

  @Test
  void invalidHandleFromTheRuntime() {
    expect(InvalidHandleException.class, 200, "handle 123456789 is not a live tensor",
        () -> NdrtC.tensor_numel(123456789L));
    long h = NdrtC.tensor_create(NdrtC.NDRT_F32, new long[] {2}, NdrtC.NDRT_CPU);
    NdrtC.tensor_release(h);
    expect(InvalidHandleException.class, 200, "handle " + h + " is not a live tensor",
        () -> NdrtC.tensor_release(h));
  }

  @Test
  void invalidHandleOfAClosedTensor() {
    Tensor t = Tensor.zeros(DType.F32, 3);
    t.close();
    t.close(); // idempotent
    expect(InvalidHandleException.class, 200, "the tensor was closed", t::shape);
    expect(InvalidHandleException.class, 200, "the tensor was closed", () -> Ops.neg(t));
  }

  @Test
  void invalidArgument() {
    try (Tensor t = Tensor.zeros(DType.F32, 2, 3)) {
      expect(InvalidArgumentException.class, 201, "tensor_slice: step is 0", () -> t.slice(0, 0, 2, 0));
      try (Tensor tt = t.transpose(0, 1)) {
        expect(InvalidArgumentException.class, 201, "cannot be reshaped to [6] without a copy", () -> tt.reshape(6));
      }
    }
  }

  @Test
  void unknownOpIsAnInvalidArgument() {
    InvalidArgumentException e = expect(InvalidArgumentException.class, 205, "op_find: no op named 'no_such_op'",
        () -> NdrtC.op_find("no_such_op"));
    assertEquals("NDRT_ERR_UNKNOWN_OP", e.statusName());
    expect(InvalidArgumentException.class, 205, "op_describe: op id 100000 is not registered",
        () -> NdrtC.op_describe(100000));
  }

  @Test
  void shapeMismatch() {
    try (Tensor a = Tensor.zeros(DType.F32, 2, 3); Tensor b = Tensor.zeros(DType.F32, 4)) {
      expect(ShapeException.class, 202, "add: shapes [2,3] and [4] do not broadcast", () -> Ops.add(a, b));
    }
    expect(ShapeException.class, 202, "the float[] has 3 elements, the tensor 4",
        () -> Tensor.from(new float[] {1, 2, 3}, 2, 2));
  }

  @Test
  void dtypeMismatch() {
    try (Tensor a = Tensor.zeros(DType.F32, 2); Tensor b = Tensor.zeros(DType.F64, 2)) {
      DtypeException e = expect(DtypeException.class, 203, "add", () -> Ops.add(a, b));
      assertTrue(e.getMessage().contains("f32") && e.getMessage().contains("f64"), e.getMessage());
      expect(DtypeException.class, 203, "a float[] cannot hold dtype f64", () -> b.copyFrom(new float[2]));
    }
  }

  @Test
  void deviceMismatch() {
    assertEquals(2, Device.count(Device.Type.CPU));
    Device cpu1 = Device.cpu(1);
    try (Tensor other = Tensor.zeros(DType.F32, 2).to(cpu1)) {
      assertEquals(cpu1, other.device());
      Device.CPU.attach();
      DeviceMismatchException e = expect(DeviceMismatchException.class, 204, "cpu:1", () -> Ops.neg(other));
      assertTrue(e.getMessage().contains("cpu:0"), e.getMessage());
    }
  }

  @Test
  void notSupported() {
    // An op/dtype pair without a cpu kernel (the registry grows: pick one its description lacks).
    String[][] candidates = {{"matmul", "i32"}, {"matmul", "u8"}, {"add", "bool"}, {"neg", "bool"}};
    for (String[] c : candidates) {
      String json = Ndrt.describeOp(c[0]);
      String cpu = json.substring(json.indexOf("\"kernels\""));
      if (cpu.contains("\"" + c[1] + "\"")) {
        continue;
      }
      DType d = DType.fromName(c[1]);
      try (Tensor a = Tensor.zeros(d, 2, 2); Tensor b = Tensor.zeros(d, 2, 2)) {
        org.junit.jupiter.api.function.Executable call =
            c[0].equals("neg") ? () -> Ops.neg(a) : c[0].equals("add") ? () -> Ops.add(a, b) : () -> Ops.matmul(a, b);
        expect(NotSupportedException.class, 300, c[0] + ": no cpu kernel for dtype " + c[1], call);
        return;
      }
    }
    throw new AssertionError("every candidate op/dtype pair has a cpu kernel now: add one to this test");
  }

  @Test
  void notConfigured() {
    NdrtC.get_api(1);
    expect(NotSupportedException.class, 301, "offers function table versions 1..1, not 7", () -> NdrtC.get_api(7));
  }

  /**
   * A healthy cpu-only runtime has no way to fail with these (a driver error, a library that does not
   * load, an internal bug): the status-to-class mapping the JNI layer uses is checked directly.
   */
  @Test
  void statusesWithoutATrigger() {
    NdrtException b = NdrtException.of(101, "cuda: driver error");
    assertInstanceOf(BackendException.class, b);
    assertEquals("cuda: driver error", b.getMessage());
    assertEquals("NDRT_ERR_BACKEND", b.statusName());
    assertInstanceOf(LoadException.class, NdrtException.of(400, "x"));
    assertInstanceOf(InternalException.class, NdrtException.of(500, "x"));
    assertSame(NdrtException.class, NdrtException.of(999, "x").getClass());
    assertEquals("NDRT_UNKNOWN_STATUS", NdrtException.of(999, "x").statusName());
  }

  @Test
  void messageIsTheRuntimesLastError() {
    InvalidHandleException e = assertThrows(InvalidHandleException.class, () -> NdrtC.tensor_rank(987654321L));
    assertEquals(NdrtC.last_error(), e.getMessage());
    assertTrue(e.toString().contains("[NDRT_ERR_INVALID_HANDLE]"), e.toString());
  }
}
