/* Hand-written half of the JNI layer; see ndrt_jni.h. */
#include "ndrt_jni.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static JavaVM* g_vm;
static pthread_key_t g_detach_key;

/* Cached at JNI_OnLoad (global refs / ids stay valid for the library's life). */
static jclass g_exception_class;  /* org.ndrt.NdrtException */
static jmethodID g_exception_of;  /* static NdrtException of(int, String) */
static jclass g_callbacks_class;  /* org.ndrt.capi.Callbacks */
static jmethodID g_cb_pressure;   /* static void pressure(long) */
static jmethodID g_cb_log;        /* static void log(int, String) */
static jmethodID g_runnable_run;  /* Runnable.run() */
static jclass g_byte_buffer_class;
static jmethodID g_buffer_is_read_only;

/* Primitive array classes, to learn a jarray's element type. */
enum { K_BOOL, K_BYTE, K_SHORT, K_INT, K_LONG, K_FLOAT, K_DOUBLE, K_COUNT };
static jclass g_array_class[K_COUNT];
static const char* const k_array_sig[K_COUNT] = {"[Z", "[B", "[S", "[I", "[J", "[F", "[D"};
static const char* const k_array_java[K_COUNT] = {"boolean[]", "byte[]", "short[]", "int[]",
                                                  "long[]",    "float[]", "double[]"};

static void detach_at_exit(void* vm) {
  if (vm) (*(JavaVM*)vm)->DetachCurrentThread((JavaVM*)vm);
}

static jclass global_class(JNIEnv* env, const char* name) {
  jclass local = (*env)->FindClass(env, name);
  if (!local) return NULL;
  jclass global = (jclass)(*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)reserved;
  JNIEnv* env;
  if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  g_vm = vm;
  if (pthread_key_create(&g_detach_key, detach_at_exit) != 0) return JNI_ERR;
  g_exception_class = global_class(env, "org/ndrt/NdrtException");
  if (!g_exception_class) return JNI_ERR;
  g_exception_of = (*env)->GetStaticMethodID(env, g_exception_class, "of", "(ILjava/lang/String;)Lorg/ndrt/NdrtException;");
  g_callbacks_class = global_class(env, "org/ndrt/capi/Callbacks");
  if (!g_exception_of || !g_callbacks_class) return JNI_ERR;
  g_cb_pressure = (*env)->GetStaticMethodID(env, g_callbacks_class, "pressure", "(J)V");
  g_cb_log = (*env)->GetStaticMethodID(env, g_callbacks_class, "log", "(ILjava/lang/String;)V");
  jclass runnable = (*env)->FindClass(env, "java/lang/Runnable");
  if (!g_cb_pressure || !g_cb_log || !runnable) return JNI_ERR;
  g_runnable_run = (*env)->GetMethodID(env, runnable, "run", "()V");
  g_byte_buffer_class = global_class(env, "java/nio/ByteBuffer");
  jclass buffer = (*env)->FindClass(env, "java/nio/Buffer");
  if (!g_runnable_run || !g_byte_buffer_class || !buffer) return JNI_ERR;
  g_buffer_is_read_only = (*env)->GetMethodID(env, buffer, "isReadOnly", "()Z");
  if (!g_buffer_is_read_only) return JNI_ERR;
  for (int k = 0; k < K_COUNT; ++k)
    if (!(g_array_class[k] = global_class(env, k_array_sig[k]))) return JNI_ERR;
  return JNI_VERSION_1_8;
}

JNIEnv* ndrtj_env(void) {
  JNIEnv* env = NULL;
  if (!g_vm) return NULL;
  jint r = (*g_vm)->GetEnv(g_vm, (void**)&env, JNI_VERSION_1_8);
  if (r == JNI_OK) return env;
  if (r != JNI_EDETACHED) return NULL;
  JavaVMAttachArgs args = {JNI_VERSION_1_8, (char*)"ndrt-native", NULL};
  if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, (void**)&env, &args) != JNI_OK) return NULL;
  pthread_setspecific(g_detach_key, g_vm); /* detach when this native thread exits */
  return env;
}

