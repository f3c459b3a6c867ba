/*
 * ndrt — an embeddable tensor-op runtime with a flat C ABI.
 *
 * Rules this header keeps (see README and shared DESIGN):
 *  - Pure C11. No C++ type, exception or STL object crosses it.
 *  - Every fallible call returns ndrt_status (0 = NDRT_OK). On failure, ndrt_last_error() holds a
 *    thread-local message in the caller's terms. Only four infallible queries return a plain value:
 *    ndrt_abi_version, ndrt_version_string, ndrt_last_error, ndrt_status_name.
 *  - Tensors are named by ndrt_handle: a 64-bit id from a generation-checked table, never a pointer.
 *    A zero, stale, twice-released or invented handle gives NDRT_ERR_INVALID_HANDLE.
 *  - Every handle the runtime returns belongs to the caller and is released exactly once
 *    (ndrt_tensor_release). Views share storage and keep it alive.
 *  - Every call may come from many threads at once.
 */
#ifndef NDRT_NDRT_H
#define NDRT_NDRT_H

#include <stddef.h>
#include <stdint.h>

#if defined(NDRT_BUILDING_LIBRARY)
#define NDRT_API __attribute__((visibility("default")))
#else
#define NDRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version of this header. Bumped only on incompatible changes; tables only grow. */
#define NDRT_ABI_VERSION 1
/* Version of the ndrt_api function table returned by ndrt_get_api. */
#define NDRT_API_VERSION 1

/* ------------------------------------------------------------------------------------------------
 * Status codes. Fixed values, grouped by range; never renumbered.
 *   1xx resources, 2xx bad input, 3xx not supported / not configured, 4xx loading, 5xx internal.
 * ---------------------------------------------------------------------------------------------- */
typedef int32_t ndrt_status;
enum {
  NDRT_OK = 0,
  NDRT_ERR_OUT_OF_MEMORY = 100,   /* an allocation failed after the cache was trimmed */
  NDRT_ERR_BACKEND = 101,         /* a driver or vendor library (CUDA, cuDNN, BLAS) failed */
  NDRT_ERR_INVALID_HANDLE = 200,  /* zero, stale, released or invented handle */
  NDRT_ERR_INVALID_ARGUMENT = 201,/* null pointer, bad value, bad attribute, wrong arity */
  NDRT_ERR_SHAPE_MISMATCH = 202,  /* shapes that do not fit the op */
  NDRT_ERR_DTYPE_MISMATCH = 203,  /* dtypes that do not fit the op */
  NDRT_ERR_DEVICE_MISMATCH = 204, /* tensors not on the thread's current device */
  NDRT_ERR_UNKNOWN_OP = 205,      /* no op with that name or id */
  NDRT_ERR_NOT_SUPPORTED = 300,   /* the op/backend/dtype combination has no kernel */
  NDRT_ERR_NOT_CONFIGURED = 301,  /* a feature or version this build does not provide */
  NDRT_ERR_LOAD = 400,            /* a backend library or file could not be loaded */
  NDRT_ERR_INTERNAL = 500         /* a bug in ndrt: please report it with the message */
};

/* ------------------------------------------------------------------------------------------------
 * dtypes. 0 is never a valid dtype.
 * ---------------------------------------------------------------------------------------------- */
typedef int32_t ndrt_dtype;
enum {
  NDRT_F32 = 1, NDRT_F64 = 2, NDRT_F16 = 3, NDRT_BF16 = 4,
  NDRT_I8 = 5, NDRT_U8 = 6, NDRT_I32 = 7, NDRT_I64 = 8, NDRT_BOOL = 9
};
/* Values between dtypes, the same on every backend (cast, fill, and every op that converts):
 *  - float -> integer truncates toward zero; NaN gives 0 and values beyond the integer type's range
 *    give its minimum or maximum (saturation);
 *  - integer -> narrower integer keeps the low bits (two's complement);
 *  - a bool element is one byte: any non-zero byte is true. Bytes other than 0 and 1 (from
 *    from_host, write, wrap or DLPack) are read as true wherever a value is read; ops write 0 or 1;
 *    ops that only move elements (copy, concat, gather, ...) move the bytes as they are;
 *  - f64 / i32 / i64 -> f16 / bf16 round to nearest even once. */

