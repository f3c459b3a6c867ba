/*
 * ndrt C harness: calls every function of ndrt.h from strict C11 and drives every error path the
 * header documents. Each expectation is counted; the last line is "N passed, N failed" and the exit
 * status is nonzero when anything failed.
 *
 * Error expectations check three things: the exact status, a non-empty ndrt_last_error(), and that
 * the message names something specific to the failure (the op, function, handle, key or shape).
 *
 * The harness presents two cpu devices: it sets NDRT_CPU_VIRTUAL_DEVICES=2 with setenv() before its
 * first ndrt call.
 */
#define _POSIX_C_SOURCE 200809L

#include <ndrt/ndrt.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------------
 * Tiny assertion layer
 * ---------------------------------------------------------------------------------------------- */
static int g_passed, g_failed;

static const char* safe_last_error(void) {
  const char* m = ndrt_last_error();
  return m ? m : "(NULL)";
}

static int check_(int ok, const char* what, const char* file, int line) {
  if (ok) {
    ++g_passed;
    return 1;
  }
  ++g_failed;
  fprintf(stderr, "%s:%d: FAILED: %s\n    (ndrt_last_error: \"%s\")\n", file, line, what, safe_last_error());
  return 0;
}
#define CHECK(cond) check_((cond) ? 1 : 0, #cond, __FILE__, __LINE__)

/* Formatted failure with context; counts one failure. */
static void fail_(const char* file, int line, const char* fmt, ...) {
  va_list ap;
  ++g_failed;
  fprintf(stderr, "%s:%d: FAILED: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n    (ndrt_last_error: \"%s\")\n", safe_last_error());
}
#define FAIL(msg) fail_(__FILE__, __LINE__, "%s", msg)

/* The same without this thread's last error (for failures observed in a child process). */
static void fail_child_(const char* file, int line, const char* fmt, ...) {
  va_list ap;
  ++g_failed;
  fprintf(stderr, "%s:%d: FAILED: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
}

/* Status check. For want != NDRT_OK the message must be non-empty and contain n1 and n2 (each may
 * be NULL). Returns 1 when everything held. */
static int expect_(ndrt_status got, ndrt_status want, const char* n1, const char* n2, const char* expr,
                   const char* file, int line) {
  const char* msg;
  if (got != want) {
    fail_(file, line, "%s\n    returned %s (%d), expected %s (%d)", expr, ndrt_status_name(got), (int)got,
          ndrt_status_name(want), (int)want);
    return 0;
  }
  if (want == NDRT_OK) {
    ++g_passed;
    return 1;
  }
  msg = ndrt_last_error();
  if (!msg || !msg[0]) {
    fail_(file, line, "%s\n    returned %s but ndrt_last_error() is empty", expr, ndrt_status_name(got));
    return 0;
  }
  if ((n1 && !strstr(msg, n1)) || (n2 && !strstr(msg, n2))) {
    fail_(file, line, "%s\n    returned %s as expected, but the message does not mention \"%s\"", expr,
          ndrt_status_name(got), (n1 && !strstr(msg, n1)) ? n1 : n2);
    return 0;
  }
  ++g_passed;
  return 1;
}
#define EXPECT_OK(call) expect_((call), NDRT_OK, NULL, NULL, #call, __FILE__, __LINE__)
#define EXPECT_ERR(call, status, n1, n2) expect_((call), (status), (n1), (n2), #call, __FILE__, __LINE__)

/* Decimal text of a handle or number, for "the message names the handle" checks (4 rotating
 * buffers, so a few can be used in one expression). */
static const char* num(long long v) {
  static char bufs[4][32];
  static int next;
  char* b = bufs[next++ & 3];
  snprintf(b, sizeof bufs[0], "%lld", v);
  return b;
}

/* ------------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------------- */
static const ndrt_device CPU0 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 0);
static const ndrt_device CPU1 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 1);

static size_t itemsize(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: case NDRT_I64: return 8;
    case NDRT_F32: case NDRT_I32: return 4;
    case NDRT_F16: case NDRT_BF16: return 2;
    default: return 1;
  }
}

static int64_t numel_of(int32_t rank, const int64_t* shape) {
  int64_t n = 1;
  int32_t i;
  for (i = 0; i < rank; ++i) n *= shape[i];
  return n;
}

static ndrt_handle mk_(ndrt_dtype dtype, int32_t rank, const int64_t* shape, const void* data, ndrt_device dev,
                       const char* file, int line) {
  ndrt_handle h = 0;
  size_t nbytes = (size_t)numel_of(rank, shape) * itemsize(dtype);
  expect_(ndrt_tensor_from_host(dtype, rank, shape, data, nbytes, dev, &h), NDRT_OK, NULL, NULL,
          "ndrt_tensor_from_host", file, line);
  return h;
}
#define MK(dtype, rank, shape, data) mk_((dtype), (rank), (shape), (data), CPU0, __FILE__, __LINE__)
#define MK_ON(dev, dtype, rank, shape, data) mk_((dtype), (rank), (shape), (data), (dev), __FILE__, __LINE__)

static int64_t live(void) {
  int64_t n = -1;
  if (ndrt_live_handles(&n) != NDRT_OK) FAIL("ndrt_live_handles failed");
  return n;
}

static void release_(ndrt_handle h, const char* file, int line) {
  expect_(ndrt_tensor_release(h), NDRT_OK, NULL, NULL, "ndrt_tensor_release", file, line);
}
#define REL(h) release_((h), __FILE__, __LINE__)

static int32_t op_id(const char* name) {
  int32_t id = -1;
  if (ndrt_op_find(name, &id) != NDRT_OK) fail_(__FILE__, __LINE__, "ndrt_op_find(\"%s\")", name);
  return id;
}

/* Runs op `name` with one output (0 = allocate) and returns the status. */
static ndrt_status run(const char* name, const ndrt_handle* in, int32_t n_in, ndrt_handle* out,
                       const int64_t* ints, int32_t n_ints, const double* floats, int32_t n_floats) {
  return ndrt_exec(op_id(name), in, n_in, out, 1, ints, n_ints, floats, n_floats);
}

/* Reads a tensor as doubles whatever its dtype (f32 f64 i32 i64 i8 u8 bool). */
static int read_as_double(ndrt_handle h, double* out, int64_t n_expect, const char* file, int line) {
  ndrt_dtype dt = 0;
  int64_t n = -1, i;
  unsigned char* raw;
  if (!expect_(ndrt_tensor_dtype(h, &dt), NDRT_OK, NULL, NULL, "ndrt_tensor_dtype", file, line)) return 0;
  if (!expect_(ndrt_tensor_numel(h, &n), NDRT_OK, NULL, NULL, "ndrt_tensor_numel", file, line)) return 0;
  if (n != n_expect) {
    fail_(file, line, "tensor has %lld elements, expected %lld", (long long)n, (long long)n_expect);
    return 0;
  }
  raw = malloc((size_t)(n ? n : 1) * 8);
  if (!expect_(ndrt_tensor_read(h, raw, (size_t)n * itemsize(dt)), NDRT_OK, NULL, NULL, "ndrt_tensor_read", file,
               line)) {
    free(raw);
    return 0;
  }
  for (i = 0; i < n; ++i) {
    switch (dt) {
      case NDRT_F32: { float v; memcpy(&v, raw + i * 4, 4); out[i] = v; break; }
      case NDRT_F64: { double v; memcpy(&v, raw + i * 8, 8); out[i] = v; break; }
      case NDRT_I32: { int32_t v; memcpy(&v, raw + i * 4, 4); out[i] = v; break; }
      case NDRT_I64: { int64_t v; memcpy(&v, raw + i * 8, 8); out[i] = (double)v; break; }
      case NDRT_I8: { int8_t v; memcpy(&v, raw + i, 1); out[i] = v; break; }
      case NDRT_U8: case NDRT_BOOL: out[i] = raw[i]; break;
      default: fail_(file, line, "read_as_double: dtype %d not handled", (int)dt); free(raw); return 0;
    }
  }
  free(raw);
  return 1;
}

/* Values of `h` equal `want` (n of them) within tol (relative to 1+|want|); NaN matches NaN. */
static int values_(ndrt_handle h, const double* want, int64_t n, double tol, const char* expr, const char* file,
                   int line) {
  double got[256];
  int64_t i;
  if (n > 256) {
    fail_(file, line, "values_: too many elements");
    return 0;
  }
  if (!read_as_double(h, got, n, file, line)) return 0;
  for (i = 0; i < n; ++i) {
    int both_nan = isnan(got[i]) && isnan(want[i]);
    int same_inf = isinf(got[i]) && isinf(want[i]) && (got[i] > 0) == (want[i] > 0);
    if (!both_nan && !same_inf && !(fabs(got[i] - want[i]) <= tol * (1.0 + fabs(want[i])))) {
      fail_(file, line, "%s: element %lld is %.9g, expected %.9g", expr, (long long)i, got[i], want[i]);
      return 0;
    }
  }
  ++g_passed;
  return 1;
}
#define VALUES(h, tol, ...)                                                                            \
  do {                                                                                                 \
    const double want_[] = {__VA_ARGS__};                                                              \
    values_((h), want_, (int64_t)(sizeof want_ / sizeof want_[0]), (tol), #h, __FILE__, __LINE__);     \
  } while (0)

static int shape_(ndrt_handle h, int32_t rank, const int64_t* want, const char* file, int line) {
  int32_t r = -1, i;
  int64_t got[NDRT_MAX_RANK];
  if (!expect_(ndrt_tensor_rank(h, &r), NDRT_OK, NULL, NULL, "ndrt_tensor_rank", file, line)) return 0;
  if (r != rank) {
    fail_(file, line, "rank is %d, expected %d", (int)r, (int)rank);
    return 0;
  }
  if (!expect_(ndrt_tensor_shape(h, got, NDRT_MAX_RANK), NDRT_OK, NULL, NULL, "ndrt_tensor_shape", file, line))
    return 0;
  for (i = 0; i < rank; ++i)
    if (got[i] != want[i]) {
      fail_(file, line, "shape[%d] is %lld, expected %lld", (int)i, (long long)got[i], (long long)want[i]);
      return 0;
    }
  ++g_passed;
  return 1;
}
#define SHAPE(h, rank, ...) shape_((h), (rank), (const int64_t[]){__VA_ARGS__}, __FILE__, __LINE__)
#define SHAPE0(h) shape_((h), 0, NULL, __FILE__, __LINE__)

static int strides_(ndrt_handle h, int32_t rank, const int64_t* want, const char* file, int line) {
  int64_t got[NDRT_MAX_RANK];
  int32_t i;
  if (!expect_(ndrt_tensor_strides(h, got, NDRT_MAX_RANK), NDRT_OK, NULL, NULL, "ndrt_tensor_strides", file, line))
    return 0;
  for (i = 0; i < rank; ++i)
    if (got[i] != want[i]) {
      fail_(file, line, "strides[%d] is %lld, expected %lld", (int)i, (long long)got[i], (long long)want[i]);
      return 0;
    }
  ++g_passed;
  return 1;
}
#define STRIDES(h, rank, ...) strides_((h), (rank), (const int64_t[]){__VA_ARGS__}, __FILE__, __LINE__)

static ndrt_dtype dtype_of(ndrt_handle h) {
  ndrt_dtype d = 0;
  EXPECT_OK(ndrt_tensor_dtype(h, &d));
  return d;
}
static ndrt_device device_of(ndrt_handle h) {
  ndrt_device d = -2;
  EXPECT_OK(ndrt_tensor_device(h, &d));
  return d;
}
static int32_t contiguous_of(ndrt_handle h) {
  int32_t c = -1;
  EXPECT_OK(ndrt_tensor_is_contiguous(h, &c));
  return c;
}
static int64_t offset_of(ndrt_handle h) {
  int64_t o = -1;
  EXPECT_OK(ndrt_tensor_offset(h, &o));
  return o;
}
static char* data_of(ndrt_handle h) {
  void* p = NULL;
  EXPECT_OK(ndrt_tensor_data_ptr(h, &p));
  return (char*)p;
}

static ndrt_memory_stats stats(ndrt_device dev) {
  ndrt_memory_stats s;
  memset(&s, 0xff, sizeof s);
  EXPECT_OK(ndrt_memory_stats_get(dev, &s));
  return s;
}

/* The "text into a caller buffer" contract of op_describe, config_get, profiler_summary:
 * size query with (NULL, 0), then a full buffer; a too-small buffer must leave a NUL-terminated
 * prefix (the header: "Writes at most capacity bytes (NUL-terminated)") and report the full size.
 * `fetch` wraps the function under test. Returns the text (malloc'd) or NULL. */
typedef ndrt_status (*text_fn)(void* ctx, char* buf, size_t capacity, size_t* needed);

static char* text_contract_(text_fn fetch, void* ctx, const char* what, const char* file, int line) {
  size_t needed = 0, needed2 = 0;
  char* buf;
  ndrt_status st;
  if (!expect_(fetch(ctx, NULL, 0, &needed), NDRT_OK, NULL, NULL, what, file, line)) return NULL;
  if (needed < 1) {
    fail_(file, line, "%s: size query gave needed=%zu", what, needed);
    return NULL;
  }
  buf = malloc(needed);
  memset(buf, 'x', needed);
  if (!expect_(fetch(ctx, buf, needed, &needed2), NDRT_OK, NULL, NULL, what, file, line)) {
    free(buf);
    return NULL;
  }
  check_(needed2 == needed && strlen(buf) + 1 == needed, "full buffer: needed matches and text fills it", file, line);
  /* Buffer NULL with a capacity is a null-pointer error; buf NULL and needed NULL too. */
  expect_(fetch(ctx, NULL, 16, &needed2), NDRT_ERR_INVALID_ARGUMENT, "NULL", NULL, what, file, line);
  /* Too small: *needed is the full size and nothing is written past `capacity`. The header
   * ("writes at most capacity bytes (NUL-terminated)") allows two readings, both accepted: OK with a
   * NUL-terminated prefix, or INVALID_ARGUMENT saying the buffer is too small. */
  expect_(fetch(ctx, NULL, 0, NULL), NDRT_ERR_INVALID_ARGUMENT, "NULL", NULL, what, file, line);
  if (needed > 4) {
    char* small = malloc(12);
    memset(small, 'x', 12);
    needed2 = 0;
    st = fetch(ctx, small, 4, &needed2);
    if (st == NDRT_OK)
      check_(memchr(small, '\0', 4) != NULL && strncmp(small, buf, strlen(small)) == 0,
             "small buffer, status OK: a NUL-terminated prefix of the text", file, line);
    else
      expect_(st, NDRT_ERR_INVALID_ARGUMENT, "small", num((long long)needed), what, file, line);
    check_(needed2 == needed, "small buffer: *needed is the full size", file, line);
    check_(memcmp(small + 4, "xxxxxxxx", 8) == 0, "small buffer: nothing written past capacity", file, line);
    free(small);
  }
  return buf;
}

/* ------------------------------------------------------------------------------------------------
 * Log callback (installed before the first configuration use)
 * ---------------------------------------------------------------------------------------------- */
static struct {
  int calls, bad;
  int saw_env_warning;
  char last[512];
} g_log;

static void on_log(int32_t level, const char* message, void* user) {
  ++g_log.calls;
  if (user != &g_log || level < NDRT_LOG_ERROR || level > NDRT_LOG_DEBUG || !message || !message[0]) ++g_log.bad;
  if (message) {
    snprintf(g_log.last, sizeof g_log.last, "%s", message);
    if (strstr(message, "NDRT_MEMORY_HOST_MAX_CHUNK_BYTES")) g_log.saw_env_warning = 1;
  }
}

/* ------------------------------------------------------------------------------------------------
 * 1. Environment, configuration at start, logging
 * ---------------------------------------------------------------------------------------------- */
static void test_start_config_and_log(void) {
  char buf[64];
  size_t needed = 0;
  int32_t n = 0;
  /* The very first ndrt calls: install the log callback before the environment is read. */
  EXPECT_OK(ndrt_set_log_callback(on_log, &g_log));
  EXPECT_OK(ndrt_config_get("cpu.virtual_devices", buf, sizeof buf, &needed));
  CHECK(strcmp(buf, "2") == 0);
  CHECK(needed == 2);
  /* A bad environment value is reported (to the host's log callback, which is installed) and the
   * default kept. */
  EXPECT_OK(ndrt_config_get("memory.host.max_chunk_bytes", buf, sizeof buf, &needed));
  CHECK(strcmp(buf, "268435456") == 0);
  if (!CHECK(g_log.saw_env_warning))
    fprintf(stderr, "    the warning about NDRT_MEMORY_HOST_MAX_CHUNK_BYTES=lots did not reach the log callback "
                    "(it went to stderr although a callback was installed)\n");
  /* Log at info while the device table is built (first device use). */
  EXPECT_OK(ndrt_config_set("log.level", "info"));
  EXPECT_OK(ndrt_config_get("log.level", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "info") == 0);
  EXPECT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CPU, &n));
  CHECK(n == 2);
  CHECK(g_log.bad == 0);
  printf("log callback: %d line(s) during start-up%s%s\n", g_log.calls, g_log.calls ? ", last: " : "",
         g_log.calls ? g_log.last : "");
  EXPECT_OK(ndrt_config_set("log.level", "warn"));
  EXPECT_OK(ndrt_set_log_callback(NULL, NULL)); /* back to stderr */
  /* Devices are in use now: their count can no longer change; the same value is accepted. */
  EXPECT_ERR(ndrt_config_set("cpu.virtual_devices", "3"), NDRT_ERR_INVALID_ARGUMENT, "cpu.virtual_devices", NULL);
  EXPECT_OK(ndrt_config_set("cpu.virtual_devices", "2"));
  EXPECT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CPU, &n));
  CHECK(n == 2);
}

/* ------------------------------------------------------------------------------------------------
 * 2. Library identity, status names
 * ---------------------------------------------------------------------------------------------- */
