/*
 * SWIG interface: the JNI layer for the whole ndrt C ABI (include/ndrt/ndrt.h).
 *
 *   swig -java -package org.ndrt.capi -I<repo>/include -I<repo>/java/native bindings/ndrt.i
 *
 * gives org.ndrt.capi.NdrtC: one static method per ndrt_* function, named without the prefix
 * (ndrt_tensor_create -> NdrtC.tensor_create), and NdrtCConstants with every enum value
 * (NDRT_F32, NDRT_ERR_SHAPE_MISMATCH, ...). Conventions of the mapping:
 *
 *  - A non-OK ndrt_status becomes an exception: org.ndrt.NdrtException.of(status, ndrt_last_error())
 *    picks the subclass for the status (InvalidHandleException, ShapeException, ...). Methods whose
 *    C function only returns a status return void.
 *  - Out-parameters are return values: `ndrt_handle* out` -> long, `int32_t* out` (dtype, device,
 *    rank, counts) -> int, `int32_t* out` used as a flag -> boolean, shapes -> long[], text -> String,
 *    ndrt_tensor_data_ptr -> the address as long, ndrt_memory_stats -> MemoryStatsC.
 *    At the JNI level every status function returns a jlong (or an object) that carries the value
 *    of its out-parameter; the NDRT_RETURNS_* lines below give each function its Java type. A new
 *    header function therefore compiles without touching this file; if it has an out-parameter its
 *    Java method returns void until it is listed below (CApiCoverageTest fails until then).
 *  - int64 handles are long; (rank, shape) pairs are one long[] (null = rank 0); (pointer, count)
 *    array pairs are one Java array whose length is the count. Arrays are copied with
 *    Get/Set<Type>ArrayRegion into small stack buffers: no JNI critical region is ever held, so the
 *    runtime may call back into Java (memory pressure, release hooks) from inside any call.
 *  - Raw host-memory arguments (void* + nbytes) are direct java.nio.ByteBuffers, used from their
 *    address to their capacity. Typed Java arrays go through tensor_from_array / tensor_read_array /
 *    tensor_write_array (hand-written in java/native/ndrt_jni.c, wrapped here).
 *  - Function pointers do not cross: ndrt_tensor_wrap, ndrt_memory_set_pressure_callback and
 *    ndrt_set_log_callback are replaced by JNI versions (tensor_wrap_buffer with a Runnable hook;
 *    pressure and log callbacks dispatched to org.ndrt.capi.Callbacks). ndrt_get_api (the function
 *    table for dlopen callers) is wrapped without its table, as a version check.
 *  - Hand-written additions (java/native/ndrt_jni.h, wrapped here the same way): exec_small (the
 *    hot path of ops without attributes: handles as scalars, no JNI array work), text results of
 *    any length, zero-copy buffers both ways, bulk array copies, a test hook for native threads.
 *  - `int32_t rank` never appears in Java: the shape/perm array that goes with it gives its length.
 */
%module(jniclassname="NdrtCJNI") NdrtC

%{
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ndrt/ndrt.h"
#include "ndrt_jni.h"

/* Copies a Java long[] into `small` (or a malloc'ed block when longer); null gives (NULL, 0).
 * Returns 0, or -1 with an OutOfMemoryError pending. */
static int ndrtj_longs_in(JNIEnv* jenv, jlongArray a, int64_t* small, jsize small_n, int64_t** heap,
                          int64_t** data, int32_t* n) {
  *heap = NULL;
  if (!a) {
    *data = NULL;
    *n = 0;
    return 0;
  }
  jsize len = (*jenv)->GetArrayLength(jenv, a);
  int64_t* p = small;
  if (len > small_n) {
    p = *heap = (int64_t*)malloc((size_t)len * sizeof(int64_t));
    if (!p) {
      ndrtj_throw_message(jenv, NDRT_ERR_OUT_OF_MEMORY, "out of memory copying a long[] argument");
      return -1;
    }
  }
  (*jenv)->GetLongArrayRegion(jenv, a, 0, len, (jlong*)p);
  *data = p;
  *n = (int32_t)len;
  return 0;
}
%}

