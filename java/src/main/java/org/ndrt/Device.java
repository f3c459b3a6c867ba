package org.ndrt;

import org.ndrt.capi.NdrtC;

/**
 * A device: {@code cpu:0} always, {@code cuda:N} when the CUDA module finds a GPU. Every thread has a
 * current device (a thread that never chose gets one round-robin over the devices of the default
 * type); ops run there, and all their tensors must live there. Moving data is explicit
 * ({@link Tensor#to(Device)}).
 */
public final class Device {
  /** Device types, with their {@code NDRT_DEVICE_TYPE_*} values. */
  public enum Type {
    CPU(0),
    CUDA(1);

    private final int code;

    Type(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Type of(int code) {
      for (Type t : values()) {
        if (t.code == code) {
          return t;
        }
      }
      throw new InvalidArgumentException(201, code + " is not a device type");
    }
  }

  /** {@code cpu:0}. */
  public static final Device CPU = new Device(0);

  private final int id;

  private Device(int id) {
    this.id = id;
  }

  /** The device for an {@code ndrt_device} value ({@code (type << 16) | index}). */
  public static Device of(int id) {
    return id == 0 ? CPU : new Device(id);
  }

  public static Device of(Type type, int index) {
    if (index < 0 || index > 0xffff) {
      throw new InvalidArgumentException(201, "device index " + index + " is out of range");
    }
    return of((type.code << 16) | index);
  }

  public static Device cpu() {
    return CPU;
  }

  /** {@code cpu:N}: there are several only with {@code cpu.virtual_devices} (tests of affinity). */
  public static Device cpu(int index) {
    return of(Type.CPU, index);
  }

  public static Device cuda(int index) {
    return of(Type.CUDA, index);
  }

  /** Devices of a type present: 1 cpu (or {@code cpu.virtual_devices}); 0 cuda without a GPU. */
  public static int count(Type type) {
    return NdrtC.device_count(type.code);
  }

  /** The type new threads are assigned to (BACKEND_PRIORITY_CPU / _GPU decide). */
  public static Type defaultType() {
    return Type.of(NdrtC.default_device_type());
  }

  /** The calling thread's current device (assigned round-robin on first use if it never chose). */
  public static Device current() {
    return of(NdrtC.thread_device());
  }

  /** Makes this device the calling thread's current device. */
  public Device attach() {
    NdrtC.thread_attach(id);
    return this;
  }

  /** Blocks until the work this thread issued on this device has finished (no-op on cpu). */
  public void synchronize() {
    NdrtC.synchronize(id);
  }

  /** The {@code ndrt_device} value. */
  public int id() {
    return id;
  }

  public Type type() {
    return Type.of(id >> 16);
  }

  public int index() {
    return id & 0xffff;
  }

  /** "cpu:0", "cuda:1" (from the runtime; fails for a device that does not exist). */
  public String name() {
    return NdrtC.device_name(id);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Device && ((Device) o).id == id;
  }

  @Override
  public int hashCode() {
    return id;
  }

  @Override
  public String toString() {
    return type().name().toLowerCase(java.util.Locale.ROOT) + ":" + index();
  }
}