static void test_library(void) {
  static const struct {
    ndrt_status s;
    const char* name;
  } names[] = {
      {NDRT_OK, "NDRT_OK"},
      {NDRT_ERR_OUT_OF_MEMORY, "NDRT_ERR_OUT_OF_MEMORY"},
      {NDRT_ERR_BACKEND, "NDRT_ERR_BACKEND"},
      {NDRT_ERR_INVALID_HANDLE, "NDRT_ERR_INVALID_HANDLE"},
      {NDRT_ERR_INVALID_ARGUMENT, "NDRT_ERR_INVALID_ARGUMENT"},
      {NDRT_ERR_SHAPE_MISMATCH, "NDRT_ERR_SHAPE_MISMATCH"},
      {NDRT_ERR_DTYPE_MISMATCH, "NDRT_ERR_DTYPE_MISMATCH"},
      {NDRT_ERR_DEVICE_MISMATCH, "NDRT_ERR_DEVICE_MISMATCH"},
      {NDRT_ERR_UNKNOWN_OP, "NDRT_ERR_UNKNOWN_OP"},
      {NDRT_ERR_NOT_SUPPORTED, "NDRT_ERR_NOT_SUPPORTED"},
      {NDRT_ERR_NOT_CONFIGURED, "NDRT_ERR_NOT_CONFIGURED"},
      {NDRT_ERR_LOAD, "NDRT_ERR_LOAD"},
      {NDRT_ERR_INTERNAL, "NDRT_ERR_INTERNAL"},
  };
  size_t i;
  const char* v = ndrt_version_string();
  CHECK(ndrt_abi_version() == NDRT_ABI_VERSION);
  CHECK(v != NULL && v[0] >= '0' && v[0] <= '9' && strchr(v, '.') != NULL);
#ifdef NDRT_EXPECTED_VERSION
  if (!CHECK(v && strcmp(v, NDRT_EXPECTED_VERSION) == 0))
    fprintf(stderr, "    version_string \"%s\", project version \"%s\"\n", v ? v : "(NULL)", NDRT_EXPECTED_VERSION);
#endif
  for (i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char* got = ndrt_status_name(names[i].s);
    if (!CHECK(got && strcmp(got, names[i].name) == 0))
      fprintf(stderr, "    status %d is named \"%s\", expected \"%s\"\n", (int)names[i].s, got ? got : "(NULL)",
              names[i].name);
  }
  CHECK(strcmp(ndrt_status_name(7), "NDRT_UNKNOWN_STATUS") == 0);
  CHECK(strcmp(ndrt_status_name(-1), "NDRT_UNKNOWN_STATUS") == 0);
  CHECK(strcmp(ndrt_status_name(999), "NDRT_UNKNOWN_STATUS") == 0);
  CHECK(ndrt_last_error() != NULL);
}

/* ------------------------------------------------------------------------------------------------
 * 3. Devices and thread affinity
 * ---------------------------------------------------------------------------------------------- */
static int32_t g_cuda_count;

static void test_devices(void) {
  int32_t n = -1, type = -1;
  char name[32];
  ndrt_device d = -2;
  EXPECT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CPU, &n));
  CHECK(n == 2);
  EXPECT_OK(ndrt_device_count(NDRT_DEVICE_TYPE_CUDA, &g_cuda_count));
  CHECK(g_cuda_count >= 0);
  EXPECT_ERR(ndrt_device_count(7, &n), NDRT_ERR_INVALID_ARGUMENT, "7", NULL);
  EXPECT_ERR(ndrt_device_count(NDRT_DEVICE_TYPE_CPU, NULL), NDRT_ERR_INVALID_ARGUMENT, "device_count", NULL);

  EXPECT_OK(ndrt_device_name(CPU0, name, sizeof name));
  CHECK(strcmp(name, "cpu:0") == 0);
  EXPECT_OK(ndrt_device_name(CPU1, name, sizeof name));
  CHECK(strcmp(name, "cpu:1") == 0);
  EXPECT_ERR(ndrt_device_name(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 2), name, sizeof name), NDRT_ERR_INVALID_ARGUMENT,
             "cpu:2", NULL);
  if (g_cuda_count == 0)
    EXPECT_ERR(ndrt_device_name(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 0), name, sizeof name),
               NDRT_ERR_INVALID_ARGUMENT, "cuda:0", NULL);
  EXPECT_ERR(ndrt_device_name(CPU0, NULL, 16), NDRT_ERR_INVALID_ARGUMENT, "device_name", NULL);
  {
    /* Too small: "Writes a NUL-terminated string of at most capacity bytes". */
    /* (Either reading of the header: OK with a NUL-terminated prefix, or INVALID_ARGUMENT.) */
    char small[3] = {'x', 'x', 'x'};
    ndrt_status st = ndrt_device_name(CPU1, small, sizeof small);
    if (st == NDRT_OK)
      CHECK(memchr(small, '\0', sizeof small) != NULL && strncmp(small, "cpu:1", strlen(small)) == 0);
    else
      EXPECT_ERR(st, NDRT_ERR_INVALID_ARGUMENT, "device_name", "small");
  }

  EXPECT_OK(ndrt_default_device_type(&type));
  CHECK(type == (g_cuda_count > 0 ? NDRT_DEVICE_TYPE_CUDA : NDRT_DEVICE_TYPE_CPU));
  EXPECT_ERR(ndrt_default_device_type(NULL), NDRT_ERR_INVALID_ARGUMENT, "default_device_type", NULL);
  /* backend.priority.* decide between present types: cpu above gpu makes cpu the default. */
  EXPECT_OK(ndrt_config_set("backend.priority.cpu", "200"));
  EXPECT_OK(ndrt_default_device_type(&type));
  CHECK(type == NDRT_DEVICE_TYPE_CPU);
  EXPECT_OK(ndrt_config_set("backend.priority.cpu", "0"));

  /* The main thread never chose: it gets a device of the default type. */
  EXPECT_OK(ndrt_thread_device(&d));
  CHECK(d >= 0 && NDRT_DEVICE_TYPE_OF(d) == (g_cuda_count > 0 ? NDRT_DEVICE_TYPE_CUDA : NDRT_DEVICE_TYPE_CPU));
  EXPECT_ERR(ndrt_thread_device(NULL), NDRT_ERR_INVALID_ARGUMENT, "thread_device", NULL);
  EXPECT_OK(ndrt_thread_attach(CPU1));
  EXPECT_OK(ndrt_thread_device(&d));
  CHECK(d == CPU1);
  EXPECT_OK(ndrt_thread_attach(CPU0));
  EXPECT_OK(ndrt_thread_device(&d));
  CHECK(d == CPU0);
  EXPECT_ERR(ndrt_thread_attach(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 2)), NDRT_ERR_INVALID_ARGUMENT, "cpu:2", NULL);
  EXPECT_ERR(ndrt_thread_attach(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, g_cuda_count)), NDRT_ERR_INVALID_ARGUMENT,
             "cuda:", NULL);
  EXPECT_ERR(ndrt_thread_attach(NDRT_DEVICE(5, 0)), NDRT_ERR_INVALID_ARGUMENT, "thread_attach", NULL);
  EXPECT_OK(ndrt_thread_device(&d)); /* a failed attach changes nothing */
  CHECK(d == CPU0);

  EXPECT_OK(ndrt_synchronize(CPU0));
  EXPECT_OK(ndrt_synchronize(CPU1));
  EXPECT_OK(ndrt_synchronize(NDRT_DEVICE_CURRENT));
  EXPECT_ERR(ndrt_synchronize(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 5)), NDRT_ERR_INVALID_ARGUMENT, "cpu:5", NULL);
}

/* ------------------------------------------------------------------------------------------------
 * 4. Tensors: creation, description, read/write, retain/release, handle errors
 * ---------------------------------------------------------------------------------------------- */