/* Fixed-width integers. int64_t stays an opaque name carrying long long's typemaps (Java long), so
 * that the generated C passes int64_t pointers as int64_t pointers (stdint.i would make them long
 * long, a different type from Linux's int64_t). */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
%apply long long { int64_t };
%apply const long long & { const int64_t & };

/* Passes a parenthesised typemap pattern with commas through a macro. */
#define %arg(X...) X

/* The native libraries load with the first use of NdrtC (org.ndrt.NativeLoader). */
%pragma(java) jniclasscode=%{
  static {
    org.ndrt.NativeLoader.load();
  }
%}
%pragma(java) moduleclassmodifiers="public final class"
%pragma(java) jniclassclassmodifiers="final class"

/* Enum values as compile-time constants. */
%javaconst(1);

/* NdrtC.tensor_create for ndrt_tensor_create; the hand-written ndrtj_* likewise. */
%rename("%(regex:/^ndrtj?_(.*)$/\\1/)s", %$isfunction) "";
%rename(MemoryStatsC) ndrt_memory_stats;
/* SWIG proxies would free their memory in finalize(): never; MemoryStatsC is freed by delete(). */
%typemap(javafinalize) SWIGTYPE ""

/* ------------------------------------------------------------------------------------------------
 * Status -> exception; out-parameter -> return value
 * ---------------------------------------------------------------------------------------------- */
%typemap(jni) ndrt_status "jlong"
%typemap(jtype) ndrt_status "long"
%typemap(jstype) ndrt_status "void"
%typemap(javaout) ndrt_status { $jnicall; }
/* The exception is raised in "ret", after every argument was cleaned up ("freearg"); out-parameter
 * typemaps ("argout") look at `result` and do nothing on failure. The value returned along with a
 * pending exception is ignored by the JVM. */
%typemap(out) ndrt_status %{ $result = 0; %}
%typemap(ret) ndrt_status %{
  if ($1 != NDRT_OK && $1 != NDRTJ_THROWN) ndrtj_throw_status(jenv, $1);
%}
/* As an argument (ndrt_status_name) a status is a plain int. */
%apply int { ndrt_status status };

%define NDRT_RETURNS_LONG(FUNC)
%typemap(jstype) ndrt_status FUNC "long"
%typemap(javaout) ndrt_status FUNC { return $jnicall; }
%enddef
%define NDRT_RETURNS_INT(FUNC)
%typemap(jstype) ndrt_status FUNC "int"
%typemap(javaout) ndrt_status FUNC { return (int) $jnicall; }
%enddef
%define NDRT_RETURNS_BOOLEAN(FUNC)
%typemap(jstype) ndrt_status FUNC "boolean"
%typemap(javaout) ndrt_status FUNC { return $jnicall != 0; }
%enddef
%define NDRT_RETURNS_OBJECT(FUNC, JNITYPE, JTYPE)
%typemap(jni) ndrt_status FUNC "JNITYPE"
%typemap(jtype) ndrt_status FUNC "JTYPE"
%typemap(jstype) ndrt_status FUNC "JTYPE"
%typemap(javaout) ndrt_status FUNC { return $jnicall; }
%enddef

/* Scalar out-parameters. */
%typemap(in, numinputs=0) int32_t* out (int32_t temp = 0), int32_t* op_id (int32_t temp = 0) "$1 = &temp;"
%typemap(argout) int32_t* out, int32_t* op_id "$result = (jlong)temp$argnum;"
%typemap(in, numinputs=0) int64_t* out (int64_t temp = 0) "$1 = &temp;"
%typemap(argout) int64_t* out "$result = (jlong)temp$argnum;"
%typemap(in, numinputs=0) void** out (void* temp = 0) "$1 = &temp;"
%typemap(argout) void** out "$result = (jlong)(intptr_t)temp$argnum;"