static void throw_object(JNIEnv* env, ndrt_status status, const char* message) {
  if ((*env)->ExceptionCheck(env)) return; /* keep the first exception */
  jstring text = (*env)->NewStringUTF(env, message ? message : "");
  if (!text) return;
  jobject ex = (*env)->CallStaticObjectMethod(env, g_exception_class, g_exception_of, (jint)status, text);
  (*env)->DeleteLocalRef(env, text);
  if (ex && !(*env)->ExceptionCheck(env)) (*env)->Throw(env, (jthrowable)ex);
}

void ndrtj_throw_status(JNIEnv* env, ndrt_status status) { throw_object(env, status, ndrt_last_error()); }

void ndrtj_throw_message(JNIEnv* env, ndrt_status status, const char* message) {
  throw_object(env, status, message);
}

static ndrt_status fail(JNIEnv* env, ndrt_status status, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static ndrt_status fail(JNIEnv* env, ndrt_status status, const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ndrtj_throw_message(env, status, msg);
  return NDRTJ_THROWN;
}

/* Runs a callback into Java with any pending exception set aside (and restored afterwards): the
 * runtime may call us from inside a JNI call that is about to throw. */
struct saved_exception {
  jthrowable pending;
};
static void set_aside(JNIEnv* env, struct saved_exception* s) {
  s->pending = (*env)->ExceptionOccurred(env);
  if (s->pending) (*env)->ExceptionClear(env);
}
static void restore(JNIEnv* env, struct saved_exception* s, const char* what) {
  if ((*env)->ExceptionCheck(env)) {
    /* An exception escaping a callback has nobody to go to: report it, as threads do. */
    fprintf(stderr, "ndrt: exception in %s:\n", what);
    (*env)->ExceptionDescribe(env);
    (*env)->ExceptionClear(env);
  }
  if (s->pending) {
    (*env)->Throw(env, s->pending);
    (*env)->DeleteLocalRef(env, s->pending);
  }
}

/* ------------------------------------------------------------------ text results */

typedef ndrt_status (*text_fn)(const void* arg, char* buf, size_t capacity, size_t* needed);

static ndrt_status text_call(text_fn fn, const void* arg, char** text) {
  *text = NULL;
  size_t needed = 0;
  ndrt_status st = fn(arg, NULL, 0, &needed);
  /* The text may grow between the two calls (profiler records from other threads): retry. */
  for (int attempt = 0; st == NDRT_OK && attempt < 8; ++attempt) {
    char* buf = (char*)malloc(needed ? needed : 1);
    if (!buf) return NDRT_ERR_OUT_OF_MEMORY;
    size_t size = needed;
    st = fn(arg, buf, size, &needed);
    if (st == NDRT_OK) {
      *text = buf;
      return NDRT_OK;
    }
    free(buf);
    if (needed <= size) return st; /* failed for another reason than size */
    st = NDRT_OK;
  }
  return st;
}

static ndrt_status describe_fn(const void* arg, char* buf, size_t cap, size_t* needed) {
  return ndrt_op_describe(*(const int32_t*)arg, buf, cap, needed);
}
static ndrt_status config_fn(const void* arg, char* buf, size_t cap, size_t* needed) {
  return ndrt_config_get((const char*)arg, buf, cap, needed);
}
static ndrt_status summary_fn(const void* arg, char* buf, size_t cap, size_t* needed) {
  (void)arg;
  return ndrt_profiler_summary(buf, cap, needed);
}

ndrt_status ndrtj_op_describe(int32_t op_id, char** text) { return text_call(describe_fn, &op_id, text); }
ndrt_status ndrtj_config_get(const char* key, char** text) { return text_call(config_fn, key, text); }
ndrt_status ndrtj_profiler_summary(char** text) { return text_call(summary_fn, NULL, text); }

/* ------------------------------------------------------------------ zero-copy */

struct wrap_hook {
  jobject keep;       /* global ref: the buffer */
  jobject on_release; /* global ref: a Runnable, or NULL */
};

static void wrap_release(void* data, void* user) {
  (void)data;
  struct wrap_hook* h = (struct wrap_hook*)user;
  JNIEnv* env = ndrtj_env();
  if (env) {
    struct saved_exception s;
    set_aside(env, &s);
    if (h->on_release) {
      (*env)->CallVoidMethod(env, h->on_release, g_runnable_run);
      restore(env, &s, "the release hook of a wrapped buffer");
      (*env)->DeleteGlobalRef(env, h->on_release);
    } else {
      restore(env, &s, "the release hook of a wrapped buffer");
    }
    (*env)->DeleteGlobalRef(env, h->keep);
  } /* else: the JVM is gone, and its references with it */
  free(h);
}

static int64_t dtype_itemsize(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: case NDRT_I64: return 8;
    case NDRT_F32: case NDRT_I32: return 4;
    case NDRT_F16: case NDRT_BF16: return 2;
    case NDRT_I8: case NDRT_U8: case NDRT_BOOL: return 1;
    default: return 0;
  }
}