static void test_tensor_basics(void) {
  const int64_t s23[2] = {2, 3};
  const float x[6] = {0, 1, 2, 3, 4, 5};
  float back[6];
  int64_t base_live = live(), shape[NDRT_MAX_RANK], n = -1, off = -1;
  int32_t rank = -1, contig = -1;
  ndrt_dtype dt = 0;
  ndrt_device dev = -2;
  ndrt_handle h = 0, r = 0, c = 0;
  void* p = NULL;
  ndrt_dtype d;

  /* Uninitialised create, then write/read round trip and every description call. */
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, s23, CPU0, &h));
  CHECK(h != 0);
  CHECK(live() == base_live + 1);
  EXPECT_OK(ndrt_tensor_write(h, x, sizeof x));
  memset(back, 0, sizeof back);
  EXPECT_OK(ndrt_tensor_read(h, back, sizeof back));
  CHECK(memcmp(back, x, sizeof x) == 0);
  EXPECT_OK(ndrt_tensor_dtype(h, &dt));
  CHECK(dt == NDRT_F32);
  EXPECT_OK(ndrt_tensor_rank(h, &rank));
  CHECK(rank == 2);
  SHAPE(h, 2, 2, 3);
  STRIDES(h, 2, 3, 1);
  EXPECT_OK(ndrt_tensor_offset(h, &off));
  CHECK(off == 0);
  EXPECT_OK(ndrt_tensor_numel(h, &n));
  CHECK(n == 6);
  EXPECT_OK(ndrt_tensor_device(h, &dev));
  CHECK(dev == CPU0);
  EXPECT_OK(ndrt_tensor_is_contiguous(h, &contig));
  CHECK(contig == 1);
  EXPECT_OK(ndrt_tensor_data_ptr(h, &p));
  CHECK(p != NULL && ((uintptr_t)p % 16) == 0);
  CHECK(p && memcmp(p, x, sizeof x) == 0); /* zero-copy view of the same memory */
  /* A shape array with room for fewer axes than the rank. */
  EXPECT_ERR(ndrt_tensor_shape(h, shape, 1), NDRT_ERR_INVALID_ARGUMENT, "tensor_shape", NULL);
  EXPECT_ERR(ndrt_tensor_strides(h, shape, 1), NDRT_ERR_INVALID_ARGUMENT, "tensor_strides", NULL);
  /* Wrong byte counts. */
  EXPECT_ERR(ndrt_tensor_read(h, back, sizeof back - 4), NDRT_ERR_INVALID_ARGUMENT, "tensor_read", "20");
  EXPECT_ERR(ndrt_tensor_write(h, x, sizeof x + 4), NDRT_ERR_INVALID_ARGUMENT, "tensor_write", "28");

  /* retain: a second handle to the same view; each released once. */
  EXPECT_OK(ndrt_tensor_retain(h, &r));
  CHECK(r != 0 && r != h);
  CHECK(live() == base_live + 2);
  CHECK(data_of(r) == (char*)p);
  REL(h);
  VALUES(r, 0, 0, 1, 2, 3, 4, 5); /* storage alive through the retained handle */

  /* Stale (released), double release, zero, invented, negative handles. */
  EXPECT_ERR(ndrt_tensor_read(h, back, sizeof back), NDRT_ERR_INVALID_HANDLE, "tensor_read", num(h));
  EXPECT_ERR(ndrt_tensor_release(h), NDRT_ERR_INVALID_HANDLE, num(h), NULL);
  EXPECT_ERR(ndrt_tensor_release(0), NDRT_ERR_INVALID_HANDLE, "handle 0", NULL);
  EXPECT_ERR(ndrt_tensor_read(0, back, sizeof back), NDRT_ERR_INVALID_HANDLE, "tensor_read", NULL);
  EXPECT_ERR(ndrt_tensor_release((ndrt_handle)0x7fff00000123LL), NDRT_ERR_INVALID_HANDLE, num(0x7fff00000123LL), NULL);
  EXPECT_ERR(ndrt_tensor_numel((ndrt_handle)0x7fff00000123LL, &n), NDRT_ERR_INVALID_HANDLE, "tensor_numel",
             num(0x7fff00000123LL));
  EXPECT_ERR(ndrt_tensor_release(-5), NDRT_ERR_INVALID_HANDLE, "-5", NULL);
  EXPECT_ERR(ndrt_tensor_release(INT64_MAX), NDRT_ERR_INVALID_HANDLE, num(INT64_MAX), NULL);
  EXPECT_ERR(ndrt_tensor_release(INT64_MIN), NDRT_ERR_INVALID_HANDLE, "release", NULL);
  /* The low 32 bits of a live handle with another generation. */
  EXPECT_ERR(ndrt_tensor_numel(r ^ ((ndrt_handle)1 << 40), &n), NDRT_ERR_INVALID_HANDLE, "tensor_numel", NULL);
  /* Every call that takes a handle rejects a stale one. */
  {
    const int32_t perm[2] = {1, 0};
    const char* hs = num(h);
    ndrt_handle o = 0;
    EXPECT_ERR(ndrt_tensor_write(h, x, sizeof x), NDRT_ERR_INVALID_HANDLE, "tensor_write", hs);
    EXPECT_ERR(ndrt_tensor_retain(h, &o), NDRT_ERR_INVALID_HANDLE, "tensor_retain", hs);
    EXPECT_ERR(ndrt_tensor_dtype(h, &dt), NDRT_ERR_INVALID_HANDLE, "tensor_dtype", hs);
    EXPECT_ERR(ndrt_tensor_rank(h, &rank), NDRT_ERR_INVALID_HANDLE, "tensor_rank", hs);
    EXPECT_ERR(ndrt_tensor_shape(h, shape, 8), NDRT_ERR_INVALID_HANDLE, "tensor_shape", hs);
    EXPECT_ERR(ndrt_tensor_strides(h, shape, 8), NDRT_ERR_INVALID_HANDLE, "tensor_strides", hs);
    EXPECT_ERR(ndrt_tensor_offset(h, &off), NDRT_ERR_INVALID_HANDLE, "tensor_offset", hs);
    EXPECT_ERR(ndrt_tensor_numel(h, &n), NDRT_ERR_INVALID_HANDLE, "tensor_numel", hs);
    EXPECT_ERR(ndrt_tensor_device(h, &dev), NDRT_ERR_INVALID_HANDLE, "tensor_device", hs);
    EXPECT_ERR(ndrt_tensor_is_contiguous(h, &contig), NDRT_ERR_INVALID_HANDLE, "tensor_is_contiguous", hs);
    EXPECT_ERR(ndrt_tensor_data_ptr(h, &p), NDRT_ERR_INVALID_HANDLE, "tensor_data_ptr", hs);
    EXPECT_ERR(ndrt_tensor_reshape(h, 1, (const int64_t[]){6}, &o), NDRT_ERR_INVALID_HANDLE, "tensor_reshape", hs);
    EXPECT_ERR(ndrt_tensor_permute(h, 2, perm, &o), NDRT_ERR_INVALID_HANDLE, "tensor_permute", hs);
    EXPECT_ERR(ndrt_tensor_transpose(h, 0, 1, &o), NDRT_ERR_INVALID_HANDLE, "tensor_transpose", hs);
    EXPECT_ERR(ndrt_tensor_slice(h, 0, 0, 1, 1, &o), NDRT_ERR_INVALID_HANDLE, "tensor_slice", hs);
    EXPECT_ERR(ndrt_tensor_expand(h, 2, s23, &o), NDRT_ERR_INVALID_HANDLE, "tensor_expand", hs);
    EXPECT_ERR(ndrt_tensor_contiguous(h, &o), NDRT_ERR_INVALID_HANDLE, "tensor_contiguous", hs);
    EXPECT_ERR(ndrt_tensor_cast(h, NDRT_F64, &o), NDRT_ERR_INVALID_HANDLE, "tensor_cast", hs);
    EXPECT_ERR(ndrt_tensor_to_device(h, CPU1, &o), NDRT_ERR_INVALID_HANDLE, "tensor_to_device", hs);
    CHECK(o == 0);
  }
  /* The slot is reused by the next tensor with a new generation: the old handle stays dead. */
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, s23, CPU0, &c));
  CHECK(c != h);
  EXPECT_ERR(ndrt_tensor_numel(h, &n), NDRT_ERR_INVALID_HANDLE, "tensor_numel", num(h));
  EXPECT_OK(ndrt_tensor_numel(c, &n));
  REL(c);
  REL(r);
  CHECK(live() == base_live);

  /* Every dtype: create, describe, byte size through read. */
  for (d = NDRT_F32; d <= NDRT_BOOL; ++d) {
    unsigned char buf[6 * 8];
    ndrt_handle t = 0;
    EXPECT_OK(ndrt_tensor_create(d, 2, s23, NDRT_DEVICE_CURRENT, &t));
    CHECK(dtype_of(t) == d);
    CHECK(device_of(t) == CPU0); /* NDRT_DEVICE_CURRENT: this thread's device */
    memset(buf, 0, sizeof buf);
    EXPECT_OK(ndrt_tensor_write(t, buf, 6 * itemsize(d)));
    EXPECT_OK(ndrt_tensor_read(t, buf, 6 * itemsize(d)));
    EXPECT_ERR(ndrt_tensor_read(t, buf, 6 * itemsize(d) + 1), NDRT_ERR_INVALID_ARGUMENT, "tensor_read", NULL);
    REL(t);
  }
  /* from_host on the second cpu device. */
  h = MK_ON(CPU1, NDRT_F32, 2, s23, x);
  CHECK(device_of(h) == CPU1);
  VALUES(h, 0, 0, 1, 2, 3, 4, 5);
  REL(h);

  /* Rank 0 (shape may be NULL) and size 0. */
  {
    const double v = 2.5;
    const int64_t s03[2] = {0, 3};
    float none[1];
    h = 0;
    EXPECT_OK(ndrt_tensor_from_host(NDRT_F64, 0, NULL, &v, sizeof v, CPU0, &h));
    SHAPE0(h);
    EXPECT_OK(ndrt_tensor_numel(h, &n));
    CHECK(n == 1);
    VALUES(h, 0, 2.5);
    REL(h);
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, s03, CPU0, &h));
    EXPECT_OK(ndrt_tensor_numel(h, &n));
    CHECK(n == 0);
    EXPECT_OK(ndrt_tensor_read(h, none, 0));
    EXPECT_OK(ndrt_tensor_write(h, none, 0));
    CHECK(contiguous_of(h) == 1);
    REL(h);
    EXPECT_OK(ndrt_tensor_from_host(NDRT_F32, 2, s03, NULL, 0, CPU0, &h)); /* no bytes: data may be NULL */
    REL(h);
  }

  /* Null pointers: every out-pointer class and every input pointer class. */
  {
    ndrt_handle o = 0;
    h = MK(NDRT_F32, 2, s23, x);
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 2, s23, CPU0, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "out");
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 2, NULL, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "shape");
    EXPECT_ERR(ndrt_tensor_from_host(NDRT_F32, 2, s23, x, sizeof x, CPU0, NULL), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_from_host", "out");
    EXPECT_ERR(ndrt_tensor_from_host(NDRT_F32, 2, s23, NULL, sizeof x, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_from_host", "data");
    EXPECT_ERR(ndrt_tensor_from_host(NDRT_F32, 2, NULL, x, sizeof x, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_from_host", "shape");
    EXPECT_ERR(ndrt_tensor_read(h, NULL, sizeof x), NDRT_ERR_INVALID_ARGUMENT, "tensor_read", "dst");
    EXPECT_ERR(ndrt_tensor_write(h, NULL, sizeof x), NDRT_ERR_INVALID_ARGUMENT, "tensor_write", "src");
    EXPECT_ERR(ndrt_tensor_retain(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_retain", NULL);
    EXPECT_ERR(ndrt_tensor_dtype(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_dtype", NULL);
    EXPECT_ERR(ndrt_tensor_rank(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_rank", NULL);
    EXPECT_ERR(ndrt_tensor_shape(h, NULL, 8), NDRT_ERR_INVALID_ARGUMENT, "tensor_shape", NULL);
    EXPECT_ERR(ndrt_tensor_strides(h, NULL, 8), NDRT_ERR_INVALID_ARGUMENT, "tensor_strides", NULL);
    EXPECT_ERR(ndrt_tensor_offset(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_offset", NULL);
    EXPECT_ERR(ndrt_tensor_numel(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_numel", NULL);
    EXPECT_ERR(ndrt_tensor_device(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_device", NULL);
    EXPECT_ERR(ndrt_tensor_is_contiguous(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_is_contiguous", NULL);
    EXPECT_ERR(ndrt_tensor_data_ptr(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_data_ptr", NULL);
    EXPECT_ERR(ndrt_tensor_reshape(h, 1, (const int64_t[]){6}, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape",
               NULL);
    EXPECT_ERR(ndrt_tensor_reshape(h, 1, NULL, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape", "shape");
    EXPECT_ERR(ndrt_tensor_permute(h, 2, (const int32_t[]){1, 0}, NULL), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_permute", NULL);
    EXPECT_ERR(ndrt_tensor_permute(h, 2, NULL, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_permute", "perm");
    EXPECT_ERR(ndrt_tensor_transpose(h, 0, 1, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_transpose", NULL);
    EXPECT_ERR(ndrt_tensor_slice(h, 0, 0, 1, 1, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_slice", NULL);
    EXPECT_ERR(ndrt_tensor_expand(h, 2, s23, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_expand", NULL);
    EXPECT_ERR(ndrt_tensor_expand(h, 2, NULL, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_expand", "shape");
    EXPECT_ERR(ndrt_tensor_contiguous(h, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_contiguous", NULL);
    EXPECT_ERR(ndrt_tensor_cast(h, NDRT_F64, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_cast", NULL);
    EXPECT_ERR(ndrt_tensor_to_device(h, CPU1, NULL), NDRT_ERR_INVALID_ARGUMENT, "tensor_to_device", NULL);
    EXPECT_ERR(ndrt_live_handles(NULL), NDRT_ERR_INVALID_ARGUMENT, "live_handles", NULL);
    CHECK(o == 0);
    REL(h);
  }

  /* Bad arguments: dtype, rank, extents, byte counts, devices. */
  {
    ndrt_handle o = 0;
    const int64_t neg[2] = {2, -3};
    const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    int64_t before = live();
    EXPECT_ERR(ndrt_tensor_create(0, 2, s23, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "dtype");
    EXPECT_ERR(ndrt_tensor_create(NDRT_BOOL + 1, 2, s23, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create",
               "dtype");
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, -1, s23, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "rank");
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 9, nine, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "rank");
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 2, neg, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "-3");
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 2, s23, NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 2), &o),
               NDRT_ERR_INVALID_ARGUMENT, "tensor_create", "cpu:2");
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 2, s23, -7, &o), NDRT_ERR_INVALID_ARGUMENT, "tensor_create", NULL);
    EXPECT_ERR(ndrt_tensor_from_host(NDRT_F32, 2, s23, x, sizeof x - 1, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_from_host", "23");
    EXPECT_ERR(ndrt_tensor_from_host(NDRT_F64, 2, s23, x, sizeof x, CPU0, &o), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_from_host", "48");
    CHECK(o == 0);
    CHECK(live() == before);
  }
}

/* ------------------------------------------------------------------------------------------------
 * 5. Views and copies
 * ---------------------------------------------------------------------------------------------- */
static void test_views(void) {
  const int64_t s23[2] = {2, 3};
  const float x[6] = {0, 1, 2, 3, 4, 5};
  int64_t base_live = live();
  ndrt_handle h = MK(NDRT_F32, 2, s23, x), v = 0, w = 0, t = 0;
  char* base = data_of(h);

  /* reshape */
  EXPECT_OK(ndrt_tensor_reshape(h, 2, (const int64_t[]){3, 2}, &v));
  SHAPE(v, 2, 3, 2);
  STRIDES(v, 2, 2, 1);
  VALUES(v, 0, 0, 1, 2, 3, 4, 5);
  CHECK(data_of(v) == base); /* a view: no copy */
  REL(v);
  EXPECT_OK(ndrt_tensor_reshape(h, 1, (const int64_t[]){-1}, &v));
  SHAPE(v, 1, 6);
  REL(v);
  EXPECT_OK(ndrt_tensor_reshape(h, 3, (const int64_t[]){3, -1, 1}, &v));
  SHAPE(v, 3, 3, 2, 1);
  REL(v);
  EXPECT_ERR(ndrt_tensor_reshape(h, 2, (const int64_t[]){4, -1}, &v), NDRT_ERR_SHAPE_MISMATCH, "tensor_reshape",
             NULL);
  EXPECT_ERR(ndrt_tensor_reshape(h, 2, (const int64_t[]){4, 2}, &v), NDRT_ERR_SHAPE_MISMATCH, "tensor_reshape",
             "[4,2]");
  EXPECT_ERR(ndrt_tensor_reshape(h, 2, (const int64_t[]){-1, -1}, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape",
             "-1");
  EXPECT_ERR(ndrt_tensor_reshape(h, 9, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 2, 3}, &v), NDRT_ERR_INVALID_ARGUMENT,
             "tensor_reshape", "rank");

  /* transpose / permute */
  EXPECT_OK(ndrt_tensor_transpose(h, 0, 1, &t));
  SHAPE(t, 2, 3, 2);
  STRIDES(t, 2, 1, 3);
  CHECK(contiguous_of(t) == 0);
  VALUES(t, 0, 0, 3, 1, 4, 2, 5); /* read back row-major in the view's logical order */
  EXPECT_OK(ndrt_tensor_transpose(h, -1, -2, &v));
  VALUES(v, 0, 0, 3, 1, 4, 2, 5);
  REL(v);
  EXPECT_OK(ndrt_tensor_permute(h, 2, (const int32_t[]){1, 0}, &v));
  STRIDES(v, 2, 1, 3);
  REL(v);
  EXPECT_ERR(ndrt_tensor_transpose(h, 0, 2, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_transpose", "2");
  EXPECT_ERR(ndrt_tensor_permute(h, 2, (const int32_t[]){0, 0}, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_permute",
             NULL);
  EXPECT_ERR(ndrt_tensor_permute(h, 2, (const int32_t[]){0, 2}, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_permute",
             NULL);
  EXPECT_ERR(ndrt_tensor_permute(h, 3, (const int32_t[]){0, 1, 2}, &v), NDRT_ERR_INVALID_ARGUMENT,
             "tensor_permute", "3");
  /* A transposed view cannot be flattened without a copy: INVALID_ARGUMENT (header). */
  EXPECT_ERR(ndrt_tensor_reshape(t, 1, (const int64_t[]){6}, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape",
             NULL);
  /* ...but adding a size-1 axis is fine. */
  EXPECT_OK(ndrt_tensor_reshape(t, 3, (const int64_t[]){3, 1, 2}, &v));
  VALUES(v, 0, 0, 3, 1, 4, 2, 5);
  REL(v);

  /* slice */
  EXPECT_OK(ndrt_tensor_slice(h, 1, 0, 3, 2, &v)); /* [:, 0:3:2] */
  SHAPE(v, 2, 2, 2);
  STRIDES(v, 2, 3, 2);
  VALUES(v, 0, 0, 2, 3, 5);
  REL(v);
  EXPECT_OK(ndrt_tensor_slice(h, 1, -1, -4, -1, &v)); /* [:, ::-1] */
  SHAPE(v, 2, 2, 3);
  STRIDES(v, 2, 3, -1);
  CHECK(offset_of(v) == 2);
  VALUES(v, 0, 2, 1, 0, 5, 4, 3);
  REL(v);
  EXPECT_OK(ndrt_tensor_slice(h, 0, 1, 2, 1, &v)); /* row 1 */
  CHECK(offset_of(v) == 3);
  CHECK(data_of(v) == base + 3 * sizeof(float));
  VALUES(v, 0, 3, 4, 5);
  /* Writing through a view writes the viewed storage. */
  EXPECT_OK(ndrt_tensor_write(v, (const float[]){7, 8, 9}, 3 * sizeof(float)));
  VALUES(h, 0, 0, 1, 2, 7, 8, 9);
  VALUES(t, 0, 0, 7, 1, 8, 2, 9);
  REL(v);
  /* Writing through a reversed view. */
  EXPECT_OK(ndrt_tensor_slice(h, 1, -1, -4, -1, &v));
  EXPECT_OK(ndrt_tensor_write(v, (const float[]){20, 10, 0, 90, 80, 70}, 6 * sizeof(float)));
  VALUES(h, 0, 0, 10, 20, 70, 80, 90);
  EXPECT_OK(ndrt_tensor_write(v, (const float[]){2, 1, 0, 9, 8, 7}, 6 * sizeof(float)));
  VALUES(h, 0, 0, 1, 2, 7, 8, 9);
  REL(v);
  EXPECT_OK(ndrt_tensor_slice(h, -1, -100, 100, 1, &v)); /* clamped: everything */
  SHAPE(v, 2, 2, 3);
  REL(v);
  EXPECT_OK(ndrt_tensor_slice(h, 1, 2, 1, 1, &v)); /* empty */
  SHAPE(v, 2, 2, 0);
  REL(v);
  EXPECT_ERR(ndrt_tensor_slice(h, 1, 0, 3, 0, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_slice", "step");
  /* (Steps at the ends of int64: see test_isolated.) */
  EXPECT_ERR(ndrt_tensor_slice(h, 2, 0, 3, 1, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_slice", "2");

  /* Non-contiguous views that reshape without a copy: [4,6][:, ::2] is every other element, so
   * [2,2,3] and [12] are both plain strided views; [4,6][:, 0:4:2] has a gap between rows. */
  {
    float y[24];
    int i;
    ndrt_handle big, sl = 0;
    for (i = 0; i < 24; ++i) y[i] = (float)i;
    big = MK(NDRT_F32, 2, ((const int64_t[]){4, 6}), y);
    EXPECT_OK(ndrt_tensor_slice(big, 1, 0, 6, 2, &sl));
    STRIDES(sl, 2, 6, 2);
    CHECK(contiguous_of(sl) == 0);
    EXPECT_OK(ndrt_tensor_reshape(sl, 3, (const int64_t[]){2, 2, 3}, &v));
    STRIDES(v, 3, 12, 6, 2);
    VALUES(v, 0, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22);
    CHECK(data_of(v) == data_of(big));
    REL(v);
    EXPECT_OK(ndrt_tensor_reshape(sl, 1, (const int64_t[]){12}, &v));
    STRIDES(v, 1, 2);
    VALUES(v, 0, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22);
    REL(v);
    REL(sl);
    EXPECT_OK(ndrt_tensor_slice(big, 1, 0, 4, 2, &sl));
    STRIDES(sl, 2, 6, 2);
    EXPECT_ERR(ndrt_tensor_reshape(sl, 1, (const int64_t[]){8}, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_reshape",
               NULL);
    EXPECT_OK(ndrt_tensor_reshape(sl, 3, (const int64_t[]){2, 2, 2}, &v)); /* rows split: fine */
    STRIDES(v, 3, 12, 6, 2);
    VALUES(v, 0, 0, 2, 6, 8, 12, 14, 18, 20);
    REL(v);
    REL(sl);
    REL(big);
  }

  /* expand (broadcast view, stride 0) */
  {
    ndrt_handle row = MK(NDRT_F32, 2, ((const int64_t[]){1, 3}), ((const float[]){10, 20, 30}));
    EXPECT_OK(ndrt_tensor_expand(row, 2, s23, &v));
    SHAPE(v, 2, 2, 3);
    STRIDES(v, 2, 0, 1);
    VALUES(v, 0, 10, 20, 30, 10, 20, 30);
    /* A broadcast view cannot be written (several elements share one address). */
    EXPECT_ERR(ndrt_tensor_write(v, x, sizeof x), NDRT_ERR_INVALID_ARGUMENT, "tensor_write", "broadcast");
    REL(v);
    EXPECT_OK(ndrt_tensor_expand(row, 3, (const int64_t[]){2, 2, 3}, &v)); /* a new leading axis */
    STRIDES(v, 3, 0, 0, 1);
    EXPECT_OK(ndrt_tensor_contiguous(v, &w)); /* materialises the broadcast */
    STRIDES(w, 3, 6, 3, 1);
    VALUES(w, 0, 10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30);
    REL(w);
    REL(v);
    EXPECT_ERR(ndrt_tensor_expand(row, 2, (const int64_t[]){2, 4}, &v), NDRT_ERR_SHAPE_MISMATCH, "tensor_expand",
               "[2,4]");
    EXPECT_ERR(ndrt_tensor_expand(row, 1, (const int64_t[]){3}, &v), NDRT_ERR_SHAPE_MISMATCH, "tensor_expand", NULL);
    REL(row);
  }

  /* contiguous: a copy of a strided view; a new handle to the same tensor otherwise. */
  EXPECT_OK(ndrt_tensor_contiguous(t, &v));
  CHECK(contiguous_of(v) == 1);
  CHECK(data_of(v) != data_of(t));
  VALUES(v, 0, 0, 7, 1, 8, 2, 9);
  REL(v);
  EXPECT_OK(ndrt_tensor_contiguous(h, &v));
  CHECK(v != h && data_of(v) == base);
  REL(v);

  /* cast */
  {
    const float fx[4] = {1.7f, -1.7f, 2.5f, 0.0f};
    ndrt_handle f = MK(NDRT_F32, 1, ((const int64_t[]){4}), fx);
    EXPECT_OK(ndrt_tensor_cast(f, NDRT_I32, &v));
    CHECK(dtype_of(v) == NDRT_I32);
    VALUES(v, 0, 1, -1, 2, 0); /* toward zero */
    EXPECT_OK(ndrt_tensor_cast(v, NDRT_F64, &w));
    VALUES(w, 0, 1, -1, 2, 0);
    REL(w);
    REL(v);
    EXPECT_OK(ndrt_tensor_cast(f, NDRT_BOOL, &v));
    VALUES(v, 0, 1, 1, 1, 0);
    REL(v);
    EXPECT_OK(ndrt_tensor_cast(f, NDRT_F32, &v)); /* same dtype: still a new contiguous tensor */
    CHECK(v != f && data_of(v) != data_of(f));
    VALUES(v, 0, 1.7f, -1.7f, 2.5f, 0.0f);
    REL(v);
    EXPECT_ERR(ndrt_tensor_cast(f, 0, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_cast", "0");
    EXPECT_ERR(ndrt_tensor_cast(f, 42, &v), NDRT_ERR_INVALID_ARGUMENT, "tensor_cast", "42");
    REL(f);
  }
  {
    /* f32 -> f16 -> f32: round to nearest even, overflow to inf, underflow to (sub)normals. */
    const float fx[8] = {1.0f, 0.1f, 65504.0f, 65520.0f, 1e-8f, 5.9604644775390625e-8f, -2.0f, 1.00048828125f};
    ndrt_handle f = MK(NDRT_F32, 1, ((const int64_t[]){8}), fx);
    EXPECT_OK(ndrt_tensor_cast(f, NDRT_F16, &v));
    CHECK(dtype_of(v) == NDRT_F16);
    EXPECT_OK(ndrt_tensor_cast(v, NDRT_F32, &w));
    /* 1.00048828125 = 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1. */
    VALUES(w, 0, 1.0, 0.0999755859375, 65504.0, INFINITY, 0.0, 5.9604644775390625e-8, -2.0, 1.0);
    REL(w);
    REL(v);
    EXPECT_OK(ndrt_tensor_cast(f, NDRT_BF16, &v));
    EXPECT_OK(ndrt_tensor_cast(v, NDRT_F64, &w));
    VALUES(w, 0, 1.0, 0.10009765625, 65536.0, 65536.0, 1.0011717677116394e-08, 5.9604644775390625e-8, -2.0, 1.0);
    REL(w);
    REL(v);
    REL(f);
  }

  /* to_device: an explicit copy onto another device, contiguous. */
  EXPECT_OK(ndrt_tensor_to_device(t, CPU1, &v));
  CHECK(device_of(v) == CPU1);
  CHECK(contiguous_of(v) == 1);
  VALUES(v, 0, 0, 7, 1, 8, 2, 9);
  EXPECT_OK(ndrt_tensor_to_device(v, NDRT_DEVICE_CURRENT, &w));
  CHECK(device_of(w) == CPU0);
  VALUES(w, 0, 0, 7, 1, 8, 2, 9);
  REL(w);
  REL(v);
  EXPECT_ERR(ndrt_tensor_to_device(h, NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 3), &v), NDRT_ERR_INVALID_ARGUMENT,
             "tensor_to_device", "cpu:3");

  /* Views keep their storage alive. */
  REL(h);
  VALUES(t, 0, 0, 7, 1, 8, 2, 9);
  REL(t);
  CHECK(live() == base_live);
}

/* ------------------------------------------------------------------------------------------------
 * 6. Wrapped caller memory and release hooks
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  int calls;
  void* data_seen;
  void* user_seen;
} hook_count;

static void count_release(void* data, void* user) {
  hook_count* c = (hook_count*)user;
  ++c->calls;
  c->data_seen = data;
  c->user_seen = user;
}

static struct {
  int calls;
  ndrt_status status;
  ndrt_handle second;
  hook_count second_hook;
} g_chain;

static void chain_release(void* data, void* user) {
  (void)data;
  (void)user;
  ++g_chain.calls;
  g_chain.status = ndrt_tensor_release(g_chain.second);
}

static void free_release(void* data, void* user) {
  hook_count* c = (hook_count*)user;
  ++c->calls;
  free(data);
}

static void test_wrap_and_release_hooks(void) {
  const int64_t s23[2] = {2, 3};
  int64_t base_live = live();
  int64_t wrapped0 = stats(CPU0).wrapped;
  hook_count hc;
  float* buf;
  ndrt_handle h = 0, v1 = 0, v2 = 0;
  int perm_i;

  /* Zero-copy: the tensor is the caller's memory, both ways. */
  buf = malloc(6 * sizeof(float));
  memcpy(buf, (const float[]){0, 1, 2, 3, 4, 5}, 6 * sizeof(float));
  memset(&hc, 0, sizeof hc);
  EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 2, s23, NULL, buf, 6 * sizeof(float), count_release, &hc, &h));
  CHECK(data_of(h) == (char*)buf);
  CHECK(stats(CPU0).wrapped > wrapped0);
  CHECK(device_of(h) == CPU0);
  buf[4] = 40;
  VALUES(h, 0, 0, 1, 2, 3, 40, 5);
  EXPECT_OK(ndrt_tensor_write(h, (const float[]){9, 8, 7, 6, 5, 4}, 6 * sizeof(float)));
  CHECK(buf[0] == 9 && buf[5] == 4);
  /* An op writes straight into wrapped memory given as its output. */
  {
    ndrt_handle a = MK(NDRT_F32, 2, s23, ((const float[]){1, 1, 1, 1, 1, 1}));
    ndrt_handle in[2];
    in[0] = a;
    in[1] = a;
    EXPECT_OK(run("add", in, 2, &h, NULL, 0, NULL, 0));
    CHECK(buf[0] == 2 && buf[5] == 2);
    REL(a);
  }
  CHECK(hc.calls == 0);
  REL(h);
  CHECK(hc.calls == 1);
  CHECK(hc.data_seen == buf && hc.user_seen == &hc);
  CHECK(stats(CPU0).wrapped == wrapped0);
  /* Double release runs nothing twice. */
  EXPECT_ERR(ndrt_tensor_release(h), NDRT_ERR_INVALID_HANDLE, num(h), NULL);
  CHECK(hc.calls == 1);

  /* Three handles on one storage (the wrap, a reshape, a slice of the reshape), released in all
   * six orders: the hook runs exactly once, when the last one goes. */
  for (perm_i = 0; perm_i < 6; ++perm_i) {
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    ndrt_handle hs[3];
    int k;
    memset(&hc, 0, sizeof hc);
    hs[0] = hs[1] = hs[2] = 0;
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 2, s23, NULL, buf, 6 * sizeof(float), count_release, &hc, &hs[0]));
    EXPECT_OK(ndrt_tensor_reshape(hs[0], 1, (const int64_t[]){6}, &hs[1]));
    EXPECT_OK(ndrt_tensor_slice(hs[1], 0, 1, 5, 2, &hs[2]));
    for (k = 0; k < 3; ++k) {
      CHECK(hc.calls == 0);
      REL(hs[orders[perm_i][k]]);
    }
    if (!CHECK(hc.calls == 1)) fprintf(stderr, "    release order %d: hook ran %d times\n", perm_i, hc.calls);
  }

  /* Retained handles, contiguous() of a contiguous view and a transposed view all keep the memory;
   * copies (cast, to_device, contiguous of a strided view) do not. */
  memset(&hc, 0, sizeof hc);
  EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 2, s23, NULL, buf, 6 * sizeof(float), count_release, &hc, &h));
  EXPECT_OK(ndrt_tensor_retain(h, &v1));
  EXPECT_OK(ndrt_tensor_contiguous(h, &v2));
  {
    ndrt_handle tr = 0, copy1 = 0, copy2 = 0, copy3 = 0;
    EXPECT_OK(ndrt_tensor_transpose(h, 0, 1, &tr));
    EXPECT_OK(ndrt_tensor_cast(h, NDRT_F64, &copy1));
    EXPECT_OK(ndrt_tensor_to_device(h, CPU1, &copy2));
    EXPECT_OK(ndrt_tensor_contiguous(tr, &copy3));
    REL(h);
    REL(v1);
    REL(v2);
    CHECK(hc.calls == 0);
    REL(tr);
    CHECK(hc.calls == 1);
    VALUES(copy1, 0, 2, 2, 2, 2, 2, 2);
    REL(copy1);
    REL(copy2);
    REL(copy3);
    CHECK(hc.calls == 1);
  }

  /* Caller strides (a column-major view) and capacity checks. */
  {
    float* m = malloc(12 * sizeof(float));
    int i;
    for (i = 0; i < 12; ++i) m[i] = (float)i;
    memset(&hc, 0, sizeof hc);
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 2, (const int64_t[]){3, 2}, (const int64_t[]){1, 3}, m, 12 * sizeof(float),
                               count_release, &hc, &h));
    STRIDES(h, 2, 1, 3);
    CHECK(contiguous_of(h) == 0);
    VALUES(h, 0, 0, 3, 1, 4, 2, 5);
    REL(h);
    CHECK(hc.calls == 1);
    /* Failing wraps never run the hook and leave the memory the caller's. */
    memset(&hc, 0, sizeof hc);
    h = 0;
    EXPECT_ERR(ndrt_tensor_wrap(NDRT_F32, 2, s23, NULL, m, 5 * sizeof(float), count_release, &hc, &h),
               NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap", "20"); /* 6 elements need 24 bytes */
    EXPECT_ERR(ndrt_tensor_wrap(NDRT_F32, 1, (const int64_t[]){4}, (const int64_t[]){4}, m, 12 * sizeof(float),
                                count_release, &hc, &h),
               NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap", NULL); /* element 12 is past the end */
    EXPECT_ERR(ndrt_tensor_wrap(NDRT_F32, 1, (const int64_t[]){3}, (const int64_t[]){-1}, m, 12 * sizeof(float),
                                count_release, &hc, &h),
               NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap", NULL); /* reaches before `data` */
    EXPECT_ERR(ndrt_tensor_wrap(NDRT_F32, 2, s23, NULL, NULL, 24, count_release, &hc, &h), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_wrap", "data");
    EXPECT_ERR(ndrt_tensor_wrap(0, 2, s23, NULL, m, 48, count_release, &hc, &h), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_wrap", "dtype");
    EXPECT_ERR(ndrt_tensor_wrap(NDRT_F32, 2, NULL, NULL, m, 48, count_release, &hc, &h), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_wrap", "shape");
    EXPECT_ERR(ndrt_tensor_wrap(NDRT_F32, 2, s23, NULL, m, 48, count_release, &hc, NULL), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_wrap", "out");
    /* (Strides whose byte offsets overflow 64 bits: see test_isolated.) */
    CHECK(hc.calls == 0);
    CHECK(h == 0);
    /* Rank 0 and size 0 wraps; a NULL hook is allowed. */
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 0, NULL, NULL, m + 7, sizeof(float), NULL, NULL, &h));
    VALUES(h, 0, 7);
    REL(h);
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 2, (const int64_t[]){0, 3}, NULL, NULL, 0, count_release, &hc, &h));
    REL(h);
    CHECK(hc.calls == 1);
    free(m);
  }

  /* A hook may call back into ndrt: this one releases the last handle of a second wrap, whose hook
   * then runs too. */
  {
    float* m1 = malloc(4 * sizeof(float));
    float* m2 = malloc(4 * sizeof(float));
    ndrt_handle first = 0;
    memset(&g_chain, 0, sizeof g_chain);
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 1, (const int64_t[]){4}, NULL, m2, 4 * sizeof(float), count_release,
                               &g_chain.second_hook, &g_chain.second));
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 1, (const int64_t[]){4}, NULL, m1, 4 * sizeof(float), chain_release,
                               &g_chain, &first));
    REL(first);
    CHECK(g_chain.calls == 1);
    CHECK(g_chain.status == NDRT_OK);
    CHECK(g_chain.second_hook.calls == 1);
    free(m1);
    free(m2);
  }

  /* A hook that frees the memory itself (the usual ownership hand-over). */
  {
    double* owned = malloc(4 * sizeof(double));
    ndrt_handle y = 0, in[2];
    memset(&hc, 0, sizeof hc);
    owned[0] = 1; owned[1] = 2; owned[2] = 3; owned[3] = 4;
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F64, 2, (const int64_t[]){2, 2}, NULL, owned, 4 * sizeof(double), free_release,
                               &hc, &h));
    in[0] = h;
    in[1] = h;
    EXPECT_OK(run("matmul", in, 2, &y, NULL, 0, NULL, 0));
    REL(h);
    CHECK(hc.calls == 1);
    VALUES(y, 0, 7, 10, 15, 22);
    REL(y);
  }

  free(buf);
  CHECK(stats(CPU0).wrapped == wrapped0);
  CHECK(live() == base_live);
}

/* ------------------------------------------------------------------------------------------------
 * 7. Ops: registry, descriptions, every op on the cpu with checked results
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  int32_t id;
} describe_ctx;

static ndrt_status fetch_describe(void* ctx, char* buf, size_t capacity, size_t* needed) {
  return ndrt_op_describe(((describe_ctx*)ctx)->id, buf, capacity, needed);
}

static void test_registry(void) {
  static const char* const names[] = {"fill", "copy", "cast", "add", "sub", "mul", "div", "neg",
                                      "relu", "exp",  "log",  "sum", "mean", "max", "matmul"};
  int32_t count = -1, id = -1, i;
  size_t k, needed = 0;
  EXPECT_OK(ndrt_op_count(&count));
  CHECK(count >= (int32_t)(sizeof names / sizeof names[0]));
  EXPECT_ERR(ndrt_op_count(NULL), NDRT_ERR_INVALID_ARGUMENT, "op_count", NULL);
  for (k = 0; k < sizeof names / sizeof names[0]; ++k) {
    char pattern[64];
    char* json;
    describe_ctx ctx;
    id = -1;
    EXPECT_OK(ndrt_op_find(names[k], &id));
    CHECK(id >= 0 && id < count);
    ctx.id = id;
    if (k == 0) {
      /* The buffer contract (size query, full buffer, NULLs, too small), once. */
      json = text_contract_(fetch_describe, &ctx, "ndrt_op_describe", __FILE__, __LINE__);
    } else {
      json = NULL;
      if (EXPECT_OK(ndrt_op_describe(id, NULL, 0, &needed)) && needed > 1) {
        json = malloc(needed);
        if (!EXPECT_OK(ndrt_op_describe(id, json, needed, NULL))) {
          free(json);
          json = NULL;
        }
      }
    }
    if (!CHECK(json != NULL)) continue;
    snprintf(pattern, sizeof pattern, "\"name\":\"%s\"", names[k]);
    if (!CHECK(strstr(json, pattern) != NULL)) fprintf(stderr, "    describe(%s) = %s\n", names[k], json);
    CHECK(json[0] == '{' && json[strlen(json) - 1] == '}');
    CHECK(strstr(json, "\"inputs\"") && strstr(json, "\"outputs\"") && strstr(json, "\"attrs\"") &&
          strstr(json, "\"kernels\""));
    if (strcmp(names[k], "sum") == 0)
      CHECK(strstr(json, "\"axes\"") && strstr(json, "\"ints\"") && strstr(json, "\"keepdims\"") &&
            strstr(json, "\"bool\""));
    if (strcmp(names[k], "fill") == 0)
      CHECK(strstr(json, "\"value\"") && strstr(json, "\"float\"") && strstr(json, "\"dtype\""));
    if (strcmp(names[k], "matmul") == 0)
      CHECK(strstr(json, "\"transpose_a\"") && strstr(json, "\"transpose_b\"") && strstr(json, "\"f32\""));
    free(json);
  }
  /* Every registered op describes itself and is found again by its name. */
  for (i = 0; i < count; ++i) {
    char json[8192], name[128];
    const char* p;
    size_t n = 0;
    EXPECT_OK(ndrt_op_describe(i, json, sizeof json, &needed));
    p = strstr(json, "\"name\":\"");
    if (!CHECK(p != NULL)) continue;
    p += 8;
    while (*p && *p != '"' && n + 1 < sizeof name) name[n++] = *p++;
    name[n] = '\0';
    id = -1;
    EXPECT_OK(ndrt_op_find(name, &id));
    CHECK(id == i);
  }
  /* Unknown ops. */
  EXPECT_ERR(ndrt_op_find("no_such_op", &id), NDRT_ERR_UNKNOWN_OP, "no_such_op", NULL);
  EXPECT_ERR(ndrt_op_find("", &id), NDRT_ERR_UNKNOWN_OP, "op_find", NULL);
  EXPECT_ERR(ndrt_op_find(NULL, &id), NDRT_ERR_INVALID_ARGUMENT, "op_find", "name");
  EXPECT_ERR(ndrt_op_find("add", NULL), NDRT_ERR_INVALID_ARGUMENT, "op_find", NULL);
  EXPECT_ERR(ndrt_op_describe(count, NULL, 0, &needed), NDRT_ERR_UNKNOWN_OP, "op_describe", num(count));
  EXPECT_ERR(ndrt_op_describe(-1, NULL, 0, &needed), NDRT_ERR_UNKNOWN_OP, "op_describe", "-1");
  EXPECT_ERR(ndrt_exec(count, NULL, 0, NULL, 0, NULL, 0, NULL, 0), NDRT_ERR_UNKNOWN_OP, num(count), NULL);
  EXPECT_ERR(ndrt_exec(-1, NULL, 0, NULL, 0, NULL, 0, NULL, 0), NDRT_ERR_UNKNOWN_OP, "-1", NULL);
  EXPECT_ERR(ndrt_exec(INT32_MAX, NULL, 0, NULL, 0, NULL, 0, NULL, 0), NDRT_ERR_UNKNOWN_OP, num(INT32_MAX), NULL);
}

static void test_ops(void) {
  const int64_t s23[2] = {2, 3};
  int64_t base_live = live();
  ndrt_handle a = MK(NDRT_F32, 2, s23, ((const float[]){1, 2, 3, 4, 5, 6}));
  ndrt_handle b = MK(NDRT_F32, 1, ((const int64_t[]){3}), ((const float[]){10, 20, 30}));
  ndrt_handle in[2], y = 0, z = 0;

  /* fill: no inputs; attributes value (float), dtype, shape (ints). */
  {
    const int64_t ints[4] = {NDRT_F64, 2, 2, 3};
    const double val = 2.5;
    y = 0;
    EXPECT_OK(run("fill", NULL, 0, &y, ints, 4, &val, 1));
    CHECK(dtype_of(y) == NDRT_F64);
    SHAPE(y, 2, 2, 3);
    VALUES(y, 0, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5);
    /* With a given output, its shape and dtype win and the attributes may be left out. */
    {
      const double seven = 7;
      ndrt_handle i32 = 0;
      EXPECT_OK(ndrt_tensor_create(NDRT_I32, 1, (const int64_t[]){4}, CPU0, &i32));
      EXPECT_OK(run("fill", NULL, 0, &i32, NULL, 0, &seven, 1));
      VALUES(i32, 0, 7, 7, 7, 7);
      REL(i32);
    }
    REL(y);
    /* All defaults: a 0.0 f32 scalar. */
    y = 0;
    EXPECT_OK(run("fill", NULL, 0, &y, NULL, 0, NULL, 0));
    CHECK(dtype_of(y) == NDRT_F32);
    SHAPE0(y);
    VALUES(y, 0, 0);
    REL(y);
  }
  /* copy into a strided (transposed) view of another tensor. */
  {
    ndrt_handle dst = 0, dst_t = 0;
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){3, 2}, CPU0, &dst));
    EXPECT_OK(ndrt_tensor_transpose(dst, 0, 1, &dst_t));
    EXPECT_OK(run("copy", &a, 1, &dst_t, NULL, 0, NULL, 0));
    VALUES(dst, 0, 1, 4, 2, 5, 3, 6);
    REL(dst_t);
    REL(dst);
  }
  /* cast (required dtype attribute). */
  {
    const int64_t to_i64 = NDRT_I64;
    y = 0;
    EXPECT_OK(run("cast", &a, 1, &y, &to_i64, 1, NULL, 0));
    CHECK(dtype_of(y) == NDRT_I64);
    VALUES(y, 0, 1, 2, 3, 4, 5, 6);
    REL(y);
  }
  /* Broadcasting binary ops on f32 ([2,3] op [3]). */
  in[0] = a;
  in[1] = b;
  y = 0;
  EXPECT_OK(run("add", in, 2, &y, NULL, 0, NULL, 0));
  SHAPE(y, 2, 2, 3);
  VALUES(y, 0, 11, 22, 33, 14, 25, 36);
  REL(y);
  y = 0;
  EXPECT_OK(run("sub", in, 2, &y, NULL, 0, NULL, 0));
  VALUES(y, 0, -9, -18, -27, -6, -15, -24);
  REL(y);
  y = 0;
  EXPECT_OK(run("mul", in, 2, &y, NULL, 0, NULL, 0));
  VALUES(y, 1e-7, 10, 40, 90, 40, 100, 180);
  REL(y);
  y = 0;
  EXPECT_OK(run("div", in, 2, &y, NULL, 0, NULL, 0));
  VALUES(y, 1e-6, 0.1, 0.1, 0.1, 0.4, 0.25, 0.2);
  REL(y);
  /* [2,1] op [3] -> [2,3]; rank-0 op [2,3]. */
  {
    ndrt_handle col = MK(NDRT_F32, 2, ((const int64_t[]){2, 1}), ((const float[]){100, 200}));
    ndrt_handle sc = 0;
    const float two = 2;
    EXPECT_OK(ndrt_tensor_from_host(NDRT_F32, 0, NULL, &two, sizeof two, CPU0, &sc));
    in[0] = col;
    in[1] = b;
    y = 0;
    EXPECT_OK(run("add", in, 2, &y, NULL, 0, NULL, 0));
    SHAPE(y, 2, 2, 3);
    VALUES(y, 0, 110, 120, 130, 210, 220, 230);
    REL(y);
    in[0] = sc;
    in[1] = a;
    y = 0;
    EXPECT_OK(run("mul", in, 2, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, 2, 4, 6, 8, 10, 12);
    REL(y);
    REL(sc);
    REL(col);
  }
  /* In place (add/sub/mul/div, neg, relu, exp, log allow it): the output is input 0's view. */
  {
    ndrt_handle acc = MK(NDRT_F32, 2, s23, ((const float[]){1, 2, 3, 4, 5, 6}));
    in[0] = acc;
    in[1] = b;
    EXPECT_OK(run("add", in, 2, &acc, NULL, 0, NULL, 0));
    VALUES(acc, 0, 11, 22, 33, 14, 25, 36);
    EXPECT_OK(run("neg", &acc, 1, &acc, NULL, 0, NULL, 0));
    VALUES(acc, 0, -11, -22, -33, -14, -25, -36);
    REL(acc);
  }
  /* Integer ops: wrap-free results, truncating division, division by zero is an error. */
  {
    ndrt_handle ia = MK(NDRT_I32, 1, ((const int64_t[]){4}), ((const int32_t[]){7, -7, 9, 0}));
    ndrt_handle ib = MK(NDRT_I32, 1, ((const int64_t[]){4}), ((const int32_t[]){2, 2, -4, 5}));
    ndrt_handle iz = MK(NDRT_I32, 1, ((const int64_t[]){4}), ((const int32_t[]){1, 0, 1, 1}));
    ndrt_handle la = MK(NDRT_I64, 1, ((const int64_t[]){2}), ((const int64_t[]){(int64_t)1 << 40, -3}));
    int64_t before;
    ndrt_memory_stats m0;
    in[0] = ia;
    in[1] = ib;
    y = 0;
    EXPECT_OK(run("div", in, 2, &y, NULL, 0, NULL, 0));
    CHECK(dtype_of(y) == NDRT_I32);
    VALUES(y, 0, 3, -3, -2, 0);
    REL(y);
    y = 0;
    EXPECT_OK(run("relu", &ia, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, 7, 0, 9, 0);
    REL(y);
    y = 0;
    EXPECT_OK(run("neg", &ia, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, -7, 7, -9, 0);
    REL(y);
    in[0] = la;
    in[1] = la;
    y = 0;
    EXPECT_OK(run("mul", in, 2, &y, NULL, 0, NULL, 0));
    CHECK(dtype_of(y) == NDRT_I64);
    {
      int64_t got[2] = {0, 0};
      EXPECT_OK(ndrt_tensor_read(y, got, sizeof got));
      CHECK(got[0] == 0 /* 2^80 wraps to 0 */ && got[1] == 9);
    }
    REL(y);
    before = live();
    m0 = stats(CPU0);
    in[0] = ia;
    in[1] = iz;
    y = 0;
    EXPECT_ERR(run("div", in, 2, &y, NULL, 0, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "div", "zero");
    CHECK(y == 0);
    CHECK(live() == before);
    CHECK(stats(CPU0).in_use == m0.in_use); /* the output allocated for the failed call went back */
    REL(ia);
    REL(ib);
    REL(iz);
    REL(la);
  }
  /* exp / log / relu on f64, neg on f32. */
  {
    ndrt_handle d = MK(NDRT_F64, 1, ((const int64_t[]){4}), ((const double[]){-1.5, 0.0, 0.5, 2.0}));
    y = 0;
    EXPECT_OK(run("exp", &d, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 1e-14, exp(-1.5), 1.0, exp(0.5), exp(2.0));
    REL(y);
    y = 0;
    EXPECT_OK(run("log", &d, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 1e-14, NAN, -INFINITY, log(0.5), log(2.0));
    REL(y);
    y = 0;
    EXPECT_OK(run("relu", &d, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, 0, 0, 0.5, 2.0);
    REL(y);
    y = 0;
    EXPECT_OK(run("neg", &a, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, -1, -2, -3, -4, -5, -6);
    REL(y);
    REL(d);
  }
  /* Reductions: axes list (count then values), keepdims bool. */
  {
    const int64_t axis1_keep[3] = {1, 1, 1}; /* axes {1}, keepdims 1 */
    const int64_t axis0[2] = {1, 0};
    const int64_t neg_axis[2] = {1, -1};
    ndrt_handle i32 = MK(NDRT_I32, 2, s23, ((const int32_t[]){1, -2, 3, 4, 5, -6}));
    y = 0;
    EXPECT_OK(run("sum", &a, 1, &y, axis1_keep, 3, NULL, 0));
    SHAPE(y, 2, 2, 1);
    VALUES(y, 0, 6, 15);
    REL(y);
    y = 0;
    EXPECT_OK(run("sum", &a, 1, &y, NULL, 0, NULL, 0)); /* all axes -> scalar */
    SHAPE0(y);
    VALUES(y, 0, 21);
    REL(y);
    y = 0;
    EXPECT_OK(run("mean", &a, 1, &y, axis0, 2, NULL, 0));
    SHAPE(y, 1, 3);
    VALUES(y, 1e-7, 2.5, 3.5, 4.5);
    REL(y);
    y = 0;
    EXPECT_OK(run("max", &a, 1, &y, neg_axis, 2, NULL, 0));
    SHAPE(y, 1, 2);
    VALUES(y, 0, 3, 6);
    REL(y);
    y = 0;
    EXPECT_OK(run("sum", &i32, 1, &y, axis0, 2, NULL, 0));
    CHECK(dtype_of(y) == NDRT_I32);
    VALUES(y, 0, 5, 3, -3);
    REL(y);
    y = 0;
    EXPECT_OK(run("max", &i32, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, 5);
    REL(y);
    /* Over a transposed view. */
    EXPECT_OK(ndrt_tensor_transpose(a, 0, 1, &z));
    y = 0;
    EXPECT_OK(run("sum", &z, 1, &y, axis0, 2, NULL, 0));
    VALUES(y, 0, 6, 15);
    REL(y);
    REL(z);
    /* Size 0: sum is 0, max has no identity. */
    {
      ndrt_handle e = 0;
      EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){0, 3}, CPU0, &e));
      y = 0;
      EXPECT_OK(run("sum", &e, 1, &y, axis0, 2, NULL, 0));
      VALUES(y, 0, 0, 0, 0);
      REL(y);
      y = 0;
      EXPECT_ERR(run("max", &e, 1, &y, axis0, 2, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "max", NULL);
      CHECK(y == 0);
      REL(e);
    }
    EXPECT_ERR(run("sum", &a, 1, &y, (const int64_t[]){1, 2}, 2, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "sum", "2");
    EXPECT_ERR(run("sum", &a, 1, &y, (const int64_t[]){2, 0, 0}, 3, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "sum",
               "twice");
    REL(i32);
  }
  /* matmul, with transposes and broadcast batch axes, f32 and f64. */
  {
    ndrt_handle m23 = a; /* [[1,2,3],[4,5,6]] */
    ndrt_handle m32 = MK(NDRT_F32, 2, ((const int64_t[]){3, 2}), ((const float[]){1, 0, 0, 1, 1, 1}));
    ndrt_handle batch = MK(NDRT_F32, 3, ((const int64_t[]){2, 2, 3}),
                           ((const float[]){1, 2, 3, 4, 5, 6, 1, 1, 1, 2, 2, 2}));
    const int64_t tb[2] = {0, 1}, ta[1] = {1};
    in[0] = m23;
    in[1] = m32;
    y = 0;
    EXPECT_OK(run("matmul", in, 2, &y, NULL, 0, NULL, 0));
    SHAPE(y, 2, 2, 2);
    VALUES(y, 0, 4, 5, 10, 11);
    REL(y);
    in[0] = m23;
    in[1] = m23;
    y = 0;
    EXPECT_OK(run("matmul", in, 2, &y, tb, 2, NULL, 0)); /* a @ a^T */
    SHAPE(y, 2, 2, 2);
    VALUES(y, 0, 14, 32, 32, 77);
    REL(y);
    y = 0;
    EXPECT_OK(run("matmul", in, 2, &y, ta, 1, NULL, 0)); /* a^T @ a */
    SHAPE(y, 2, 3, 3);
    VALUES(y, 0, 17, 22, 27, 22, 29, 36, 27, 36, 45);
    REL(y);
    in[0] = batch;
    in[1] = m32;
    y = 0;
    EXPECT_OK(run("matmul", in, 2, &y, NULL, 0, NULL, 0));
    SHAPE(y, 3, 2, 2, 2);
    VALUES(y, 0, 4, 5, 10, 11, 2, 2, 4, 4);
    REL(y);
    /* Into a given, transposed output view. */
    {
      ndrt_handle o = 0, ot = 0;
      in[0] = m23;
      in[1] = m32;
      EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){2, 2}, CPU0, &o));
      EXPECT_OK(ndrt_tensor_transpose(o, 0, 1, &ot));
      EXPECT_OK(run("matmul", in, 2, &ot, NULL, 0, NULL, 0));
      VALUES(o, 0, 4, 10, 5, 11);
      REL(ot);
      REL(o);
    }
    {
      ndrt_handle d1 = 0, d2 = 0;
      EXPECT_OK(ndrt_tensor_cast(m23, NDRT_F64, &d1));
      EXPECT_OK(ndrt_tensor_cast(m32, NDRT_F64, &d2));
      in[0] = d1;
      in[1] = d2;
      y = 0;
      EXPECT_OK(run("matmul", in, 2, &y, NULL, 0, NULL, 0));
      CHECK(dtype_of(y) == NDRT_F64);
      VALUES(y, 0, 4, 5, 10, 11);
      REL(y);
      REL(d1);
      REL(d2);
    }
    /* An empty inner dimension gives zeros. */
    {
      ndrt_handle k0a = 0, k0b = 0;
      EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){2, 0}, CPU0, &k0a));
      EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){0, 3}, CPU0, &k0b));
      in[0] = k0a;
      in[1] = k0b;
      y = 0;
      EXPECT_OK(run("matmul", in, 2, &y, NULL, 0, NULL, 0));
      SHAPE(y, 2, 2, 3);
      VALUES(y, 0, 0, 0, 0, 0, 0, 0);
      REL(y);
      REL(k0a);
      REL(k0b);
    }
    REL(batch);
    REL(m32);
  }
  /* Rank 0 through a reduction and a unary op. */
  {
    const double v = -3.0;
    ndrt_handle sc = 0;
    EXPECT_OK(ndrt_tensor_from_host(NDRT_F64, 0, NULL, &v, sizeof v, CPU0, &sc));
    y = 0;
    EXPECT_OK(run("sum", &sc, 1, &y, NULL, 0, NULL, 0));
    SHAPE0(y);
    VALUES(y, 0, -3);
    REL(y);
    y = 0;
    EXPECT_OK(run("relu", &sc, 1, &y, NULL, 0, NULL, 0));
    VALUES(y, 0, 0);
    REL(y);
    REL(sc);
  }
  REL(a);
  REL(b);
  CHECK(live() == base_live);
}

/* ------------------------------------------------------------------------------------------------
 * 8. ndrt_exec error paths. Every failing call with a runtime-allocated output leaves the output
 *    slot 0 and no new handle behind.
 * ---------------------------------------------------------------------------------------------- */
static void exec_err_(const char* op, const ndrt_handle* in, int32_t n_in, ndrt_handle given_out,
                      const int64_t* ints, int32_t n_ints, const double* floats, int32_t n_floats, ndrt_status want,
                      const char* n1, const char* n2, const char* file, int line) {
  ndrt_handle out = given_out;
  int64_t before = live();
  char expr[128];
  snprintf(expr, sizeof expr, "ndrt_exec(%s)", op);
  expect_(ndrt_exec(op_id(op), in, n_in, &out, 1, ints, n_ints, floats, n_floats), want, n1, n2, expr, file, line);
  check_(out == given_out, "a failed exec leaves the output slot as given", file, line);
  check_(live() == before, "a failed exec leaves no new handle behind", file, line);
}
#define EXEC_ERR(op, in, n_in, out, ints, n_ints, floats, n_floats, want, n1, n2) \
  exec_err_((op), (in), (n_in), (out), (ints), (n_ints), (floats), (n_floats), (want), (n1), (n2), __FILE__, __LINE__)

static void test_exec_errors(void) {
  const int64_t s23[2] = {2, 3};
  const float x6[6] = {1, 2, 3, 4, 5, 6};
  int64_t base_live = live();
  ndrt_memory_stats m0 = stats(CPU0);
  ndrt_handle a = MK(NDRT_F32, 2, s23, x6);
  ndrt_handle b4 = MK(NDRT_F32, 1, ((const int64_t[]){4}), ((const float[]){1, 2, 3, 4}));
  ndrt_handle d = MK(NDRT_F64, 2, s23, ((const double[]){1, 2, 3, 4, 5, 6}));
  ndrt_handle m45 = 0, out32 = 0, out23d = 0, row = 0, bc = 0, h16 = 0, hbool = 0, i32 = 0, stale = 0, sl = 0;
  ndrt_handle in[3], out2[2];
  int32_t add = op_id("add");
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){4, 5}, CPU0, &m45));
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){3, 2}, CPU0, &out32));
  EXPECT_OK(ndrt_tensor_create(NDRT_F64, 2, s23, CPU0, &out23d));
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, (const int64_t[]){1, 3}, CPU0, &row));
  EXPECT_OK(ndrt_tensor_expand(row, 2, s23, &bc));
  EXPECT_OK(ndrt_tensor_create(NDRT_F16, 2, s23, CPU0, &h16));
  EXPECT_OK(ndrt_tensor_create(NDRT_BOOL, 2, s23, CPU0, &hbool));
  EXPECT_OK(ndrt_tensor_create(NDRT_I32, 2, s23, CPU0, &i32));
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 2, s23, CPU0, &stale));
  REL(stale);

  /* Wrong arity (inputs and outputs). */
  in[0] = a;
  in[1] = a;
  in[2] = a;
  EXEC_ERR("add", in, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "add", "1");
  EXEC_ERR("add", in, 3, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "add", "3");
  EXEC_ERR("neg", in, 0, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "neg", NULL);
  EXEC_ERR("fill", in, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "fill", NULL);
  EXEC_ERR("add", in, -1, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "add", NULL);
  out2[0] = out2[1] = 0;
  EXPECT_ERR(ndrt_exec(add, in, 2, out2, 2, NULL, 0, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "add", "2");
  EXPECT_ERR(ndrt_exec(add, in, 2, out2, 0, NULL, 0, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "add", "0");
  CHECK(out2[0] == 0 && out2[1] == 0);
  /* Null arrays. */
  EXPECT_ERR(ndrt_exec(add, NULL, 2, out2, 1, NULL, 0, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "add", "NULL");
  EXPECT_ERR(ndrt_exec(add, in, 2, NULL, 1, NULL, 0, NULL, 0), NDRT_ERR_INVALID_ARGUMENT, "add", "NULL");
  EXEC_ERR("sum", &a, 1, 0, NULL, 2, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", "NULL");
  EXEC_ERR("fill", NULL, 0, 0, NULL, 0, NULL, 1, NDRT_ERR_INVALID_ARGUMENT, "fill", "NULL");
  EXEC_ERR("sum", &a, 1, 0, (const int64_t[]){0}, -1, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", NULL);

  /* Bad attributes. */
  /* bool not 0/1 */
  EXEC_ERR("sum", &a, 1, 0, ((const int64_t[]){0, 2}), 2, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", "keepdims");
  EXEC_ERR("matmul", in, 2, 0, ((const int64_t[]){-1}), 1, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "matmul",
           "transpose_a");
  /* invalid dtype */
  EXEC_ERR("cast", &a, 1, 0, ((const int64_t[]){99}), 1, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "cast", "dtype");
  EXEC_ERR("cast", &a, 1, 0, ((const int64_t[]){0}), 1, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "cast", "dtype");
  EXEC_ERR("fill", NULL, 0, 0, ((const int64_t[]){-3, 0}), 2, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "fill", "dtype");
  /* a list count overrunning the array */
  EXEC_ERR("sum", &a, 1, 0, ((const int64_t[]){5, 0}), 2, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", "axes");
  EXEC_ERR("sum", &a, 1, 0, ((const int64_t[]){-1}), 1, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", "axes");
  EXEC_ERR("fill", NULL, 0, 0, ((const int64_t[]){NDRT_F32, 3, 2, 2}), 4, NULL, 0, NDRT_ERR_INVALID_ARGUMENT,
           "fill", "shape");
  /* too many attribute values (ints and floats) */
  EXEC_ERR("sum", &a, 1, 0, ((const int64_t[]){0, 0, 7}), 3, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", "3");
  EXEC_ERR("add", in, 2, 0, ((const int64_t[]){1}), 1, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "add", NULL);
  EXEC_ERR("add", in, 2, 0, NULL, 0, ((const double[]){1.0}), 1, NDRT_ERR_INVALID_ARGUMENT, "add", NULL);
  EXEC_ERR("fill", NULL, 0, 0, NULL, 0, ((const double[]){1.0, 2.0}), 2, NDRT_ERR_INVALID_ARGUMENT, "fill", "2");
  /* required attribute missing */
  EXEC_ERR("cast", &a, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "cast", "dtype");
  /* fill: a shape with too many elements, a negative extent */
  EXEC_ERR("fill", NULL, 0, 0, ((const int64_t[]){NDRT_F32, 2, (int64_t)1 << 40, (int64_t)1 << 40}), 4, NULL, 0,
           NDRT_ERR_INVALID_ARGUMENT, "fill", "1099511627776");
  EXEC_ERR("fill", NULL, 0, 0, ((const int64_t[]){NDRT_F32, 1, -4}), 3, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "fill",
           "-4");

  /* Shape mismatch: non-broadcasting add, matmul inner size, given output of the wrong shape. */
  in[0] = a;
  in[1] = b4;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_SHAPE_MISMATCH, "add", "[2,3]");
  in[0] = a;
  in[1] = m45;
  EXEC_ERR("matmul", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_SHAPE_MISMATCH, "matmul", "[4,5]");
  EXEC_ERR("matmul", in, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "matmul", NULL);
  in[0] = b4;
  in[1] = b4;
  EXEC_ERR("matmul", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_SHAPE_MISMATCH, "matmul", "[4]");
  in[0] = a;
  in[1] = a;
  EXEC_ERR("add", in, 2, out32, NULL, 0, NULL, 0, NDRT_ERR_SHAPE_MISMATCH, "add", "[3,2]");
  EXEC_ERR("sum", &a, 1, out32, NULL, 0, NULL, 0, NDRT_ERR_SHAPE_MISMATCH, "sum", NULL);

  /* Dtype mismatch: f32 + f64, given output of the wrong dtype, a float-only op on ints. */
  in[0] = a;
  in[1] = d;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_DTYPE_MISMATCH, "add", "f64");
  EXEC_ERR("matmul", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_DTYPE_MISMATCH, "matmul", "f64");
  in[0] = a;
  in[1] = a;
  EXEC_ERR("add", in, 2, out23d, NULL, 0, NULL, 0, NDRT_ERR_DTYPE_MISMATCH, "add", "f64");
  EXEC_ERR("exp", &i32, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_DTYPE_MISMATCH, "exp", "i32");
  EXEC_ERR("mean", &i32, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_DTYPE_MISMATCH, "mean", "i32");

  /* Not supported: no kernel for the dtype. */
  EXEC_ERR("sum", &hbool, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_NOT_SUPPORTED, "sum", "bool");
  in[0] = hbool;
  in[1] = hbool;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_NOT_SUPPORTED, "add", "bool");
  in[0] = i32;
  in[1] = i32;
  EXEC_ERR("matmul", in, 2, 0, ((const int64_t[]){0, 1}), 2, NULL, 0, NDRT_ERR_NOT_SUPPORTED, "matmul", "i32");

  /* Invalid handles as inputs and outputs. */
  in[0] = a;
  in[1] = stale;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_HANDLE, "add", num(stale));
  in[1] = 0;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_HANDLE, "add", NULL);
  in[1] = (ndrt_handle)0x7fff00000123LL;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_INVALID_HANDLE, "add", num(0x7fff00000123LL));
  in[1] = a;
  EXEC_ERR("add", in, 2, stale, NULL, 0, NULL, 0, NDRT_ERR_INVALID_HANDLE, "add", num(stale));

  /* An output that is a broadcast view. */
  EXEC_ERR("add", in, 2, bc, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "add", "broadcast");
  EXEC_ERR("fill", NULL, 0, bc, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "fill", "broadcast");
  /* An output that aliases an input of an op that does not run in place (matmul, copy, sum). */
  {
    ndrt_handle sq = MK(NDRT_F32, 2, ((const int64_t[]){2, 2}), ((const float[]){1, 2, 3, 4}));
    ndrt_handle sq_r = 0, sq_t = 0;
    float back[4];
    in[0] = sq;
    in[1] = sq;
    EXEC_ERR("matmul", in, 2, sq, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "matmul", "output");
    EXPECT_OK(ndrt_tensor_retain(sq, &sq_r)); /* another handle to the very same view */
    EXEC_ERR("matmul", in, 2, sq_r, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "matmul", "output");
    EXEC_ERR("copy", &sq, 1, sq, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "copy", "output");
    /* In-place ops still need the same view, not an overlapping one. */
    EXPECT_OK(ndrt_tensor_transpose(sq, 0, 1, &sq_t));
    EXEC_ERR("add", in, 2, sq_t, NULL, 0, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "add", "output");
    EXPECT_OK(ndrt_tensor_read(sq, back, sizeof back));
    CHECK(back[0] == 1 && back[1] == 2 && back[2] == 3 && back[3] == 4); /* nothing ran */
    REL(sq_t);
    REL(sq_r);
    REL(sq);
  }
  /* A slice of the input as the output of a non-inplace op. */
  EXPECT_OK(ndrt_tensor_slice(a, 0, 0, 1, 1, &sl));
  EXEC_ERR("sum", &a, 1, sl, ((const int64_t[]){1, 0, 1}), 3, NULL, 0, NDRT_ERR_INVALID_ARGUMENT, "sum", "output");
  REL(sl);

  /* The failed calls above allocated nothing that stayed. */
  REL(a);
  REL(b4);
  REL(d);
  REL(m45);
  REL(out32);
  REL(out23d);
  REL(bc);
  REL(row);
  REL(h16);
  REL(hbool);
  REL(i32);
  CHECK(live() == base_live);
  CHECK(stats(CPU0).in_use == m0.in_use);
}

/* ------------------------------------------------------------------------------------------------
 * 9. Device mismatch (two virtual cpu devices)
 * ---------------------------------------------------------------------------------------------- */
static void test_device_mismatch(void) {
  const int64_t s3[1] = {3};
  int64_t base_live = live();
  ndrt_memory_stats m1 = stats(CPU1);
  ndrt_handle a0, a1, moved = 0, y = 0, in[2], out1 = 0;
  ndrt_device d = -2;
  EXPECT_OK(ndrt_thread_attach(CPU0));
  a0 = MK_ON(CPU0, NDRT_F32, 1, s3, ((const float[]){1, 2, 3}));
  a1 = MK_ON(CPU1, NDRT_F32, 1, s3, ((const float[]){10, 20, 30}));
  CHECK(device_of(a1) == CPU1);
  CHECK(stats(CPU1).in_use > m1.in_use); /* cpu:1 has its own pool */
  in[0] = a0;
  in[1] = a1;
  EXEC_ERR("add", in, 2, 0, NULL, 0, NULL, 0, NDRT_ERR_DEVICE_MISMATCH, "add", "cpu:1");
  EXEC_ERR("neg", &a1, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_DEVICE_MISMATCH, "neg", "cpu:1");
  in[1] = a0;
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, s3, CPU1, &out1));
  EXEC_ERR("add", in, 2, out1, NULL, 0, NULL, 0, NDRT_ERR_DEVICE_MISMATCH, "add", "cpu:1");
  /* Moving is explicit. */
  EXPECT_OK(ndrt_tensor_to_device(a1, CPU0, &moved));
  in[1] = moved;
  EXPECT_OK(run("add", in, 2, &y, NULL, 0, NULL, 0));
  VALUES(y, 0, 11, 22, 33);
  CHECK(device_of(y) == CPU0);
  REL(y);
  /* On a thread attached to cpu:1 the cpu:1 tensors work and cpu:0 ones do not. */
  EXPECT_OK(ndrt_thread_attach(CPU1));
  EXPECT_OK(ndrt_thread_device(&d));
  CHECK(d == CPU1);
  in[0] = a1;
  in[1] = a1;
  y = 0;
  EXPECT_OK(run("add", in, 2, &y, NULL, 0, NULL, 0));
  CHECK(device_of(y) == CPU1);
  VALUES(y, 0, 20, 40, 60);
  REL(y);
  EXPECT_OK(run("add", in, 2, &out1, NULL, 0, NULL, 0));
  VALUES(out1, 0, 20, 40, 60);
  y = 0;
  EXPECT_OK(run("fill", NULL, 0, &y, NULL, 0, NULL, 0)); /* no inputs: allocated on the current device */
  CHECK(device_of(y) == CPU1);
  REL(y);
  {
    ndrt_handle cur = 0;
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, s3, NDRT_DEVICE_CURRENT, &cur));
    CHECK(device_of(cur) == CPU1);
    REL(cur);
  }
  EXEC_ERR("neg", &a0, 1, 0, NULL, 0, NULL, 0, NDRT_ERR_DEVICE_MISMATCH, "neg", "cpu:0");
  EXPECT_OK(ndrt_thread_attach(CPU0));
  REL(a0);
  REL(a1);
  REL(moved);
  REL(out1);
  CHECK(live() == base_live);
  CHECK(stats(CPU1).in_use == m1.in_use);
}

/* ------------------------------------------------------------------------------------------------
 * 10. Memory: stats, cache, caps, trim, peak, pressure hook, out of memory, size overflow
 * ---------------------------------------------------------------------------------------------- */
static struct {
  int calls;
  int64_t last;
  void* user;
  ndrt_handle victim; /* released from inside the hook when set */
  ndrt_status victim_status;
} g_pressure;

static void on_pressure(int64_t in_use, void* user) {
  ++g_pressure.calls;
  g_pressure.last = in_use;
  g_pressure.user = user;
  if (g_pressure.victim) {
    g_pressure.victim_status = ndrt_tensor_release(g_pressure.victim);
    g_pressure.victim = 0;
  }
}

static void test_memory(void) {
  const int64_t n1000[1] = {1000}, n1010[1] = {1010};
  int64_t base_live = live();
  ndrt_memory_stats s0, s1, s2, s3;
  ndrt_handle h = 0, h2 = 0;
  char buf[64];

  EXPECT_OK(ndrt_memory_trim(CPU0));
  s0 = stats(CPU0);
  CHECK(s0.cached == 0);
  CHECK(s0.in_use >= 0 && s0.peak >= s0.in_use && s0.hits >= 0 && s0.misses >= 0 && s0.oom_count >= 0 &&
        s0.wrapped >= 0);
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, n1000, CPU0, &h));
  s1 = stats(CPU0);
  CHECK(s1.in_use >= s0.in_use + 4000);
  CHECK(s1.in_use <= s0.in_use + 5000); /* size classes waste at most 25% */
  CHECK(s1.peak >= s1.in_use);
  CHECK(s1.misses == s0.misses + 1); /* the cache was empty */
  REL(h);
  s2 = stats(CPU0);
  CHECK(s2.in_use == s0.in_use);
  CHECK(s2.cached == s1.in_use - s0.in_use); /* kept for reuse */
  /* A slightly different size of the same size class is served from the cache. */
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, n1010, CPU0, &h));
  s3 = stats(CPU0);
  CHECK(s3.hits == s2.hits + 1);
  CHECK(s3.cached == 0);
  REL(h);
  /* trim gives the cache back; reset_peak lowers the peak to what is in use. */
  EXPECT_OK(ndrt_memory_trim(CPU0));
  CHECK(stats(CPU0).cached == 0);
  EXPECT_OK(ndrt_memory_reset_peak(CPU0));
  s1 = stats(CPU0);
  CHECK(s1.peak == s1.in_use);
  EXPECT_OK(ndrt_memory_stats_get(NDRT_DEVICE_CURRENT, &s2));
  CHECK(s2.in_use == s1.in_use);
  EXPECT_OK(ndrt_memory_trim(NDRT_DEVICE_CURRENT));
  EXPECT_OK(ndrt_memory_reset_peak(CPU1));
  /* Caps: nothing cached with max_cached_bytes 0; chunks over max_chunk_bytes are not cached. */
  EXPECT_OK(ndrt_config_get("memory.host.max_cached_bytes", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "1073741824") == 0);
  EXPECT_OK(ndrt_config_set("memory.host.max_cached_bytes", "0"));
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, n1000, CPU0, &h));
  REL(h);
  CHECK(stats(CPU0).cached == 0);
  EXPECT_OK(ndrt_config_set("memory.host.max_cached_bytes", "1073741824"));
  EXPECT_OK(ndrt_config_set("memory.host.max_chunk_bytes", "1024"));
  EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, n1000, CPU0, &h));
  REL(h);
  CHECK(stats(CPU0).cached == 0);
  EXPECT_OK(ndrt_config_set("memory.host.max_chunk_bytes", "268435456"));
  /* Errors. */
  EXPECT_ERR(ndrt_memory_stats_get(CPU0, NULL), NDRT_ERR_INVALID_ARGUMENT, "memory_stats_get", NULL);
  EXPECT_ERR(ndrt_memory_stats_get(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 9), &s1), NDRT_ERR_INVALID_ARGUMENT, "cpu:9",
             NULL);
  EXPECT_ERR(ndrt_memory_trim(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 9)), NDRT_ERR_INVALID_ARGUMENT, "cpu:9", NULL);
  EXPECT_ERR(ndrt_memory_reset_peak(NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 9)), NDRT_ERR_INVALID_ARGUMENT, "cpu:9", NULL);

  /* Out of memory: 2^50 f32 elements (4 PiB) cannot be had. The message says how much is in use
   * and cached; the failure is counted; nothing leaks. */
  {
    const int64_t huge[3] = {(int64_t)1 << 20, (int64_t)1 << 20, (int64_t)1 << 10};
    int64_t before = live();
    s0 = stats(CPU0);
    h = 0;
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 3, huge, CPU0, &h), NDRT_ERR_OUT_OF_MEMORY, "cpu:0", "cached");
    CHECK(h == 0);
    s1 = stats(CPU0);
    CHECK(s1.oom_count == s0.oom_count + 1);
    CHECK(s1.in_use == s0.in_use);
    EXEC_ERR("fill", NULL, 0, 0, ((const int64_t[]){NDRT_F32, 3, huge[0], huge[1], huge[2]}), 5, NULL, 0,
             NDRT_ERR_OUT_OF_MEMORY, "cpu:0", NULL);
    CHECK(stats(CPU0).oom_count == s0.oom_count + 2);
    EXPECT_ERR(ndrt_tensor_create(NDRT_I8, 1, (const int64_t[]){(int64_t)1 << 58}, CPU1, &h), NDRT_ERR_OUT_OF_MEMORY,
               "cpu:1", NULL);
    CHECK(live() == before);
  }
  /* Element counts that overflow: INVALID_ARGUMENT naming the shape. */
  {
    const int64_t over[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    const int64_t over3[3] = {(int64_t)1 << 32, (int64_t)1 << 31, 2};
    h = 0;
    EXPECT_ERR(ndrt_tensor_create(NDRT_F32, 2, over, CPU0, &h), NDRT_ERR_INVALID_ARGUMENT, "tensor_create",
               "1099511627776");
    EXPECT_ERR(ndrt_tensor_create(NDRT_I8, 3, over3, CPU0, &h), NDRT_ERR_INVALID_ARGUMENT, "tensor_create",
               "4294967296");
    EXPECT_ERR(ndrt_tensor_from_host(NDRT_F32, 2, over, &h, 4, CPU0, &h), NDRT_ERR_INVALID_ARGUMENT,
               "tensor_from_host", "1099511627776");
    CHECK(h == 0);
  }
  /* (Byte counts that overflow although the element count fits: see test_isolated.) */

  /* Memory-pressure hook: fires once when an allocation takes host in_use past the threshold. */
  {
    int64_t total = stats(CPU0).in_use + stats(CPU1).in_use;
    int64_t threshold = total + ((int64_t)1 << 20);
    memset(&g_pressure, 0, sizeof g_pressure);
    EXPECT_OK(ndrt_memory_set_pressure_callback(threshold, on_pressure, &g_pressure));
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){1000}, CPU0, &h));
    CHECK(g_pressure.calls == 0);
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){(int64_t)1 << 19}, CPU1, &h2)); /* 2 MiB */
    CHECK(g_pressure.calls == 1);
    CHECK(g_pressure.last >= threshold);
    CHECK(g_pressure.user == &g_pressure);
    REL(h);
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){1000}, CPU0, &h));
    CHECK(g_pressure.calls == 1); /* not grown by another threshold */
    REL(h);
    REL(h2);
    EXPECT_OK(ndrt_memory_set_pressure_callback(0, NULL, NULL)); /* removed */
    EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){(int64_t)1 << 19}, CPU1, &h2));
    CHECK(g_pressure.calls == 1);
    REL(h2);
    /* The hook runs outside every ndrt lock: it may release tensors (as a JVM's collector would). */
    {
      ndrt_handle victim = 0;
      int64_t in_use_before;
      EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){(int64_t)1 << 18}, CPU0, &victim)); /* 1 MiB */
      total = stats(CPU0).in_use + stats(CPU1).in_use;
      memset(&g_pressure, 0, sizeof g_pressure);
      g_pressure.victim = victim;
      EXPECT_OK(ndrt_memory_set_pressure_callback(total + 1024, on_pressure, &g_pressure));
      in_use_before = stats(CPU0).in_use;
      EXPECT_OK(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){1000}, CPU0, &h)); /* crosses it */
      CHECK(g_pressure.calls == 1);
      CHECK(g_pressure.victim_status == NDRT_OK);
      CHECK(stats(CPU0).in_use < in_use_before); /* the victim's megabyte went back */
      EXPECT_OK(ndrt_memory_set_pressure_callback(0, NULL, NULL));
      REL(h);
    }
    EXPECT_ERR(ndrt_memory_set_pressure_callback(0, on_pressure, NULL), NDRT_ERR_INVALID_ARGUMENT, "threshold", NULL);
    EXPECT_ERR(ndrt_memory_set_pressure_callback(-5, on_pressure, NULL), NDRT_ERR_INVALID_ARGUMENT, "-5", NULL);
  }
  CHECK(live() == base_live);
}