NDRT_RETURNS_LONG(ndrt_tensor_create)
NDRT_RETURNS_LONG(ndrt_tensor_from_host)
NDRT_RETURNS_LONG(ndrt_tensor_retain)
NDRT_RETURNS_LONG(ndrt_tensor_offset)
NDRT_RETURNS_LONG(ndrt_tensor_numel)
NDRT_RETURNS_LONG(ndrt_tensor_data_ptr)
NDRT_RETURNS_LONG(ndrt_tensor_reshape)
NDRT_RETURNS_LONG(ndrt_tensor_permute)
NDRT_RETURNS_LONG(ndrt_tensor_transpose)
NDRT_RETURNS_LONG(ndrt_tensor_slice)
NDRT_RETURNS_LONG(ndrt_tensor_expand)
NDRT_RETURNS_LONG(ndrt_tensor_contiguous)
NDRT_RETURNS_LONG(ndrt_tensor_cast)
NDRT_RETURNS_LONG(ndrt_tensor_to_device)
NDRT_RETURNS_LONG(ndrt_live_handles)
NDRT_RETURNS_LONG(ndrt_profiler_count)
NDRT_RETURNS_LONG(ndrt_event_record)
NDRT_RETURNS_LONG(ndrt_comm_world)
NDRT_RETURNS_LONG(ndrt_comm_split)
NDRT_RETURNS_LONG(ndrt_allreduce_async)
NDRT_RETURNS_LONG(ndrtj_tensor_wrap_buffer)
NDRT_RETURNS_LONG(ndrtj_tensor_from_array)
NDRT_RETURNS_LONG(ndrtj_exec_small)
NDRT_RETURNS_INT(ndrt_tensor_dtype)
NDRT_RETURNS_INT(ndrt_tensor_rank)
NDRT_RETURNS_INT(ndrt_tensor_device)
NDRT_RETURNS_INT(ndrt_device_count)
NDRT_RETURNS_INT(ndrt_default_device_type)
NDRT_RETURNS_INT(ndrt_thread_device)
NDRT_RETURNS_INT(ndrt_op_count)
NDRT_RETURNS_INT(ndrt_op_find)
NDRT_RETURNS_INT(ndrt_comm_rank)
NDRT_RETURNS_INT(ndrt_comm_size)
NDRT_RETURNS_INT(ndrt_comm_local_rank)
NDRT_RETURNS_BOOLEAN(ndrt_tensor_is_contiguous)
NDRT_RETURNS_BOOLEAN(ndrt_event_query)

/* Shape and strides: (out, capacity) -> long[] of the tensor's rank. */
%typemap(in, numinputs=0) (int64_t* out, int32_t capacity) (int64_t temp[NDRT_MAX_RANK]) %{
  $1 = temp;
  $2 = NDRT_MAX_RANK;
%}
%typemap(argout) (int64_t* out, int32_t capacity) %{
  if (result == NDRT_OK) {
    int32_t rank_ = 0;
    ndrt_tensor_rank(arg1, &rank_);
    jlongArray a_ = (*jenv)->NewLongArray(jenv, rank_);
    if (a_) (*jenv)->SetLongArrayRegion(jenv, a_, 0, rank_, (const jlong*)temp$argnum);
    $result = a_;
  }
%}
NDRT_RETURNS_OBJECT(ndrt_tensor_shape, jlongArray, long[])
NDRT_RETURNS_OBJECT(ndrt_tensor_strides, jlongArray, long[])

/* Device names: a small buffer -> String. */
%typemap(in, numinputs=0) (char* buf, size_t capacity) (char temp[128]) %{
  $1 = temp;
  $2 = sizeof temp;
%}
%typemap(argout) (char* buf, size_t capacity) %{
  if (result == NDRT_OK) $result = (*jenv)->NewStringUTF(jenv, temp$argnum);
%}
NDRT_RETURNS_OBJECT(ndrt_device_name, jstring, String)

/* Text of any length (op descriptions, configuration values, profiler summary) -> String. */
%typemap(in, numinputs=0) char** text (char* temp = NULL) "$1 = &temp;"
%typemap(argout) char** text %{
  if (result == NDRT_OK) $result = (*jenv)->NewStringUTF(jenv, temp$argnum ? temp$argnum : "");
%}
%typemap(freearg) char** text %{ free(temp$argnum); %}
NDRT_RETURNS_OBJECT(ndrtj_op_describe, jstring, String)
NDRT_RETURNS_OBJECT(ndrtj_config_get, jstring, String)
NDRT_RETURNS_OBJECT(ndrtj_profiler_summary, jstring, String)