/* ------------------------------------------------------------------------------------------------
 * Devices: an int32 packing (type << 16) | index. cpu:0 is 0.
 * ---------------------------------------------------------------------------------------------- */
typedef int32_t ndrt_device;
enum { NDRT_DEVICE_TYPE_CPU = 0, NDRT_DEVICE_TYPE_CUDA = 1 };
#define NDRT_DEVICE(type, index) ((ndrt_device)(((type) << 16) | (index)))
#define NDRT_DEVICE_TYPE_OF(dev) ((int32_t)((dev) >> 16))
#define NDRT_DEVICE_INDEX_OF(dev) ((int32_t)((dev) & 0xffff))
#define NDRT_CPU NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 0)
/* Pass where a device is asked for to mean "the calling thread's current device". */
#define NDRT_DEVICE_CURRENT ((ndrt_device)-1)

typedef int64_t ndrt_handle;
#define NDRT_MAX_RANK 8

/* ------------------------------------------------------------------------------------------------
 * Library, errors, function table
 * ---------------------------------------------------------------------------------------------- */
NDRT_API uint32_t ndrt_abi_version(void);          /* NDRT_ABI_VERSION of the loaded library */
NDRT_API const char* ndrt_version_string(void);    /* e.g. "0.1.0" */
/* Message of the last failed call on this thread ("" if none). Valid until the next failing call. */
NDRT_API const char* ndrt_last_error(void);
/* Symbolic name of a status, e.g. "NDRT_ERR_INVALID_HANDLE"; "NDRT_UNKNOWN_STATUS" otherwise. */
NDRT_API const char* ndrt_status_name(ndrt_status status);

/* ------------------------------------------------------------------------------------------------
 * Tensors
 * Shapes are int64 arrays of length rank (0..NDRT_MAX_RANK); rank 0 is a scalar (shape may be NULL).
 * Strides are in elements. Host data is read and written in row-major (C) order of the logical
 * shape, whatever the tensor's strides. A shape's non-zero extents multiply to at most 2^59, also
 * when another extent is 0 (larger shapes are NDRT_ERR_INVALID_ARGUMENT, so no element count,
 * stride or byte count overflows); a size the allocator cannot satisfy is NDRT_ERR_OUT_OF_MEMORY.
 * ---------------------------------------------------------------------------------------------- */
/* Uninitialised tensor (contents unspecified) on `device` (or NDRT_DEVICE_CURRENT). */
NDRT_API ndrt_status ndrt_tensor_create(ndrt_dtype dtype, int32_t rank, const int64_t* shape,
                                        ndrt_device device, ndrt_handle* out);
/* New tensor holding a copy of `nbytes` of row-major host data (nbytes must equal numel*itemsize). */
NDRT_API ndrt_status ndrt_tensor_from_host(ndrt_dtype dtype, int32_t rank, const int64_t* shape,
                                           const void* data, size_t nbytes, ndrt_device device,
                                           ndrt_handle* out);

/* Called once, on some thread, when the last view of wrapped memory dies. */
typedef void (*ndrt_release_fn)(void* data, void* user);
/* Wrap caller-owned host memory zero-copy as a cpu tensor. `strides` may be NULL (row-major); an
 * empty tensor (a size-0 axis) reaches nothing and gets row-major strides whatever `strides` says.
 * `capacity` is the size in bytes of the memory at `data`; every element the shape and strides
 * reach must lie inside it. `release` (may be NULL) runs with (data, user) when the last view
 * dies; on a failing call it does not run and the memory stays the caller's. */
NDRT_API ndrt_status ndrt_tensor_wrap(ndrt_dtype dtype, int32_t rank, const int64_t* shape,
                                      const int64_t* strides, void* data, size_t capacity,
                                      ndrt_release_fn release, void* user, ndrt_handle* out);

/* Copy the tensor's elements to host memory, row-major; nbytes must equal numel*itemsize. */
NDRT_API ndrt_status ndrt_tensor_read(ndrt_handle t, void* dst, size_t nbytes);
/* Overwrite the tensor's elements from row-major host memory; nbytes must equal numel*itemsize.
 * Writing through a view writes the viewed storage. */
NDRT_API ndrt_status ndrt_tensor_write(ndrt_handle t, const void* src, size_t nbytes);