/* ------------------------------------------------------------------------------------------------
 * 11. Profiler
 * ---------------------------------------------------------------------------------------------- */
static ndrt_status fetch_summary(void* ctx, char* buf, size_t capacity, size_t* needed) {
  (void)ctx;
  return ndrt_profiler_summary(buf, capacity, needed);
}

/* A fresh temporary file (in $TMPDIR, else /tmp); its path is written to `path`. */
static int temp_file(char* path, size_t capacity, const char* tag) {
  const char* dir = getenv("TMPDIR");
  int fd;
  snprintf(path, capacity, "%s/ndrt_c_harness_%s_XXXXXX", dir && dir[0] ? dir : "/tmp", tag);
  fd = mkstemp(path);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

static char* slurp(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)n + 1);
  if (fread(text, 1, (size_t)n, f) != (size_t)n) n = 0;
  text[n] = '\0';
  fclose(f);
  return text;
}

static void test_profiler(void) {
  const int64_t s23[2] = {2, 3};
  int64_t count = -1, after = -1;
  ndrt_handle a = MK(NDRT_F32, 2, s23, ((const float[]){1, 2, 3, 4, 5, 6})), y = 0, in[2];
  char path[512];
  char buf[8];
  int i;
  char* text;

  EXPECT_OK(ndrt_profiler_clear());
  EXPECT_OK(ndrt_profiler_count(&count));
  CHECK(count == 0);
  EXPECT_OK(ndrt_profiler_enable(1));
  EXPECT_OK(ndrt_config_get("profiler.enabled", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "1") == 0);
  in[0] = a;
  in[1] = a;
  for (i = 0; i < 3; ++i) {
    y = 0;
    EXPECT_OK(run("add", in, 2, &y, NULL, 0, NULL, 0));
    REL(y);
  }
  y = 0;
  EXPECT_OK(run("matmul", in, 2, &y, ((const int64_t[]){0, 1}), 2, NULL, 0));
  REL(y);
  EXPECT_OK(ndrt_profiler_count(&count));
  CHECK(count >= 4);
  EXPECT_OK(ndrt_profiler_enable(0));
  y = 0;
  EXPECT_OK(run("add", in, 2, &y, NULL, 0, NULL, 0));
  REL(y);
  EXPECT_OK(ndrt_profiler_count(&after));
  CHECK(after == count); /* off: nothing recorded */

  if (CHECK(temp_file(path, sizeof path, "trace"))) {
    EXPECT_OK(ndrt_profiler_write_trace(path));
    text = slurp(path);
    if (CHECK(text != NULL)) {
      if (!CHECK(strncmp(text, "{\"traceEvents\"", 14) == 0)) fprintf(stderr, "    trace begins: %.60s\n", text);
      CHECK(strstr(text, "\"add\"") != NULL);
      CHECK(strstr(text, "\"matmul\"") != NULL);
      CHECK(text[0] && strchr(text, '}') != NULL);
      free(text);
    }
    unlink(path);
  }
  text = text_contract_(fetch_summary, NULL, "ndrt_profiler_summary", __FILE__, __LINE__);
  if (CHECK(text != NULL)) {
    CHECK(strstr(text, "add") != NULL);
    CHECK(strstr(text, "matmul") != NULL);
    CHECK(strstr(text, "cpu") != NULL);
    free(text);
  }
  /* The configuration key drives the same switch. */
  EXPECT_OK(ndrt_config_set("profiler.enabled", "1"));
  y = 0;
  EXPECT_OK(run("neg", &a, 1, &y, NULL, 0, NULL, 0));
  REL(y);
  EXPECT_OK(ndrt_config_set("profiler.enabled", "0"));
  EXPECT_OK(ndrt_profiler_count(&after));
  CHECK(after == count + 1);
  EXPECT_OK(ndrt_profiler_clear());
  EXPECT_OK(ndrt_profiler_count(&after));
  CHECK(after == 0);
  /* Errors. */
  EXPECT_ERR(ndrt_profiler_enable(2), NDRT_ERR_INVALID_ARGUMENT, "profiler_enable", "2");
  EXPECT_ERR(ndrt_profiler_count(NULL), NDRT_ERR_INVALID_ARGUMENT, "profiler_count", NULL);
  EXPECT_ERR(ndrt_profiler_write_trace(NULL), NDRT_ERR_INVALID_ARGUMENT, "profiler_write_trace", NULL);
  EXPECT_ERR(ndrt_profiler_write_trace("/nonexistent-ndrt-dir/trace.json"), NDRT_ERR_INVALID_ARGUMENT,
             "/nonexistent-ndrt-dir/trace.json", NULL);
  REL(a);
}