ndrt_status ndrtj_tensor_wrap_buffer(JNIEnv* jenv, ndrt_dtype dtype, int32_t rank, const int64_t* shape,
                                     const int64_t* strides, int32_t n_strides, jobject buffer, jobject on_release,
                                     ndrt_handle* out) {
  if (!buffer) return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: buffer is null");
  if (!(*jenv)->IsInstanceOf(jenv, buffer, g_byte_buffer_class))
    return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: only a direct java.nio.ByteBuffer can be wrapped");
  void* addr = (*jenv)->GetDirectBufferAddress(jenv, buffer);
  jlong capacity = (*jenv)->GetDirectBufferCapacity(jenv, buffer);
  if (capacity < 0 || (!addr && capacity > 0))
    return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: the ByteBuffer is not direct (use ByteBuffer.allocateDirect)");
  jboolean read_only = (*jenv)->CallBooleanMethod(jenv, buffer, g_buffer_is_read_only);
  if ((*jenv)->ExceptionCheck(jenv)) return NDRTJ_THROWN;
  if (read_only) return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: the ByteBuffer is read-only");
  if (strides && n_strides != rank)
    return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap: %d strides for a shape of rank %d", (int)n_strides,
                (int)rank);
  static char empty;
  if (!addr) addr = &empty; /* capacity 0 */
  struct wrap_hook* h = (struct wrap_hook*)calloc(1, sizeof *h);
  if (!h) return fail(jenv, NDRT_ERR_OUT_OF_MEMORY, "tensor_wrap: out of memory");
  h->keep = (*jenv)->NewGlobalRef(jenv, buffer);
  h->on_release = on_release ? (*jenv)->NewGlobalRef(jenv, on_release) : NULL;
  if (!h->keep || (on_release && !h->on_release)) {
    if (h->keep) (*jenv)->DeleteGlobalRef(jenv, h->keep);
    if (h->on_release) (*jenv)->DeleteGlobalRef(jenv, h->on_release);
    free(h);
    return fail(jenv, NDRT_ERR_OUT_OF_MEMORY, "tensor_wrap: out of JNI global references");
  }
  ndrt_status st = ndrt_tensor_wrap(dtype, rank, shape, strides, addr, (size_t)capacity, wrap_release, h, out);
  if (st != NDRT_OK) { /* the hook does not run on failure: the references are still ours */
    (*jenv)->DeleteGlobalRef(jenv, h->keep);
    if (h->on_release) (*jenv)->DeleteGlobalRef(jenv, h->on_release);
    free(h);
  }
  return st;
}

ndrt_status ndrtj_tensor_direct_buffer(JNIEnv* jenv, ndrt_handle t, jobject* out) {
  int32_t contiguous = 0;
  ndrt_dtype dtype = 0;
  int64_t numel = 0;
  void* ptr = NULL;
  ndrt_status st;
  if ((st = ndrt_tensor_is_contiguous(t, &contiguous)) != NDRT_OK) return st;
  if ((st = ndrt_tensor_dtype(t, &dtype)) != NDRT_OK) return st;
  if ((st = ndrt_tensor_numel(t, &numel)) != NDRT_OK) return st;
  if (!contiguous)
    return fail(jenv, NDRT_ERR_INVALID_ARGUMENT,
                "tensor_direct_buffer: the tensor is a non-contiguous view; take contiguous() first");
  if ((st = ndrt_tensor_data_ptr(t, &ptr)) != NDRT_OK) return st;
  int64_t nbytes = numel * dtype_itemsize(dtype);
  if (nbytes > INT32_MAX)
    return fail(jenv, NDRT_ERR_NOT_SUPPORTED,
                "tensor_direct_buffer: %lld bytes do not fit one ByteBuffer (2 GiB at most); slice the tensor",
                (long long)nbytes);
  static char empty;
  *out = (*jenv)->NewDirectByteBuffer(jenv, ptr ? ptr : &empty, nbytes);
  if (!*out) return NDRTJ_THROWN; /* OutOfMemoryError pending */
  return NDRT_OK;
}