/* Memory statistics -> a MemoryStatsC the caller owns (free it with delete()). */
%typemap(in, numinputs=0) ndrt_memory_stats* out (ndrt_memory_stats temp) %{
  memset(&temp, 0, sizeof temp);
  $1 = &temp;
%}
%typemap(argout) ndrt_memory_stats* out %{
  if (result == NDRT_OK) {
    ndrt_memory_stats* copy_ = (ndrt_memory_stats*)malloc(sizeof(ndrt_memory_stats));
    if (copy_) *copy_ = temp$argnum;
    else result = NDRT_ERR_OUT_OF_MEMORY; /* "ret" throws; its message may be stale, rare */
    $result = (jlong)(intptr_t)copy_;
  }
%}
%typemap(jstype) ndrt_status ndrt_memory_stats_get "MemoryStatsC"
%typemap(javaout) ndrt_status ndrt_memory_stats_get {
    return new MemoryStatsC($jnicall, true);
  }

/* A direct ByteBuffer over a tensor's memory. */
%typemap(in, numinputs=0) jobject* out (jobject temp = NULL) "$1 = &temp;"
%typemap(argout) jobject* out "$result = temp$argnum;"
NDRT_RETURNS_OBJECT(ndrtj_tensor_direct_buffer, jobject, java.nio.ByteBuffer)

/* ------------------------------------------------------------------------------------------------
 * Array arguments
 * ---------------------------------------------------------------------------------------------- */
%define NDRT_JAVA_ARRAY_TYPES(PATTERN, JNITYPE, JTYPE)
%typemap(jni) PATTERN "JNITYPE"
%typemap(jtype) PATTERN "JTYPE"
%typemap(jstype) PATTERN "JTYPE"
%typemap(javain) PATTERN "$javainput"
%enddef

/* (rank, shape) -> one long[] named shape (null: a scalar, rank 0); (rank, perm) -> int[] perm.
 * Not a multi-argument typemap, because SWIG would name the Java parameter after the first C one
 * ("rank"). Instead `rank` takes no Java argument and publishes its variable to the typemap of the
 * array that follows it through a macro, which that typemap sets and #undefs (the "check" typemap of
 * rank, emitted after every "in", #undefs it in any case). An array without a rank is left alone. */
%typemap(in, numinputs=0) int32_t rank %{
  $1 = 0;
#define NDRTJ_RANK_OF_THIS_CALL $1
%}
%typemap(check) int32_t rank %{
#undef NDRTJ_RANK_OF_THIS_CALL
%}
%typemap(jni) const int64_t* shape "jlongArray"
%typemap(jtype) const int64_t* shape "long[]"
%typemap(jstype) const int64_t* shape "long[]"
%typemap(javain) const int64_t* shape "$javainput"
%typemap(in) const int64_t* shape (int64_t small[NDRT_MAX_RANK], int64_t* heap = NULL, int32_t n = 0) %{
  if (ndrtj_longs_in(jenv, $input, small, NDRT_MAX_RANK, &heap, (int64_t**)&$1, &n)) return $null;
#ifdef NDRTJ_RANK_OF_THIS_CALL
  NDRTJ_RANK_OF_THIS_CALL = n;
#endif
%}
%typemap(freearg) const int64_t* shape %{ free(heap$argnum); %}

%typemap(jni) const int32_t* perm "jintArray"
%typemap(jtype) const int32_t* perm "int[]"
%typemap(jstype) const int32_t* perm "int[]"
%typemap(javain) const int32_t* perm "$javainput"
%typemap(in) const int32_t* perm (int32_t small[NDRT_MAX_RANK], int32_t* heap = NULL, jsize n = 0) %{
  $1 = NULL;
  if ($input) {
    n = (*jenv)->GetArrayLength(jenv, $input);
    int32_t* p_ = small;
    if (n > NDRT_MAX_RANK && !(p_ = heap = (int32_t*)malloc((size_t)n * sizeof(int32_t)))) {
      ndrtj_throw_message(jenv, NDRT_ERR_OUT_OF_MEMORY, "out of memory copying an int[] argument");
      return $null;
    }
    (*jenv)->GetIntArrayRegion(jenv, $input, 0, n, (jint*)p_);
    $1 = p_;
  }
#ifdef NDRTJ_RANK_OF_THIS_CALL
  NDRTJ_RANK_OF_THIS_CALL = (int32_t)n;
#endif
%}
%typemap(freearg) const int32_t* perm %{ free(heap$argnum); %}