/* ------------------------------------------------------------------------------------------------
 * 12. Configuration
 * ---------------------------------------------------------------------------------------------- */
static ndrt_status fetch_config(void* ctx, char* buf, size_t capacity, size_t* needed) {
  return ndrt_config_get((const char*)ctx, buf, capacity, needed);
}

static void test_config(void) {
  static const char* const keys[] = {"log.level",
                                     "cpu.threads",
                                     "cpu.virtual_devices",
                                     "memory.host.max_cached_bytes",
                                     "memory.host.max_chunk_bytes",
                                     "profiler.enabled",
                                     "backend.priority.cpu",
                                     "backend.priority.gpu"};
  char orig[64], buf[64];
  size_t k, needed = 0;
  char* text;
  for (k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
    buf[0] = '\0';
    EXPECT_OK(ndrt_config_get(keys[k], buf, sizeof buf, &needed));
    if (!CHECK(buf[0] != '\0' && needed == strlen(buf) + 1)) fprintf(stderr, "    key %s\n", keys[k]);
  }
  text = text_contract_(fetch_config, (void*)"memory.host.max_cached_bytes", "ndrt_config_get", __FILE__, __LINE__);
  if (CHECK(text != NULL)) {
    CHECK(strcmp(text, "1073741824") == 0);
    free(text);
  }
  /* Round trips. */
  EXPECT_OK(ndrt_config_get("cpu.threads", orig, sizeof orig, NULL));
  CHECK(atoi(orig) >= 1);
  EXPECT_OK(ndrt_config_set("cpu.threads", "2"));
  EXPECT_OK(ndrt_config_get("cpu.threads", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "2") == 0);
  EXPECT_OK(ndrt_config_set("log.level", "debug"));
  EXPECT_OK(ndrt_config_get("log.level", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "debug") == 0);
  EXPECT_OK(ndrt_config_set("log.level", "warn"));
  EXPECT_OK(ndrt_config_set("backend.priority.gpu", "-7"));
  EXPECT_OK(ndrt_config_get("backend.priority.gpu", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "-7") == 0);
  EXPECT_OK(ndrt_config_set("backend.priority.gpu", "100"));
  /* Unknown keys, bad values, NULLs. A failed set changes nothing. */
  EXPECT_ERR(ndrt_config_set("no.such.key", "1"), NDRT_ERR_INVALID_ARGUMENT, "no.such.key", NULL);
  EXPECT_ERR(ndrt_config_get("no.such.key", buf, sizeof buf, &needed), NDRT_ERR_INVALID_ARGUMENT, "no.such.key",
             NULL);
  EXPECT_ERR(ndrt_config_set(NULL, "1"), NDRT_ERR_INVALID_ARGUMENT, "key", NULL);
  EXPECT_ERR(ndrt_config_get(NULL, buf, sizeof buf, &needed), NDRT_ERR_INVALID_ARGUMENT, "key", NULL);
  EXPECT_ERR(ndrt_config_set("cpu.threads", NULL), NDRT_ERR_INVALID_ARGUMENT, "cpu.threads", NULL);
  EXPECT_ERR(ndrt_config_set("log.level", "loud"), NDRT_ERR_INVALID_ARGUMENT, "log.level", "loud");
  EXPECT_ERR(ndrt_config_set("cpu.threads", "0"), NDRT_ERR_INVALID_ARGUMENT, "cpu.threads", "0");
  EXPECT_ERR(ndrt_config_set("cpu.threads", "abc"), NDRT_ERR_INVALID_ARGUMENT, "cpu.threads", "abc");
  EXPECT_ERR(ndrt_config_set("cpu.threads", "4x"), NDRT_ERR_INVALID_ARGUMENT, "cpu.threads", "4x");
  EXPECT_ERR(ndrt_config_set("cpu.threads", ""), NDRT_ERR_INVALID_ARGUMENT, "cpu.threads", NULL);
  EXPECT_ERR(ndrt_config_set("cpu.threads", "99999999999999999999"), NDRT_ERR_INVALID_ARGUMENT, "cpu.threads", NULL);
  EXPECT_ERR(ndrt_config_set("memory.host.max_cached_bytes", "-1"), NDRT_ERR_INVALID_ARGUMENT,
             "memory.host.max_cached_bytes", "-1");
  EXPECT_ERR(ndrt_config_set("profiler.enabled", "2"), NDRT_ERR_INVALID_ARGUMENT, "profiler.enabled", "2");
  EXPECT_ERR(ndrt_config_set("cpu.virtual_devices", "0"), NDRT_ERR_INVALID_ARGUMENT, "cpu.virtual_devices", NULL);
  EXPECT_ERR(ndrt_config_set("backend.priority.cpu", "high"), NDRT_ERR_INVALID_ARGUMENT, "backend.priority.cpu",
             NULL);
  EXPECT_OK(ndrt_config_get("cpu.threads", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "2") == 0);
  EXPECT_OK(ndrt_config_get("log.level", buf, sizeof buf, NULL));
  CHECK(strcmp(buf, "warn") == 0);
  EXPECT_OK(ndrt_config_set("cpu.threads", orig));
}