/* ------------------------------------------------------------------ bulk copies */

static int array_kind(JNIEnv* env, jarray a) {
  for (int k = 0; k < K_COUNT; ++k)
    if ((*env)->IsInstanceOf(env, a, g_array_class[k])) return k;
  return -1;
}

/* Which array kinds may carry which dtype (same element size, same meaning; f16/bf16 as raw bits
 * in short[]). */
static int kind_fits(int kind, ndrt_dtype d) {
  switch (kind) {
    case K_FLOAT: return d == NDRT_F32;
    case K_DOUBLE: return d == NDRT_F64;
    case K_LONG: return d == NDRT_I64;
    case K_INT: return d == NDRT_I32;
    case K_SHORT: return d == NDRT_F16 || d == NDRT_BF16;
    case K_BYTE: return d == NDRT_I8 || d == NDRT_U8 || d == NDRT_BOOL;
    case K_BOOL: return d == NDRT_BOOL;
    default: return 0;
  }
}

static const char* dtype_str(ndrt_dtype d) {
  static const char* const names[] = {"?", "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64", "bool"};
  return d >= 1 && d <= 9 ? names[d] : "?";
}

/* Region copies between a Java array and native memory (no critical region). */
static void array_get(JNIEnv* env, int kind, jarray a, jsize n, void* dst) {
  switch (kind) {
    case K_BOOL: (*env)->GetBooleanArrayRegion(env, (jbooleanArray)a, 0, n, (jboolean*)dst); break;
    case K_BYTE: (*env)->GetByteArrayRegion(env, (jbyteArray)a, 0, n, (jbyte*)dst); break;
    case K_SHORT: (*env)->GetShortArrayRegion(env, (jshortArray)a, 0, n, (jshort*)dst); break;
    case K_INT: (*env)->GetIntArrayRegion(env, (jintArray)a, 0, n, (jint*)dst); break;
    case K_LONG: (*env)->GetLongArrayRegion(env, (jlongArray)a, 0, n, (jlong*)dst); break;
    case K_FLOAT: (*env)->GetFloatArrayRegion(env, (jfloatArray)a, 0, n, (jfloat*)dst); break;
    case K_DOUBLE: (*env)->GetDoubleArrayRegion(env, (jdoubleArray)a, 0, n, (jdouble*)dst); break;
  }
}
static void array_set(JNIEnv* env, int kind, jarray a, jsize n, const void* src) {
  switch (kind) {
    case K_BOOL: (*env)->SetBooleanArrayRegion(env, (jbooleanArray)a, 0, n, (const jboolean*)src); break;
    case K_BYTE: (*env)->SetByteArrayRegion(env, (jbyteArray)a, 0, n, (const jbyte*)src); break;
    case K_SHORT: (*env)->SetShortArrayRegion(env, (jshortArray)a, 0, n, (const jshort*)src); break;
    case K_INT: (*env)->SetIntArrayRegion(env, (jintArray)a, 0, n, (const jint*)src); break;
    case K_LONG: (*env)->SetLongArrayRegion(env, (jlongArray)a, 0, n, (const jlong*)src); break;
    case K_FLOAT: (*env)->SetFloatArrayRegion(env, (jfloatArray)a, 0, n, (const jfloat*)src); break;
    case K_DOUBLE: (*env)->SetDoubleArrayRegion(env, (jdoubleArray)a, 0, n, (const jdouble*)src); break;
  }
}