/* (strides, n_strides) -> long[] (null: row-major). */
NDRT_JAVA_ARRAY_TYPES(%arg((const int64_t* strides, int32_t n_strides)), jlongArray, long[])
%typemap(in) (const int64_t* strides, int32_t n_strides) (int64_t small[NDRT_MAX_RANK], int64_t* heap = NULL) %{
  if (ndrtj_longs_in(jenv, $input, small, NDRT_MAX_RANK, &heap, (int64_t**)&$1, &$2)) return $null;
%}
%typemap(freearg) (const int64_t* strides, int32_t n_strides) %{ free(heap$argnum); %}

/* ndrt_exec: inputs, attribute ints -> long[]; floats -> double[]; outputs -> long[] in and out
 * (0 entries come back as the handles the runtime allocated). null means none. */
NDRT_JAVA_ARRAY_TYPES(%arg((const ndrt_handle* inputs, int32_t n_inputs)), jlongArray, long[])
%typemap(in) (const ndrt_handle* inputs, int32_t n_inputs) (int64_t small[16], int64_t* heap = NULL) %{
  if (ndrtj_longs_in(jenv, $input, small, 16, &heap, (int64_t**)&$1, &$2)) return $null;
%}
%typemap(freearg) (const ndrt_handle* inputs, int32_t n_inputs) %{ free(heap$argnum); %}

/* ndrt_allreduce_async: the tensors of one bucket -> long[] of handles. */
NDRT_JAVA_ARRAY_TYPES(%arg((const ndrt_handle* tensors, int32_t n)), jlongArray, long[])
%typemap(in) (const ndrt_handle* tensors, int32_t n) (int64_t small[16], int64_t* heap = NULL) %{
  if (ndrtj_longs_in(jenv, $input, small, 16, &heap, (int64_t**)&$1, &$2)) return $null;
%}
%typemap(freearg) (const ndrt_handle* tensors, int32_t n) %{ free(heap$argnum); %}

NDRT_JAVA_ARRAY_TYPES(%arg((const int64_t* ints, int32_t n_ints)), jlongArray, long[])
%typemap(in) (const int64_t* ints, int32_t n_ints) (int64_t small[32], int64_t* heap = NULL) %{
  if (ndrtj_longs_in(jenv, $input, small, 32, &heap, (int64_t**)&$1, &$2)) return $null;
%}
%typemap(freearg) (const int64_t* ints, int32_t n_ints) %{ free(heap$argnum); %}

NDRT_JAVA_ARRAY_TYPES(%arg((ndrt_handle* outputs, int32_t n_outputs)), jlongArray, long[])
%typemap(in) (ndrt_handle* outputs, int32_t n_outputs) (int64_t small[8], int64_t* heap = NULL, int any_zero = 0) %{
  if (ndrtj_longs_in(jenv, $input, small, 8, &heap, (int64_t**)&$1, &$2)) return $null;
  {
    int32_t i_;
    for (i_ = 0; i_ < $2; ++i_) any_zero |= $1[i_] == 0;
  }
%}
/* Copied back only when the runtime had 0 entries to fill in (all given: nothing changed). */
%typemap(argout) (ndrt_handle* outputs, int32_t n_outputs) %{
  if ($input && result == NDRT_OK && any_zero$argnum) (*jenv)->SetLongArrayRegion(jenv, $input, 0, $2, (const jlong*)$1);
%}
%typemap(freearg) (ndrt_handle* outputs, int32_t n_outputs) %{ free(heap$argnum); %}