/* A new handle to the same tensor (same view, same storage). Each handle is released once. */
NDRT_API ndrt_status ndrt_tensor_retain(ndrt_handle t, ndrt_handle* out);
NDRT_API ndrt_status ndrt_tensor_release(ndrt_handle t);

/* Description. shape/strides: write `rank` values into an array of `capacity` entries. */
NDRT_API ndrt_status ndrt_tensor_dtype(ndrt_handle t, ndrt_dtype* out);
NDRT_API ndrt_status ndrt_tensor_rank(ndrt_handle t, int32_t* out);
NDRT_API ndrt_status ndrt_tensor_shape(ndrt_handle t, int64_t* out, int32_t capacity);
NDRT_API ndrt_status ndrt_tensor_strides(ndrt_handle t, int64_t* out, int32_t capacity);
NDRT_API ndrt_status ndrt_tensor_offset(ndrt_handle t, int64_t* out); /* in elements */
NDRT_API ndrt_status ndrt_tensor_numel(ndrt_handle t, int64_t* out);
NDRT_API ndrt_status ndrt_tensor_device(ndrt_handle t, ndrt_device* out);
NDRT_API ndrt_status ndrt_tensor_is_contiguous(ndrt_handle t, int32_t* out);
/* Address of element [0,...,0] of a cpu tensor, for zero-copy hand-over (numpy, direct buffers).
 * Valid while any view of the storage lives. A cuda tensor gives NDRT_ERR_NOT_SUPPORTED. */
NDRT_API ndrt_status ndrt_tensor_data_ptr(ndrt_handle t, void** out);

/* Views: new handles sharing storage, no copy. */
/* Same elements, new shape. One entry may be -1 (inferred). Fails with NDRT_ERR_INVALID_ARGUMENT
 * when the strides cannot express the new shape without a copy (call ndrt_tensor_contiguous). */
NDRT_API ndrt_status ndrt_tensor_reshape(ndrt_handle t, int32_t rank, const int64_t* shape,
                                         ndrt_handle* out);
/* Axes reordered: output axis i is input axis perm[i]. */
NDRT_API ndrt_status ndrt_tensor_permute(ndrt_handle t, int32_t rank, const int32_t* perm,
                                         ndrt_handle* out);
/* Axes a and b swapped (negative axes count from the end). */
NDRT_API ndrt_status ndrt_tensor_transpose(ndrt_handle t, int32_t a, int32_t b, ndrt_handle* out);
/* Python-style slice start:stop:step along one axis. Negative start/stop count from the end and
 * are clamped; step may be negative (then start defaults are the caller's to give), never 0. */
NDRT_API ndrt_status ndrt_tensor_slice(ndrt_handle t, int32_t axis, int64_t start, int64_t stop,
                                       int64_t step, ndrt_handle* out);
/* Broadcast to `shape` (numpy rules: size-1 axes and new leading axes get stride 0). */
NDRT_API ndrt_status ndrt_tensor_expand(ndrt_handle t, int32_t rank, const int64_t* shape,
                                        ndrt_handle* out);

/* Copies. */
/* Contiguous row-major copy; when `t` is already contiguous, a new handle to the same tensor. */
NDRT_API ndrt_status ndrt_tensor_contiguous(ndrt_handle t, ndrt_handle* out);
/* New contiguous tensor of another dtype (runs the "cast" op). f16/bf16 round to nearest even. */
NDRT_API ndrt_status ndrt_tensor_cast(ndrt_handle t, ndrt_dtype dtype, ndrt_handle* out);
/* Explicit move between devices: a new contiguous tensor on `device`. */
NDRT_API ndrt_status ndrt_tensor_to_device(ndrt_handle t, ndrt_device device, ndrt_handle* out);

/* Number of live tensor handles in the process (leak checks). */
NDRT_API ndrt_status ndrt_live_handles(int64_t* out);

/* ------------------------------------------------------------------------------------------------
 * Memory: caching pools per device. Caps are configuration keys (see ndrt_config_set):
 *   memory.host.max_cached_bytes, memory.host.max_chunk_bytes.
 * ---------------------------------------------------------------------------------------------- */
