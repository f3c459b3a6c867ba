package org.ndrt;

/** Element types, with their {@code ndrt_dtype} codes and sizes. */
public enum DType {
  F32(1, 4, "f32"),
  F64(2, 8, "f64"),
  /** IEEE half; Java arrays carry it as raw bits in a short[]. */
  F16(3, 2, "f16"),
  /** bfloat16; Java arrays carry it as raw bits in a short[]. */
  BF16(4, 2, "bf16"),
  I8(5, 1, "i8"),
  U8(6, 1, "u8"),
  I32(7, 4, "i32"),
  I64(8, 8, "i64"),
  BOOL(9, 1, "bool");

  private static final DType[] BY_CODE = new DType[10];

  static {
    for (DType d : values()) {
      BY_CODE[d.code] = d;
    }
  }

  private final int code;
  private final int itemSize;
  private final String shortName;

  DType(int code, int itemSize, String shortName) {
    this.code = code;
    this.itemSize = itemSize;
    this.shortName = shortName;
  }

  /** The {@code ndrt_dtype} value. */
  public int code() {
    return code;
  }

  /** Bytes per element. */
  public int itemSize() {
    return itemSize;
  }

  /** The runtime's name ("f32", "bf16", ...), as in op descriptions and messages. */
  public String shortName() {
    return shortName;
  }

  public boolean isFloatingPoint() {
    return this == F32 || this == F64 || this == F16 || this == BF16;
  }

  /** The dtype for an {@code ndrt_dtype} code. */
  public static DType of(int code) {
    if (code <= 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
      throw new InvalidArgumentException(201, code + " is not a valid dtype code");
    }
    return BY_CODE[code];
  }

  /** The dtype for a runtime name ("f32") or an enum name ("F32"). */
  public static DType fromName(String name) {
    for (DType d : values()) {
      if (d.shortName.equals(name) || d.name().equals(name)) {
        return d;
      }
    }
    throw new InvalidArgumentException(201, "'" + name + "' is not a dtype name");
  }

  @Override
  public String toString() {
    return shortName;
  }
}