/* Checks that `a` can carry numel elements of dtype; returns its kind or NDRTJ_THROWN. */
static int check_array(JNIEnv* env, const char* fn, jarray a, ndrt_dtype dtype, int64_t numel) {
  if (!a) return fail(env, NDRT_ERR_INVALID_ARGUMENT, "%s: array is null", fn);
  int kind = array_kind(env, a);
  if (kind < 0) return fail(env, NDRT_ERR_INVALID_ARGUMENT, "%s: not a primitive array", fn);
  if (!kind_fits(kind, dtype))
    return fail(env, NDRT_ERR_DTYPE_MISMATCH, "%s: a %s cannot hold dtype %s (cast the tensor first)", fn,
                k_array_java[kind], dtype_str(dtype));
  jsize n = (*env)->GetArrayLength(env, a);
  if ((int64_t)n != numel)
    return fail(env, NDRT_ERR_SHAPE_MISMATCH, "%s: the %s has %d elements, the tensor %lld", fn, k_array_java[kind],
                (int)n, (long long)numel);
  return kind;
}

ndrt_status ndrtj_tensor_from_array(JNIEnv* jenv, ndrt_dtype dtype, int32_t rank, const int64_t* shape,
                                    jarray data, ndrt_device device, ndrt_handle* out) {
  int64_t numel = 1;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0 || __builtin_mul_overflow(numel, shape[i], &numel)) {
      ndrt_status st = ndrt_tensor_create(dtype, rank, shape, device, out); /* the runtime says what is wrong */
      if (st != NDRT_OK) return st;
      ndrt_tensor_release(*out);
      return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_from_array: the shape's element count overflows");
    }
  }
  if (dtype_itemsize(dtype) == 0)
    return fail(jenv, NDRT_ERR_INVALID_ARGUMENT, "tensor_from_array: %d is not a valid dtype", (int)dtype);
  int kind = check_array(jenv, "tensor_from_array", data, dtype, numel);
  if (kind < 0) return NDRTJ_THROWN;
  ndrt_handle h = 0;
  ndrt_status st = ndrt_tensor_create(dtype, rank, shape, device, &h);
  if (st != NDRT_OK) return st;
  void* ptr = NULL;
  if (ndrt_tensor_data_ptr(h, &ptr) == NDRT_OK) { /* cpu: one copy, straight into the tensor */
    if (numel) array_get(jenv, kind, data, (jsize)numel, ptr);
  } else { /* another device: through host memory */
    size_t nbytes = (size_t)(numel * dtype_itemsize(dtype));
    void* tmp = malloc(nbytes ? nbytes : 1);
    if (!tmp) {
      ndrt_tensor_release(h);
      return fail(jenv, NDRT_ERR_OUT_OF_MEMORY, "tensor_from_array: out of host memory for %zu bytes", nbytes);
    }
    array_get(jenv, kind, data, (jsize)numel, tmp);
    st = ndrt_tensor_write(h, tmp, nbytes);
    free(tmp);
    if (st != NDRT_OK) {
      ndrt_tensor_release(h);
      return st;
    }
  }
  *out = h;
  return NDRT_OK;
}

/* A handle of our own keeps the storage alive while we copy, even if another thread releases the
 * caller's handle meanwhile. */
static ndrt_status array_io(JNIEnv* jenv, ndrt_handle t, jarray a, int to_array) {
  const char* fn = to_array ? "tensor_read_array" : "tensor_write_array";
  ndrt_dtype dtype = 0;
  int64_t numel = 0;
  int32_t contiguous = 0;
  ndrt_handle own = 0;
  ndrt_status st;
  if ((st = ndrt_tensor_retain(t, &own)) != NDRT_OK) return st;
  if ((st = ndrt_tensor_dtype(own, &dtype)) != NDRT_OK || (st = ndrt_tensor_numel(own, &numel)) != NDRT_OK ||
      (st = ndrt_tensor_is_contiguous(own, &contiguous)) != NDRT_OK) {
    ndrt_tensor_release(own);
    return st;
  }
  int kind = check_array(jenv, fn, a, dtype, numel);
  if (kind < 0) {
    ndrt_tensor_release(own);
    return NDRTJ_THROWN;
  }
  void* ptr = NULL;
  if (contiguous && ndrt_tensor_data_ptr(own, &ptr) == NDRT_OK) {
    if (numel) {
      if (to_array)
        array_set(jenv, kind, a, (jsize)numel, ptr);
      else
        array_get(jenv, kind, a, (jsize)numel, ptr);
    }
  } else {
    size_t nbytes = (size_t)(numel * dtype_itemsize(dtype));
    void* tmp = malloc(nbytes ? nbytes : 1);
    if (!tmp) {
      ndrt_tensor_release(own);
      return fail(jenv, NDRT_ERR_OUT_OF_MEMORY, "%s: out of host memory for %zu bytes", fn, nbytes);
    }
    if (to_array) {
      st = ndrt_tensor_read(own, tmp, nbytes);
      if (st == NDRT_OK) array_set(jenv, kind, a, (jsize)numel, tmp);
    } else {
      array_get(jenv, kind, a, (jsize)numel, tmp);
      st = ndrt_tensor_write(own, tmp, nbytes);
    }
    free(tmp);
  }
  if (st != NDRT_OK) { /* keep the failing call's message: release may not overwrite it, but be safe */
    ndrtj_throw_status(jenv, st);
    ndrt_tensor_release(own);
    return NDRTJ_THROWN;
  }
  ndrt_tensor_release(own);
  return NDRT_OK;
}