typedef struct ndrt_memory_stats {
  int64_t in_use;       /* bytes held by live storages (rounded to size classes) */
  int64_t cached;       /* bytes kept for reuse, not in use */
  int64_t peak;         /* highest in_use since start or ndrt_memory_reset_peak */
  int64_t hits;         /* allocations served from the cache */
  int64_t misses;       /* allocations that went to the system */
  int64_t oom_count;    /* allocations that failed with NDRT_ERR_OUT_OF_MEMORY */
  int64_t wrapped;      /* bytes of caller memory wrapped zero-copy and still alive */
} ndrt_memory_stats;
NDRT_API ndrt_status ndrt_memory_stats_get(ndrt_device device, ndrt_memory_stats* out);
/* Return cached (unused) memory of `device` to the system. */
NDRT_API ndrt_status ndrt_memory_trim(ndrt_device device);
NDRT_API ndrt_status ndrt_memory_reset_peak(ndrt_device device);
/* Memory-pressure hook for garbage-collected hosts: called with the bytes in use (all devices'
 * host pools) when an allocation takes in_use to or past `threshold_bytes`; while in use stays there,
 * again each time it has grown by threshold/8 since the previous call returned, and on crossing again
 * after falling below. Runs on the allocating thread, outside every ndrt lock. NULL removes it. */
typedef void (*ndrt_pressure_fn)(int64_t in_use_bytes, void* user);
NDRT_API ndrt_status ndrt_memory_set_pressure_callback(int64_t threshold_bytes, ndrt_pressure_fn fn,
                                                       void* user);

/* ------------------------------------------------------------------------------------------------
 * Devices and thread affinity
 * ---------------------------------------------------------------------------------------------- */
/* Devices of a type: cpu is 1 (or cpu.virtual_devices); cuda is 0 without driver or GPU. */
NDRT_API ndrt_status ndrt_device_count(int32_t device_type, int32_t* out);
/* "cpu:0", "cuda:1". A buffer too small for the name and its NUL is NDRT_ERR_INVALID_ARGUMENT. */
NDRT_API ndrt_status ndrt_device_name(ndrt_device device, char* buf, size_t capacity);
/* The device type new threads are assigned to: the present type whose BACKEND_PRIORITY_<CPU|GPU>
 * is higher (defaults: GPU 100, CPU 0 — a GPU wins when one is present). */
NDRT_API ndrt_status ndrt_default_device_type(int32_t* out);
/* The calling thread's current device. A thread that never chose gets one, round-robin over the
 * devices of the default type, on its first call that needs one. */
NDRT_API ndrt_status ndrt_thread_device(ndrt_device* out);
/* Make `device` the calling thread's current device. */
NDRT_API ndrt_status ndrt_thread_attach(ndrt_device device);
/* Blocks until all work this thread issued on `device` has finished (no-op on cpu). */
NDRT_API ndrt_status ndrt_synchronize(ndrt_device device);

/* Events: a point in the work the calling thread has issued on a device, to order work across
 * threads and devices without blocking the host. On cpu, ops finish before they return, so a cpu
 * event is complete when recorded. Each event is released exactly once; a released or invented
 * event is NDRT_ERR_INVALID_HANDLE. */
typedef int64_t ndrt_event;
/* Records the point the calling thread's work on `device` has reached. */
NDRT_API ndrt_status ndrt_event_record(ndrt_device device, ndrt_event* out);
/* The calling thread's later work on `device` runs after the event (no host wait). */
NDRT_API ndrt_status ndrt_event_wait(ndrt_event event, ndrt_device device);
/* Blocks the host until the event is complete. */
NDRT_API ndrt_status ndrt_event_synchronize(ndrt_event event);
/* *out = 1 when the event is complete, else 0. */
NDRT_API ndrt_status ndrt_event_query(ndrt_event event, int32_t* out);
NDRT_API ndrt_status ndrt_event_release(ndrt_event event);

/* ------------------------------------------------------------------------------------------------
 * Ops
 * ---------------------------------------------------------------------------------------------- */