/* ------------------------------------------------------------------------------------------------
 * 13. The versioned function table: every entry set, every entry callable
 * ---------------------------------------------------------------------------------------------- */
#define NDRT_API_V1_ENTRIES(X)                                                                        \
  X(abi_version) X(version_string) X(last_error) X(status_name) X(tensor_create) X(tensor_from_host)  \
  X(tensor_wrap) X(tensor_read) X(tensor_write) X(tensor_retain) X(tensor_release) X(tensor_dtype)    \
  X(tensor_rank) X(tensor_shape) X(tensor_strides) X(tensor_offset) X(tensor_numel) X(tensor_device)  \
  X(tensor_is_contiguous) X(tensor_data_ptr) X(tensor_reshape) X(tensor_permute) X(tensor_transpose)  \
  X(tensor_slice) X(tensor_expand) X(tensor_contiguous) X(tensor_cast) X(tensor_to_device)            \
  X(live_handles) X(memory_stats_get) X(memory_trim) X(memory_reset_peak)                              \
  X(memory_set_pressure_callback) X(device_count) X(device_name) X(default_device_type)               \
  X(thread_device) X(thread_attach) X(synchronize) X(op_count) X(op_find) X(op_describe) X(exec)      \
  X(config_set) X(config_get) X(set_log_callback) X(profiler_enable) X(profiler_clear)                 \
  X(profiler_count) X(profiler_write_trace) X(profiler_summary)