ndrt_status ndrtj_tensor_read_array(JNIEnv* jenv, ndrt_handle t, jarray dst) { return array_io(jenv, t, dst, 1); }
ndrt_status ndrtj_tensor_write_array(JNIEnv* jenv, ndrt_handle t, jarray src) { return array_io(jenv, t, src, 0); }

/* ------------------------------------------------------------------ hot path */

ndrt_status ndrtj_exec_small(int32_t op_id, int32_t n_inputs, ndrt_handle in0, ndrt_handle in1, ndrt_handle in2,
                             ndrt_handle in3, ndrt_handle out0, ndrt_handle* out) {
  const ndrt_handle in[4] = {in0, in1, in2, in3};
  *out = out0;
  return ndrt_exec(op_id, in, n_inputs < 0 || n_inputs > 4 ? -1 : n_inputs, out, 1, NULL, 0, NULL, 0);
}

/* ------------------------------------------------------------------ callbacks */

static void pressure_trampoline(int64_t in_use, void* user) {
  (void)user;
  JNIEnv* env = ndrtj_env();
  if (!env) return;
  struct saved_exception s;
  set_aside(env, &s);
  (*env)->CallStaticVoidMethod(env, g_callbacks_class, g_cb_pressure, (jlong)in_use);
  restore(env, &s, "the memory-pressure listener");
}

static void log_trampoline(int32_t level, const char* message, void* user) {
  (void)user;
  JNIEnv* env = ndrtj_env();
  if (!env) {
    fprintf(stderr, "ndrt: %s\n", message);
    return;
  }
  struct saved_exception s;
  set_aside(env, &s);
  jstring text = (*env)->NewStringUTF(env, message ? message : "");
  if (text) {
    (*env)->CallStaticVoidMethod(env, g_callbacks_class, g_cb_log, (jint)level, text);
    (*env)->DeleteLocalRef(env, text);
  }
  restore(env, &s, "the log listener");
}

ndrt_status ndrtj_memory_set_pressure_callback(int64_t threshold_bytes, int32_t enabled) {
  return ndrt_memory_set_pressure_callback(threshold_bytes, enabled ? pressure_trampoline : NULL, NULL);
}

ndrt_status ndrtj_set_log_callback(int32_t enabled) {
  return ndrt_set_log_callback(enabled ? log_trampoline : NULL, NULL);
}

/* ------------------------------------------------------------------ test support */

struct release_job {
  ndrt_handle handle;
  ndrt_status status;
  char message[512];
};

static void* release_thread(void* arg) {
  struct release_job* job = (struct release_job*)arg;
  job->status = ndrt_tensor_release(job->handle);
  if (job->status != NDRT_OK) snprintf(job->message, sizeof job->message, "%s", ndrt_last_error());
  return NULL;
}

ndrt_status ndrtj_debug_release_on_native_thread(ndrt_handle t) {
  struct release_job job;
  memset(&job, 0, sizeof job);
  job.handle = t;
  pthread_t thread;
  if (pthread_create(&thread, NULL, release_thread, &job) != 0) return NDRT_ERR_INTERNAL;
  pthread_join(thread, NULL);
  if (job.status != NDRT_OK) {
    JNIEnv* env = ndrtj_env();
    if (env) ndrtj_throw_message(env, job.status, job.message);
    return NDRTJ_THROWN;
  }
  return NDRT_OK;
}