NDRT_API ndrt_status ndrt_op_count(int32_t* out);
NDRT_API ndrt_status ndrt_op_find(const char* name, int32_t* op_id);
/* JSON description of op `op_id`: name, doc, inputs, outputs, attributes (name, type, default),
 * dtypes and backends with kernels.
 * Text-buffer contract (this function, ndrt_config_get, ndrt_profiler_summary): sets *needed (if
 * `needed` is not NULL) to the full size including the NUL; writes the NUL-terminated text when
 * `capacity` is at least that, else writes nothing and returns NDRT_ERR_INVALID_ARGUMENT ("too
 * small"). Pass buf NULL and capacity 0 (with `needed`) to ask for the size. No truncation.
 * Attribute types: "int", "float", "bool", "dtype", "ints". Example:
 * {"name":"sum","doc":"...","inputs":[{"name":"x"}],"outputs":[{"name":"y"}],"variadic":false,
 *  "attrs":[{"name":"axes","type":"ints","default":[]},{"name":"keepdims","type":"bool","default":false}],
 *  "kernels":{"cpu":["f32","f64"]}} */
NDRT_API ndrt_status ndrt_op_describe(int32_t op_id, char* buf, size_t capacity, size_t* needed);

/* Run op `op_id` on the calling thread's current device.
 *  inputs:  n_inputs handles (a variadic op takes one or more for its last input; inputs that
 *           ndrt_op_describe marks "optional":true come last and may be left off).
 *  outputs: n_outputs entries, each either a handle to write into (its shape and dtype must be what
 *           the op infers) or 0, which the runtime replaces with a new handle it allocated.
 *           On failure no new handle is left behind and given outputs may be partly written.
 *  attributes, in the order ndrt_op_describe lists them; a prefix may be given, the rest take
 *  their defaults:
 *    int, bool, dtype attributes take one value from `ints`;
 *    ints (list) attributes take a count n and then n values from `ints`;
 *    float attributes take one value from `floats`.
 *  Example: sum over axes {0,2} with keepdims: ints = {2, 0, 2, 1}. */
NDRT_API ndrt_status ndrt_exec(int32_t op_id, const ndrt_handle* inputs, int32_t n_inputs,
                               ndrt_handle* outputs, int32_t n_outputs, const int64_t* ints,
                               int32_t n_ints, const double* floats, int32_t n_floats);

/* ------------------------------------------------------------------------------------------------
 * Configuration and logging
 * Keys (environment variable in brackets, read at first use; ndrt_config_set overrides):
 *   log.level                    [NDRT_LOG_LEVEL]  error | warn | info | debug     (warn)
 *   cpu.threads                  [NDRT_CPU_THREADS] intra-op threads at most, >= 1  (cores)
 *   cpu.adapt_threads            [NDRT_CPU_ADAPT_THREADS] 1: ops run on cpu.threads less the
 *                                cores other processes keep busy (measured every 200 ms) (1)
 *   cpu.active_threads           read-only: the intra-op threads ops run on now
 *   cpu.direct_conv              read-only: 1 when this CPU (AVX-512) runs ndrt's direct f32
 *                                convolution passes, forward and both gradients (NCHW, stride 1, no
 *                                padding or dilation, one group, output width a multiple of 8)
 *   cpu.flush_denormals          [NDRT_CPU_FLUSH_DENORMALS] 1: CPU kernels flush subnormal f32/f64
 *                                inputs and results to zero (x86 FTZ+DAZ, set only while ndrt runs
 *                                them; the caller's mode is restored): faster where values drift
 *                                into the subnormal range; 0: IEEE 754                 (0)
 *   cpu.virtual_devices          [NDRT_CPU_VIRTUAL_DEVICES] cpu devices presented, set before the
 *                                first device use (1)
 *   memory.host.max_cached_bytes [NDRT_MEMORY_HOST_MAX_CACHED_BYTES]               (1 GiB)
 *   memory.host.max_chunk_bytes  [NDRT_MEMORY_HOST_MAX_CHUNK_BYTES] larger chunks are not
 *                                cached                                            (256 MiB)
 *   profiler.enabled             [NDRT_PROFILE] 0 | 1                               (0)
 *   backend.priority.cpu         [BACKEND_PRIORITY_CPU]                              (0)
 *   backend.priority.gpu         [BACKEND_PRIORITY_GPU]                              (100)
 *   dist.timeout_s               [NDRT_DIST_TIMEOUT_S] seconds a collective waits for its peers
 *                                before it fails (0: forever)                        (300)
 *   dist.verify                  [NDRT_DIST_VERIFY] 1: compare each collective's arguments
 *                                across the group first                              (1)
 * ---------------------------------------------------------------------------------------------- */