static void test_api_table(void) {
  static const ndrt_api sentinel; /* a non-NULL pointer that must be overwritten with NULL */
  const ndrt_api* api = NULL;
  const ndrt_api* other = &sentinel;
  int entries = 0;
  int64_t base_live = live();
  EXPECT_OK(ndrt_get_api(NDRT_API_VERSION, &api));
  if (!CHECK(api != NULL)) return;
  CHECK(api->version == NDRT_API_VERSION);
#define NDRT_CHECK_ENTRY(name) \
  ++entries;                   \
  CHECK(api->name != NULL);
  NDRT_API_V1_ENTRIES(NDRT_CHECK_ENTRY)
#undef NDRT_CHECK_ENTRY
  CHECK(entries == 51);

  /* Unsupported versions: NOT_CONFIGURED, *out = NULL, a message naming what is offered. */
  EXPECT_ERR(ndrt_get_api(NDRT_API_VERSION + 1, &other), NDRT_ERR_NOT_CONFIGURED, "version", num(NDRT_API_VERSION + 1));
  CHECK(other == NULL);
  other = &sentinel;
  EXPECT_ERR(ndrt_get_api(0, &other), NDRT_ERR_NOT_CONFIGURED, "version", NULL);
  CHECK(other == NULL);
  other = &sentinel;
  EXPECT_ERR(ndrt_get_api(0xffffffffu, &other), NDRT_ERR_NOT_CONFIGURED, "version", NULL);
  CHECK(other == NULL);
  EXPECT_ERR(ndrt_get_api(1, NULL), NDRT_ERR_INVALID_ARGUMENT, "get_api", NULL);

  /* Every entry, called through the table. */
  {
    const int64_t s23[2] = {2, 3};
    const float x[6] = {1, 2, 3, 4, 5, 6};
    float back[6], wrapped[6] = {0, 0, 0, 0, 0, 0};
    int64_t dims[NDRT_MAX_RANK], n = -1, off = -1;
    int32_t i32 = -1, add = -1;
    ndrt_dtype dt = 0;
    ndrt_device dev = -2;
    ndrt_handle a = 0, b = 0, w = 0, r = 0, v = 0, y = 0, in[2];
    void* p = NULL;
    ndrt_memory_stats ms;
    char name[32], json[4096];
    size_t needed = 0;
    char path[512];

    CHECK(api->abi_version() == NDRT_ABI_VERSION);
    CHECK(strcmp(api->version_string(), ndrt_version_string()) == 0);
    CHECK(strcmp(api->status_name(NDRT_ERR_DEVICE_MISMATCH), "NDRT_ERR_DEVICE_MISMATCH") == 0);
    EXPECT_OK(api->thread_attach(CPU0));
    EXPECT_OK(api->thread_device(&dev));
    CHECK(dev == CPU0);
    EXPECT_OK(api->synchronize(CPU0));
    EXPECT_OK(api->device_count(NDRT_DEVICE_TYPE_CPU, &i32));
    CHECK(i32 == 2);
    EXPECT_OK(api->device_name(CPU1, name, sizeof name));
    CHECK(strcmp(name, "cpu:1") == 0);
    EXPECT_OK(api->default_device_type(&i32));
    EXPECT_OK(api->tensor_from_host(NDRT_F32, 2, s23, x, sizeof x, CPU0, &a));
    EXPECT_OK(api->tensor_create(NDRT_F32, 2, s23, CPU0, &b));
    EXPECT_OK(api->tensor_write(b, x, sizeof x));
    EXPECT_OK(api->tensor_wrap(NDRT_F32, 2, s23, NULL, wrapped, sizeof wrapped, NULL, NULL, &w));
    EXPECT_OK(api->op_count(&i32));
    CHECK(i32 >= 15);
    EXPECT_OK(api->op_find("add", &add));
    EXPECT_OK(api->op_describe(add, json, sizeof json, &needed));
    CHECK(strstr(json, "\"add\"") != NULL);
    in[0] = a;
    in[1] = b;
    EXPECT_OK(api->exec(add, in, 2, &w, 1, NULL, 0, NULL, 0));
    CHECK(wrapped[0] == 2 && wrapped[5] == 12);
    EXPECT_OK(api->exec(add, in, 2, &y, 1, NULL, 0, NULL, 0));
    EXPECT_OK(api->tensor_read(y, back, sizeof back));
    CHECK(back[0] == 2 && back[1] == 4 && back[2] == 6 && back[3] == 8 && back[4] == 10 && back[5] == 12);
    EXPECT_OK(api->tensor_retain(y, &r));
    EXPECT_OK(api->tensor_dtype(r, &dt));
    CHECK(dt == NDRT_F32);
    EXPECT_OK(api->tensor_rank(r, &i32));
    CHECK(i32 == 2);
    EXPECT_OK(api->tensor_shape(r, dims, NDRT_MAX_RANK));
    CHECK(dims[0] == 2 && dims[1] == 3);
    EXPECT_OK(api->tensor_strides(r, dims, NDRT_MAX_RANK));
    CHECK(dims[0] == 3 && dims[1] == 1);
    EXPECT_OK(api->tensor_offset(r, &off));
    CHECK(off == 0);
    EXPECT_OK(api->tensor_numel(r, &n));
    CHECK(n == 6);
    EXPECT_OK(api->tensor_device(r, &dev));
    CHECK(dev == CPU0);
    EXPECT_OK(api->tensor_is_contiguous(r, &i32));
    CHECK(i32 == 1);
    EXPECT_OK(api->tensor_data_ptr(w, &p));
    CHECK(p == (void*)wrapped);
    EXPECT_OK(api->tensor_reshape(r, 1, (const int64_t[]){6}, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_permute(r, 2, (const int32_t[]){1, 0}, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_transpose(r, 0, 1, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_slice(r, 1, 0, 2, 1, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_expand(r, 3, (const int64_t[]){4, 2, 3}, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_contiguous(r, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_cast(r, NDRT_F64, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->tensor_to_device(r, CPU1, &v));
    EXPECT_OK(api->tensor_release(v));
    EXPECT_OK(api->live_handles(&n));
    CHECK(n == base_live + 5);
    EXPECT_OK(api->memory_stats_get(CPU0, &ms));
    CHECK(ms.in_use > 0 && ms.wrapped >= (int64_t)sizeof wrapped);
    EXPECT_OK(api->memory_trim(CPU1));
    EXPECT_OK(api->memory_reset_peak(CPU1));
    EXPECT_OK(api->memory_set_pressure_callback(0, NULL, NULL));
    EXPECT_OK(api->config_set("log.level", "warn"));
    EXPECT_OK(api->config_get("log.level", name, sizeof name, &needed));
    CHECK(strcmp(name, "warn") == 0);
    EXPECT_OK(api->set_log_callback(NULL, NULL));
    EXPECT_OK(api->profiler_clear());
    EXPECT_OK(api->profiler_enable(1));
    EXPECT_OK(api->exec(add, in, 2, &y, 1, NULL, 0, NULL, 0)); /* into the given output y */
    EXPECT_OK(api->profiler_enable(0));
    EXPECT_OK(api->profiler_count(&n));
    CHECK(n == 1);
    EXPECT_OK(api->profiler_summary(NULL, 0, &needed));
    CHECK(needed > 1);
    if (CHECK(temp_file(path, sizeof path, "api_trace"))) {
      EXPECT_OK(api->profiler_write_trace(path));
      unlink(path);
    }
    EXPECT_OK(api->profiler_clear());
    /* Errors through the table land in the same thread-local message. */
    CHECK(api->tensor_release(0) == NDRT_ERR_INVALID_HANDLE);
    CHECK(api->last_error() != NULL && strstr(api->last_error(), "handle 0") != NULL);
    CHECK(strcmp(api->last_error(), ndrt_last_error()) == 0);
    EXPECT_OK(api->tensor_release(r));
    EXPECT_OK(api->tensor_release(y));
    EXPECT_OK(api->tensor_release(w));
    EXPECT_OK(api->tensor_release(b));
    EXPECT_OK(api->tensor_release(a));
    CHECK(live() == base_live);
  }
}

/* ------------------------------------------------------------------------------------------------
 * 14. Threads: thread-local errors, round-robin device assignment, concurrent use
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  ndrt_status st_device, st_error;
  ndrt_device device;
  char message[256];
} fresh_thread;

static void* fresh_thread_main(void* arg) {
  fresh_thread* r = (fresh_thread*)arg;
  r->st_device = ndrt_thread_device(&r->device);
  r->st_error = ndrt_tensor_release(0);
  snprintf(r->message, sizeof r->message, "%s", ndrt_last_error());
  return NULL;
}

typedef struct {
  int index, iterations, failures;
  ndrt_handle shared; /* this worker's own handle to a wrapped cpu:0 buffer; released at the end */
} worker;

static void* worker_main(void* arg) {
  worker* w = (worker*)arg;
  const int64_t s4[1] = {4};
  const ndrt_device dev = NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, w->index % 2);
  int32_t add = -1, sum = -1;
  int i;
  if (ndrt_thread_attach(dev) != NDRT_OK || ndrt_op_find("add", &add) != NDRT_OK ||
      ndrt_op_find("sum", &sum) != NDRT_OK) {
    ++w->failures;
    return NULL;
  }
  for (i = 0; i < w->iterations; ++i) {
    const float v[4] = {(float)i, (float)w->index, 1, 2};
    float back[4] = {0, 0, 0, 0};
    float total = 0;
    ndrt_handle a = 0, in[2], y = 0, s = 0, moved = 0;
    if (ndrt_tensor_from_host(NDRT_F32, 1, s4, v, sizeof v, NDRT_DEVICE_CURRENT, &a) != NDRT_OK) {
      ++w->failures;
      continue;
    }
    in[0] = a;
    in[1] = a;
    if (ndrt_exec(add, in, 2, &y, 1, NULL, 0, NULL, 0) != NDRT_OK || ndrt_tensor_read(y, back, sizeof back) != NDRT_OK ||
        back[0] != 2.0f * (float)i || back[1] != 2.0f * (float)w->index || back[3] != 4)
      ++w->failures;
    /* The shared tensor lives on cpu:0: read it anywhere, compute with it after an explicit move. */
    if (ndrt_tensor_to_device(w->shared, dev, &moved) != NDRT_OK ||
        ndrt_exec(sum, &moved, 1, &s, 1, NULL, 0, NULL, 0) != NDRT_OK || ndrt_tensor_read(s, &total, sizeof total) != NDRT_OK ||
        total != 10.0f)
      ++w->failures;
    if (ndrt_tensor_release(a) != NDRT_OK) ++w->failures;
    if (ndrt_tensor_release(y) != NDRT_OK) ++w->failures;
    if (ndrt_tensor_release(moved) != NDRT_OK) ++w->failures;
    if (ndrt_tensor_release(s) != NDRT_OK) ++w->failures;
  }
  if (ndrt_tensor_release(w->shared) != NDRT_OK) ++w->failures;
  return NULL;
}

static void test_threads(void) {
  fresh_thread r1, r2;
  pthread_t t;
  int32_t type = -1, count = 0;
  int64_t base_live = live();
  memset(&r1, 0, sizeof r1);
  memset(&r2, 0, sizeof r2);
  /* A distinctive error on this thread... */
  EXPECT_ERR(ndrt_op_find("main_thread_marker", &count), NDRT_ERR_UNKNOWN_OP, "main_thread_marker", NULL);
  /* ...is not touched by errors on other threads. Two fresh threads, one after the other. */
  if (CHECK(pthread_create(&t, NULL, fresh_thread_main, &r1) == 0)) pthread_join(t, NULL);
  if (CHECK(pthread_create(&t, NULL, fresh_thread_main, &r2) == 0)) pthread_join(t, NULL);
  CHECK(strstr(ndrt_last_error(), "main_thread_marker") != NULL);
  CHECK(r1.st_error == NDRT_ERR_INVALID_HANDLE && strstr(r1.message, "handle 0") != NULL);
  CHECK(strstr(r1.message, "main_thread_marker") == NULL);
  /* Fresh threads get devices of the default type, round-robin. */
  EXPECT_OK(ndrt_default_device_type(&type));
  EXPECT_OK(ndrt_device_count(type, &count));
  CHECK(r1.st_device == NDRT_OK && r2.st_device == NDRT_OK);
  CHECK(NDRT_DEVICE_TYPE_OF(r1.device) == type && NDRT_DEVICE_TYPE_OF(r2.device) == type);
  if (count > 0 &&
      !CHECK(NDRT_DEVICE_INDEX_OF(r2.device) == (NDRT_DEVICE_INDEX_OF(r1.device) + 1) % count))
    fprintf(stderr, "    consecutive fresh threads got device indices %d and %d of %d\n",
            (int)NDRT_DEVICE_INDEX_OF(r1.device), (int)NDRT_DEVICE_INDEX_OF(r2.device), (int)count);

  /* Four threads at once on both cpu devices, each with its own handle to one wrapped buffer; this
   * thread lets go of the original while they run, and whichever worker ends last runs the hook. */
  {
    enum { kThreads = 4 };
    pthread_t ts[kThreads];
    worker ws[kThreads];
    hook_count hc;
    float* buf = malloc(4 * sizeof(float));
    ndrt_handle shared;
    int k;
    memset(&hc, 0, sizeof hc);
    buf[0] = 1;
    buf[1] = 2;
    buf[2] = 3;
    buf[3] = 4;
    EXPECT_OK(ndrt_tensor_wrap(NDRT_F32, 1, (const int64_t[]){4}, NULL, buf, 4 * sizeof(float), count_release, &hc,
                               &shared));
    for (k = 0; k < kThreads; ++k) {
      memset(&ws[k], 0, sizeof ws[k]);
      ws[k].index = k;
      ws[k].iterations = 200;
      EXPECT_OK(ndrt_tensor_retain(shared, &ws[k].shared));
    }
    for (k = 0; k < kThreads; ++k) CHECK(pthread_create(&ts[k], NULL, worker_main, &ws[k]) == 0);
    REL(shared);
    for (k = 0; k < kThreads; ++k) {
      pthread_join(ts[k], NULL);
      if (!CHECK(ws[k].failures == 0)) fprintf(stderr, "    worker %d: %d failures\n", k, ws[k].failures);
    }
    CHECK(hc.calls == 1);
    free(buf);
  }
  CHECK(live() == base_live);
}

/* ------------------------------------------------------------------------------------------------
 * 15. Size arithmetic at the ends of int64. These calls overflow inside a runtime that gets them
 *     wrong, which may crash it or stop it under UBSan's halt_on_error, so each runs in a child
 *     process: a crash or a halt is one failure, not the end of the harness.
 * ---------------------------------------------------------------------------------------------- */
/* Returns 1 when the expectation held; otherwise 0 with an explanation in `why`. */
typedef int (*isolated_fn)(char* why, size_t capacity);

static int expect_in_child(ndrt_status got, ndrt_status want, const char* needle, char* why, size_t capacity) {
  const char* m = ndrt_last_error();
  if (got == want && (want == NDRT_OK || (m && m[0] && (!needle || strstr(m, needle))))) return 1;
  if (got == NDRT_OK)
    snprintf(why, capacity, "returned NDRT_OK, expected %s", ndrt_status_name(want));
  else
    snprintf(why, capacity, "returned %s, expected %s (message \"%s\", wanted a mention of \"%s\")",
             ndrt_status_name(got), ndrt_status_name(want), m ? m : "", needle ? needle : "");
  return 0;
}

static void isolated_(isolated_fn fn, const char* what, const char* file, int line) {
  int fds[2];
  pid_t pid;
  int wstatus = 0;
  char ok = 0;
  char why[512];
  ssize_t n;
  if (pipe(fds) != 0) {
    fail_child_(file, line, "%s: pipe() failed", what);
    return;
  }
  fflush(stdout);
  fflush(stderr);
  pid = fork();
  if (pid == 0) {
    char result;
    close(fds[0]);
    alarm(60);
    ndrt_config_set("cpu.threads", "1"); /* the intra-op pool's threads do not exist in the child */
    memset(why, 0, sizeof why);
    result = (char)fn(why, sizeof why);
    if (write(fds[1], &result, 1) != 1 || write(fds[1], why, strlen(why) + 1) < 0) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    fail_child_(file, line, "%s: fork() failed", what);
    return;
  }
  memset(why, 0, sizeof why);
  n = read(fds[0], &ok, 1);
  if (n == 1) {
    size_t used = 0;
    ssize_t k;
    while (used + 1 < sizeof why && (k = read(fds[0], why + used, sizeof why - 1 - used)) > 0) used += (size_t)k;
  }
  close(fds[0]);
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(wstatus)) {
    fail_child_(file, line, "%s: the process died with signal %d%s", what, WTERMSIG(wstatus),
          WTERMSIG(wstatus) == SIGSEGV ? " (SIGSEGV)" : WTERMSIG(wstatus) == SIGABRT ? " (SIGABRT)" : "");
  } else if (n != 1) {
    fail_child_(file, line, "%s: the child exited with status %d before reporting (stopped by a sanitizer?)", what,
          WEXITSTATUS(wstatus));
  } else if (!ok) {
    fail_child_(file, line, "%s: %s", what, why);
  } else {
    ++g_passed;
  }
}
#define ISOLATED(fn) isolated_((fn), #fn, __FILE__, __LINE__)

/* f64 [2^61]: 2^64 bytes fit no size_t; creating it must fail, never hand out a tensor. */
static int create_f64_2pow61(char* why, size_t cap) {
  ndrt_handle h = 0;
  return expect_in_child(ndrt_tensor_create(NDRT_F64, 1, (const int64_t[]){(int64_t)1 << 61}, CPU0, &h),
                         NDRT_ERR_INVALID_ARGUMENT, "tensor_create", why, cap);
}

/* f32 [2^62]: 2^64 bytes again. */
static int create_f32_2pow62(char* why, size_t cap) {
  ndrt_handle h = 0;
  return expect_in_child(ndrt_tensor_create(NDRT_F32, 1, (const int64_t[]){(int64_t)1 << 62}, CPU0, &h),
                         NDRT_ERR_INVALID_ARGUMENT, "tensor_create", why, cap);
}

/* The same size from host data: 2^64 bytes is not "0 bytes". */
static int from_host_f64_2pow61(char* why, size_t cap) {
  ndrt_handle h = 0;
  return expect_in_child(ndrt_tensor_from_host(NDRT_F64, 1, (const int64_t[]){(int64_t)1 << 61}, NULL, 0, CPU0, &h),
                         NDRT_ERR_INVALID_ARGUMENT, "tensor_from_host", why, cap);
}

/* The same size through fill's shape attribute (a runtime-allocated output). */
static int fill_f64_2pow61(char* why, size_t cap) {
  const int64_t ints[3] = {NDRT_F64, 1, (int64_t)1 << 61};
  const double one = 1;
  ndrt_handle y = 0;
  return expect_in_child(ndrt_exec(op_id("fill"), NULL, 0, &y, 1, ints, 3, &one, 1), NDRT_ERR_INVALID_ARGUMENT,
                         "fill", why, cap);
}

/* Wrap: element 1 of f64 [2] with stride 2^61 lies 2^64 bytes past `data`, far outside 8 bytes. */
static int wrap_stride_2pow61(char* why, size_t cap) {
  static double m[1];
  ndrt_handle h = 0;
  return expect_in_child(ndrt_tensor_wrap(NDRT_F64, 1, (const int64_t[]){2}, (const int64_t[]){(int64_t)1 << 61}, m,
                                          sizeof m, NULL, NULL, &h),
                         NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap", why, cap);
}

/* Wrap: f32 [2,2] with strides 2^62, 2^62 reaches element 2^63 of a 48-byte buffer. */
static int wrap_strides_2pow62(char* why, size_t cap) {
  static float m[12];
  ndrt_handle h = 0;
  return expect_in_child(ndrt_tensor_wrap(NDRT_F32, 2, (const int64_t[]){2, 2},
                                          (const int64_t[]){(int64_t)1 << 62, (int64_t)1 << 62}, m, sizeof m, NULL,
                                          NULL, &h),
                         NDRT_ERR_INVALID_ARGUMENT, "tensor_wrap", why, cap);
}

/* Slices with steps at the ends of int64 are one column (Python: a[:, 0:3:2**63-1] and
 * a[:, 2:-100:-2**63]); the length arithmetic must not overflow into a negative or wrong extent. */
static int slice_step(int64_t start, int64_t stop, int64_t step, float want0, float want1, char* why, size_t cap) {
  const float x[6] = {0, 1, 2, 3, 4, 5};
  ndrt_handle h = 0, v = 0;
  int64_t dims[2] = {-1, -1};
  float got[2] = {-1, -1};
  if (!expect_in_child(ndrt_tensor_from_host(NDRT_F32, 2, (const int64_t[]){2, 3}, x, sizeof x, CPU0, &h), NDRT_OK,
                       NULL, why, cap) ||
      !expect_in_child(ndrt_tensor_slice(h, 1, start, stop, step, &v), NDRT_OK, NULL, why, cap) ||
      !expect_in_child(ndrt_tensor_shape(v, dims, 2), NDRT_OK, NULL, why, cap))
    return 0;
  if (dims[0] != 2 || dims[1] != 1) {
    snprintf(why, cap, "slice(start %lld, stop %lld, step %lld) of [2,3] gave shape [%lld,%lld], expected [2,1]",
             (long long)start, (long long)stop, (long long)step, (long long)dims[0], (long long)dims[1]);
    return 0;
  }
  if (!expect_in_child(ndrt_tensor_read(v, got, sizeof got), NDRT_OK, NULL, why, cap)) return 0;
  if (got[0] != want0 || got[1] != want1) {
    snprintf(why, cap, "slice step %lld read {%g, %g}, expected {%g, %g}", (long long)step, got[0], got[1], want0,
             want1);
    return 0;
  }
  return 1;
}
static int slice_step_int64_max(char* why, size_t cap) { return slice_step(0, 3, INT64_MAX, 0, 3, why, cap); }
static int slice_step_int64_min(char* why, size_t cap) { return slice_step(2, -100, INT64_MIN, 2, 5, why, cap); }

static void test_isolated(void) {
  ISOLATED(create_f64_2pow61);
  ISOLATED(create_f32_2pow62);
  ISOLATED(from_host_f64_2pow61);
  ISOLATED(fill_f64_2pow61);
  ISOLATED(wrap_stride_2pow61);
  ISOLATED(wrap_strides_2pow62);
  ISOLATED(slice_step_int64_max);
  ISOLATED(slice_step_int64_min);
}

/* ------------------------------------------------------------------------------------------------ */
int main(void) {
  ndrt_memory_stats base0, base1, end0, end1;
  int64_t handles_at_end = -1;

  /* Before any ndrt call: two cpu devices, a bad value for one key (reported, default kept), and
   * no inherited setting that would change what this harness expects. */
  setenv("NDRT_CPU_VIRTUAL_DEVICES", "2", 1);
  setenv("NDRT_MEMORY_HOST_MAX_CHUNK_BYTES", "lots", 1);
  unsetenv("NDRT_PROFILE");
  unsetenv("NDRT_LOG_LEVEL");
  unsetenv("NDRT_MEMORY_HOST_MAX_CACHED_BYTES");
  unsetenv("BACKEND_PRIORITY_CPU");
  unsetenv("BACKEND_PRIORITY_GPU");
  setvbuf(stdout, NULL, _IOLBF, 0);

  test_start_config_and_log();
  base0 = stats(CPU0);
  base1 = stats(CPU1);
  test_library();
  test_devices(); /* leaves this thread attached to cpu:0 */
  EXPECT_OK(ndrt_thread_attach(CPU0));
  test_tensor_basics();
  test_views();
  test_wrap_and_release_hooks();
  test_registry();
  test_ops();
  test_exec_errors();
  test_device_mismatch();
  test_memory();
  test_profiler();
  test_config();
  test_api_table();
  test_threads();
  test_isolated();

  /* Nothing leaked: no live handle, every pool back where it started, no wrapped memory held. */
  EXPECT_OK(ndrt_live_handles(&handles_at_end));
  if (!CHECK(handles_at_end == 0)) fprintf(stderr, "    %lld handles still live\n", (long long)handles_at_end);
  EXPECT_OK(ndrt_memory_trim(CPU0));
  EXPECT_OK(ndrt_memory_trim(CPU1));
  end0 = stats(CPU0);
  end1 = stats(CPU1);
  if (!CHECK(end0.in_use == base0.in_use && end1.in_use == base1.in_use))
    fprintf(stderr, "    in_use cpu:0 %lld -> %lld, cpu:1 %lld -> %lld\n", (long long)base0.in_use,
            (long long)end0.in_use, (long long)base1.in_use, (long long)end1.in_use);
  CHECK(end0.cached == 0 && end1.cached == 0);
  CHECK(end0.wrapped == 0 && end1.wrapped == 0);

  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