NDRT_JAVA_ARRAY_TYPES(%arg((const double* floats, int32_t n_floats)), jdoubleArray, double[])
%typemap(in) (const double* floats, int32_t n_floats) (double small[16], double* heap = NULL) %{
  $1 = NULL;
  $2 = 0;
  if ($input) {
    jsize n_ = (*jenv)->GetArrayLength(jenv, $input);
    double* p_ = small;
    if (n_ > 16 && !(p_ = heap = (double*)malloc((size_t)n_ * sizeof(double)))) {
      ndrtj_throw_message(jenv, NDRT_ERR_OUT_OF_MEMORY, "out of memory copying a double[] argument");
      return $null;
    }
    (*jenv)->GetDoubleArrayRegion(jenv, $input, 0, n_, (jdouble*)p_);
    $1 = p_;
    $2 = (int32_t)n_;
  }
%}
%typemap(freearg) (const double* floats, int32_t n_floats) %{ free(heap$argnum); %}

/* Raw host memory: a direct ByteBuffer, from its address to its capacity. */
%define NDRT_DIRECT_BUFFER(PATTERN)
NDRT_JAVA_ARRAY_TYPES(PATTERN, jobject, java.nio.ByteBuffer)
%typemap(in) PATTERN %{
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $1 = (*jenv)->GetDirectBufferAddress(jenv, $input);
    jlong cap_ = (*jenv)->GetDirectBufferCapacity(jenv, $input);
    if (cap_ < 0) {
      ndrtj_throw_message(jenv, NDRT_ERR_INVALID_ARGUMENT, "expected a direct ByteBuffer (ByteBuffer.allocateDirect)");
      return $null;
    }
    $2 = (size_t)cap_;
  }
%}
%enddef
NDRT_DIRECT_BUFFER(%arg((const void* data, size_t nbytes)))
NDRT_DIRECT_BUFFER(%arg((void* dst, size_t nbytes)))
NDRT_DIRECT_BUFFER(%arg((const void* src, size_t nbytes)))

/* JNI values handed to the hand-written functions. */
%typemap(in, numinputs=0) JNIEnv* jenv "$1 = jenv;"
%typemap(jni) jobject buffer "jobject"
%typemap(jtype) jobject buffer "java.nio.ByteBuffer"
%typemap(jstype) jobject buffer "java.nio.ByteBuffer"
%typemap(jni) jobject on_release "jobject"
%typemap(jtype) jobject on_release "Runnable"
%typemap(jstype) jobject on_release "Runnable"
%typemap(jni) jarray "jarray"
%typemap(jtype) jarray "Object"
%typemap(jstype) jarray "Object"
%typemap(in) jarray "$1 = $input;"
%typemap(javain) jarray "$javainput"

/* ------------------------------------------------------------------------------------------------
 * The C ABI
 * ---------------------------------------------------------------------------------------------- */
/* Replaced by the JNI versions in ndrt_jni.h (function pointers, text buffers). */
%ignore ndrt_tensor_wrap;
%ignore ndrt_memory_set_pressure_callback;
%ignore ndrt_set_log_callback;
%ignore ndrt_op_describe;
%ignore ndrt_config_get;
%ignore ndrt_profiler_summary;
/* The versioned function table is for dlopen callers; Java binds the flat functions. get_api stays,
 * without its table: NdrtC.get_api(v) returns normally when the library offers table version v and
 * throws NotSupportedException (NDRT_ERR_NOT_CONFIGURED) otherwise. */
%ignore ndrt_api;
%typemap(in, numinputs=0) const ndrt_api** out (const ndrt_api* temp = NULL) "$1 = ($1_ltype)&temp;"
%typemap(argout) const ndrt_api** out ""

#define NDRT_API
%include "ndrt/ndrt.h"

/* The hand-written JNI functions, wrapped like the C ABI. */
%ignore ndrtj_throw_status;
%ignore ndrtj_throw_message;
%ignore ndrtj_env;
%ignore NDRTJ_THROWN;
%include "ndrt_jni.h"

/* Device macros SWIG cannot evaluate (NDRT_DEVICE(type, index) packs (type << 16) | index). */
#undef NDRT_CPU
#undef NDRT_DEVICE_CURRENT
%constant int32_t NDRT_CPU = 0;
%constant int32_t NDRT_DEVICE_CURRENT = -1;