NDRT_API ndrt_status ndrt_config_set(const char* key, const char* value);
/* Current value as text; same buffer contract as ndrt_op_describe. */
NDRT_API ndrt_status ndrt_config_get(const char* key, char* buf, size_t capacity, size_t* needed);

enum { NDRT_LOG_ERROR = 0, NDRT_LOG_WARN = 1, NDRT_LOG_INFO = 2, NDRT_LOG_DEBUG = 3 };
/* Receives log lines at or above log.level instead of stderr. NULL restores stderr. */
typedef void (*ndrt_log_fn)(int32_t level, const char* message, void* user);
NDRT_API ndrt_status ndrt_set_log_callback(ndrt_log_fn fn, void* user);

/* ------------------------------------------------------------------------------------------------
 * Profiler: while on, every ndrt_exec records op, backend, implementation, dtype, shapes and time.
 * ---------------------------------------------------------------------------------------------- */
NDRT_API ndrt_status ndrt_profiler_enable(int32_t on);
NDRT_API ndrt_status ndrt_profiler_clear(void);
/* Number of records held. */
NDRT_API ndrt_status ndrt_profiler_count(int64_t* out);
/* Chrome trace-event JSON (opens in Perfetto or chrome://tracing). */
NDRT_API ndrt_status ndrt_profiler_write_trace(const char* path);
/* Per-op table: op, backend, implementation, dtype, calls, total/mean/min/max microseconds.
 * Same buffer contract as ndrt_op_describe. */
NDRT_API ndrt_status ndrt_profiler_summary(char* buf, size_t capacity, size_t* needed);

/* ------------------------------------------------------------------------------------------------
 * Distributed: process groups and collectives over MPI (Open MPI). They live in libndrt_mpi.so,
 * loaded with dlopen on the first call here, so libndrt itself never depends on MPI. Where the
 * module or libmpi is missing every call below fails with NDRT_ERR_NOT_CONFIGURED, saying what.
 *
 * Processes are started by a launcher (`mpirun -np N prog`). The first ndrt_comm_world
 * initialises MPI with MPI_THREAD_MULTIPLE (or checks it, when the host initialised MPI itself) and
 * finalises it at process exit. A communicator is a handle like a tensor: released exactly once;
 * stale or invented ones are NDRT_ERR_INVALID_HANDLE.
 *
 * Collectives act on tensors of the calling thread's current device, in place where they can:
 *  - every dtype; reductions: sum, mean, max, min on numbers; on bool, max (any) and min (all).
 *    mean of an integer dtype is NDRT_ERR_NOT_SUPPORTED (use sum). f16/bf16 travel and reduce as
 *    f32 and are rounded once at the end.
 *  - contiguous cpu tensors travel zero-copy; strided views, 16-bit floats in reductions and cuda
 *    tensors are staged through a dense host buffer (the profiler's implementation column says
 *    "mpi" or "mpi-staged"). There is no NCCL path yet.
 *  - every process of the group must make the same calls in the same order. By default
 *    (dist.verify=1) each collective first compares its kind, dtype, shape, op and root across the
 *    group and fails with NDRT_ERR_INVALID_ARGUMENT naming the ranks that disagree, instead of
 *    letting MPI corrupt memory.
 *  - a peer that died or stopped answering fails the waiting collective after dist.timeout_s with
 *    NDRT_ERR_BACKEND (naming the collective, its size, the group and the peers waited on). The
 *    communicator is broken from then on: every later call on it fails at once. The buffers of the
 *    abandoned collective are kept alive (MPI may still write to them).
 *  - calls on one communicator run in the order they were made (async ones on the communicator's
 *    own thread); two host threads using one communicator at once must order their calls
 *    themselves, as with MPI. Use ndrt_comm_split for independent groups.
 * ---------------------------------------------------------------------------------------------- */
typedef int64_t ndrt_comm;
enum { NDRT_REDUCE_SUM = 0, NDRT_REDUCE_MEAN = 1, NDRT_REDUCE_MAX = 2, NDRT_REDUCE_MIN = 3 };

