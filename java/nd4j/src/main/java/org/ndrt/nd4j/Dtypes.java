package org.ndrt.nd4j;

import org.nd4j.linalg.api.buffer.DataType;
import org.ndrt.DType;

/** ND4J's DataType to and from ndrt's DType, the one mapping every class of the drop-in uses. */
public final class Dtypes {
  private Dtypes() {}

  /** The ndrt dtype storing {@code t}; throws for the types ndrt has no storage for. */
  public static DType toNdrt(DataType t) {
    switch (t) {
      case DOUBLE: return DType.F64;
      case FLOAT: return DType.F32;
      case HALF: return DType.F16;
      case BFLOAT16: return DType.BF16;
      case LONG: return DType.I64;
      case INT: return DType.I32;
      case BYTE: return DType.I8;
      case UBYTE: return DType.U8;
      case BOOL: return DType.BOOL;
      default:
        throw new UnsupportedOperationException("ndrt's ND4J drop-in does not implement arrays of DataType." + t
            + " (ndrt stores DOUBLE, FLOAT, HALF, BFLOAT16, LONG, INT, BYTE, UBYTE and BOOL)");
    }
  }

  public static DataType fromNdrt(DType d) {
    switch (d) {
      case F64: return DataType.DOUBLE;
      case F32: return DataType.FLOAT;
      case F16: return DataType.HALF;
      case BF16: return DataType.BFLOAT16;
      case I64: return DataType.LONG;
      case I32: return DataType.INT;
      case I8: return DataType.BYTE;
      case U8: return DataType.UBYTE;
      case BOOL: return DataType.BOOL;
      default: throw new IllegalStateException("no ND4J DataType for ndrt dtype " + d);
    }
  }
}
