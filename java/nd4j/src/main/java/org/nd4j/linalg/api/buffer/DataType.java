package org.nd4j.linalg.api.buffer;

/**
 * ND4J's element types. The ones ndrt stores are mapped onto {@link org.ndrt.DType}
 * ({@code org.ndrt.nd4j.Dtypes}); the others (strings, unsigned 16-64 bit, compressed) are names
 * only: creating an array of them throws.
 */
public enum DataType {
  DOUBLE, FLOAT, HALF, LONG, INT, SHORT, UBYTE, BYTE, BOOL, UTF8, COMPRESSED, BFLOAT16, UINT16, UINT32,
  UINT64, UNKNOWN;

  // ND4J's aliases (the same constants under their sized names), which programs written for ND4J use.
  public static final DataType FLOAT16 = HALF;
  public static final DataType INT8 = BYTE;
  public static final DataType UINT8 = UBYTE;
  public static final DataType INT16 = SHORT;
  public static final DataType INT32 = INT;
  public static final DataType INT64 = LONG;

  /** Floating point types (DOUBLE, FLOAT, HALF, BFLOAT16). */
  public boolean isFPType() {
    return this == DOUBLE || this == FLOAT || this == HALF || this == BFLOAT16;
  }

  /** Signed and unsigned integer types. */
  public boolean isIntType() {
    return this == LONG || this == INT || this == SHORT || this == UBYTE || this == BYTE || this == UINT16
        || this == UINT32 || this == UINT64;
  }

  public boolean isSigned() {
    return this != UBYTE && this != UINT16 && this != UINT32 && this != UINT64 && this != BOOL;
  }

  /** Numbers (floating point or integer), not BOOL, UTF8, COMPRESSED or UNKNOWN. */
  public boolean isNumerical() {
    return isFPType() || isIntType();
  }

  /** Bytes per element; -1 for UTF8, COMPRESSED and UNKNOWN. */
  public int width() {
    switch (this) {
      case DOUBLE: case LONG: case UINT64: return 8;
      case FLOAT: case INT: case UINT32: return 4;
      case HALF: case SHORT: case BFLOAT16: case UINT16: return 2;
      case UBYTE: case BYTE: case BOOL: return 1;
      default: return -1;
    }
  }
}
