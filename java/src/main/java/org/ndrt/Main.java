package org.ndrt;

import java.util.Arrays;

/**
 * {@code java -jar ndrt.jar} (or {@code java -cp ndrt.jar org.ndrt.Main}): prints the runtime's
 * version, where its native libraries were loaded from, the devices and the registered ops, then
 * adds two small tensors as a smoke test (exit status 1 if the result is wrong).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("ndrt " + Ndrt.version() + " (ABI " + Ndrt.abiVersion() + ")");
    System.out.println("native libraries: " + System.getProperty("ndrt.library.loaded"));
    System.out.println("devices: cpu x" + Device.count(Device.Type.CPU) + ", cuda x" + Device.count(Device.Type.CUDA)
        + "; this thread: " + Device.current());
    System.out.println("ops (" + Ndrt.opCount() + "): " + String.join(", ", Ndrt.opNames()));
    try (Tensor a = Tensor.from(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor b = Tensor.from(new float[] {10, 20, 30, 40, 50, 60}, 2, 3);
        Tensor y = Ops.add(a, b)) {
      float[] v = y.toFloatArray();
      System.out.println("add: " + Arrays.toString(v));
      if (!Arrays.equals(v, new float[] {11, 22, 33, 44, 55, 66})) {
        System.out.println("smoke test FAILED");
        System.exit(1);
      }
    }
    System.out.println("smoke test ok");
  }
}