/* A new handle to the group of all processes the launcher started. */
NDRT_API ndrt_status ndrt_comm_world(ndrt_comm* out);
NDRT_API ndrt_status ndrt_comm_rank(ndrt_comm comm, int32_t* out);
NDRT_API ndrt_status ndrt_comm_size(ndrt_comm comm, int32_t* out);
/* Rank among the group's processes on this host (to pick a device). */
NDRT_API ndrt_status ndrt_comm_local_rank(ndrt_comm comm, int32_t* out);
/* Collective: processes passing the same color form a new group, ranked by key then old rank.
 * color < 0 joins no group (*out = 0). */
NDRT_API ndrt_status ndrt_comm_split(ndrt_comm comm, int32_t color, int32_t key, ndrt_comm* out);
NDRT_API ndrt_status ndrt_comm_release(ndrt_comm comm);

/* In place: t = op over the group's tensors (same dtype and shape on every rank). */
NDRT_API ndrt_status ndrt_allreduce(ndrt_comm comm, ndrt_handle t, int32_t op);
/* In place: every rank's t = root's t. */
NDRT_API ndrt_status ndrt_broadcast(ndrt_comm comm, ndrt_handle t, int32_t root);
/* out = the ranks' `in` concatenated along axis 0 in rank order: in [n, ...] -> out [size*n, ...]
 * (a rank-0 in gives out [size]). */
NDRT_API ndrt_status ndrt_allgather(ndrt_comm comm, ndrt_handle in, ndrt_handle out);
/* out = block `rank` of op over the ranks' `in`: in [size*n, ...] -> out [n, ...]. */
NDRT_API ndrt_status ndrt_reduce_scatter(ndrt_comm comm, ndrt_handle in, ndrt_handle out, int32_t op);
NDRT_API ndrt_status ndrt_barrier(ndrt_comm comm);
/* Asynchronous allreduce of n tensors (one dtype) as one collective (a bucket: the tensors are
 * packed into one buffer unless n is 1). Returns at once with an event that completes when all n
 * hold the result; ndrt_event_synchronize (or _wait) on it returns the collective's own status and
 * message if it failed. The tensors must not be read or written until then. */
NDRT_API ndrt_status ndrt_allreduce_async(ndrt_comm comm, const ndrt_handle* tensors, int32_t n,
                                          int32_t op, ndrt_event* out);

/* ------------------------------------------------------------------------------------------------
 * Versioned function table (one symbol for dlopen callers). Grows only at the end.
 * ---------------------------------------------------------------------------------------------- */
typedef struct ndrt_api {
  uint32_t version; /* the version the table was asked for */
  uint32_t (*abi_version)(void);
  const char* (*version_string)(void);
  const char* (*last_error)(void);
  const char* (*status_name)(ndrt_status);
  ndrt_status (*tensor_create)(ndrt_dtype, int32_t, const int64_t*, ndrt_device, ndrt_handle*);
  ndrt_status (*tensor_from_host)(ndrt_dtype, int32_t, const int64_t*, const void*, size_t,
                                  ndrt_device, ndrt_handle*);
  ndrt_status (*tensor_wrap)(ndrt_dtype, int32_t, const int64_t*, const int64_t*, void*, size_t,
                             ndrt_release_fn, void*, ndrt_handle*);
  ndrt_status (*tensor_read)(ndrt_handle, void*, size_t);
  ndrt_status (*tensor_write)(ndrt_handle, const void*, size_t);
  ndrt_status (*tensor_retain)(ndrt_handle, ndrt_handle*);
  ndrt_status (*tensor_release)(ndrt_handle);
  ndrt_status (*tensor_dtype)(ndrt_handle, ndrt_dtype*);
  ndrt_status (*tensor_rank)(ndrt_handle, int32_t*);
  ndrt_status (*tensor_shape)(ndrt_handle, int64_t*, int32_t);
  ndrt_status (*tensor_strides)(ndrt_handle, int64_t*, int32_t);
  ndrt_status (*tensor_offset)(ndrt_handle, int64_t*);
  ndrt_status (*tensor_numel)(ndrt_handle, int64_t*);
  ndrt_status (*tensor_device)(ndrt_handle, ndrt_device*);
  ndrt_status (*tensor_is_contiguous)(ndrt_handle, int32_t*);
  ndrt_status (*tensor_data_ptr)(ndrt_handle, void**);
  ndrt_status (*tensor_reshape)(ndrt_handle, int32_t, const int64_t*, ndrt_handle*);
  ndrt_status (*tensor_permute)(ndrt_handle, int32_t, const int32_t*, ndrt_handle*);
  ndrt_status (*tensor_transpose)(ndrt_handle, int32_t, int32_t, ndrt_handle*);
  ndrt_status (*tensor_slice)(ndrt_handle, int32_t, int64_t, int64_t, int64_t, ndrt_handle*);
  ndrt_status (*tensor_expand)(ndrt_handle, int32_t, const int64_t*, ndrt_handle*);
  ndrt_status (*tensor_contiguous)(ndrt_handle, ndrt_handle*);
  ndrt_status (*tensor_cast)(ndrt_handle, ndrt_dtype, ndrt_handle*);
  ndrt_status (*tensor_to_device)(ndrt_handle, ndrt_device, ndrt_handle*);
  ndrt_status (*live_handles)(int64_t*);
  ndrt_status (*memory_stats_get)(ndrt_device, ndrt_memory_stats*);
  ndrt_status (*memory_trim)(ndrt_device);
  ndrt_status (*memory_reset_peak)(ndrt_device);
  ndrt_status (*memory_set_pressure_callback)(int64_t, ndrt_pressure_fn, void*);
  ndrt_status (*device_count)(int32_t, int32_t*);
  ndrt_status (*device_name)(ndrt_device, char*, size_t);
  ndrt_status (*default_device_type)(int32_t*);
  ndrt_status (*thread_device)(ndrt_device*);
  ndrt_status (*thread_attach)(ndrt_device);
  ndrt_status (*synchronize)(ndrt_device);
  ndrt_status (*op_count)(int32_t*);
  ndrt_status (*op_find)(const char*, int32_t*);
  ndrt_status (*op_describe)(int32_t, char*, size_t, size_t*);
  ndrt_status (*exec)(int32_t, const ndrt_handle*, int32_t, ndrt_handle*, int32_t, const int64_t*,
                      int32_t, const double*, int32_t);
  ndrt_status (*config_set)(const char*, const char*);
  ndrt_status (*config_get)(const char*, char*, size_t, size_t*);
  ndrt_status (*set_log_callback)(ndrt_log_fn, void*);
  ndrt_status (*profiler_enable)(int32_t);
  ndrt_status (*profiler_clear)(void);
  ndrt_status (*profiler_count)(int64_t*);
  ndrt_status (*profiler_write_trace)(const char*);
  ndrt_status (*profiler_summary)(char*, size_t, size_t*);
  /* since 0.2 (the table grows at the end) */
  ndrt_status (*event_record)(ndrt_device, ndrt_event*);
  ndrt_status (*event_wait)(ndrt_event, ndrt_device);
  ndrt_status (*event_synchronize)(ndrt_event);
  ndrt_status (*event_query)(ndrt_event, int32_t*);
  ndrt_status (*event_release)(ndrt_event);
  /* since 0.3 */
  ndrt_status (*comm_world)(ndrt_comm*);
  ndrt_status (*comm_rank)(ndrt_comm, int32_t*);
  ndrt_status (*comm_size)(ndrt_comm, int32_t*);
  ndrt_status (*comm_local_rank)(ndrt_comm, int32_t*);
  ndrt_status (*comm_split)(ndrt_comm, int32_t, int32_t, ndrt_comm*);
  ndrt_status (*comm_release)(ndrt_comm);
  ndrt_status (*allreduce)(ndrt_comm, ndrt_handle, int32_t);
  ndrt_status (*broadcast)(ndrt_comm, ndrt_handle, int32_t);
  ndrt_status (*allgather)(ndrt_comm, ndrt_handle, ndrt_handle);
  ndrt_status (*reduce_scatter)(ndrt_comm, ndrt_handle, ndrt_handle, int32_t);
  ndrt_status (*barrier)(ndrt_comm);
  ndrt_status (*allreduce_async)(ndrt_comm, const ndrt_handle*, int32_t, int32_t, ndrt_event*);
} ndrt_api;

/* *out = the table for `version` (1..NDRT_API_VERSION). Another version: NDRT_ERR_NOT_CONFIGURED
 * with a message naming the versions this library offers, and *out = NULL. */
NDRT_API ndrt_status ndrt_get_api(uint32_t version, const ndrt_api** out);

#ifdef __cplusplus
}
#endif
#endif /* NDRT_NDRT_H */
