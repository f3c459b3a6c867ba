/* The public header compiles on its own as strict C11 (-std=c11 -Wall -Wextra -pedantic -Werror),
 * twice in one translation unit, and its fixed values are what the ABI promises. Nothing is linked. */
#include <ndrt/ndrt.h>
#include <ndrt/ndrt.h> /* include guard */

_Static_assert(sizeof(ndrt_handle) == 8, "handles are 64-bit");
_Static_assert((ndrt_handle)-1 < 0, "handles are signed (Java long, Python int)");
_Static_assert(sizeof(ndrt_status) == 4 && sizeof(ndrt_dtype) == 4 && sizeof(ndrt_device) == 4,
               "status, dtype and device are int32");
_Static_assert(NDRT_OK == 0, "OK is 0");
_Static_assert(NDRT_ERR_OUT_OF_MEMORY == 100 && NDRT_ERR_BACKEND == 101, "1xx: resources");
_Static_assert(NDRT_ERR_INVALID_HANDLE == 200 && NDRT_ERR_INVALID_ARGUMENT == 201 &&
                   NDRT_ERR_SHAPE_MISMATCH == 202 && NDRT_ERR_DTYPE_MISMATCH == 203 &&
                   NDRT_ERR_DEVICE_MISMATCH == 204 && NDRT_ERR_UNKNOWN_OP == 205,
               "2xx: bad input");
_Static_assert(NDRT_ERR_NOT_SUPPORTED == 300 && NDRT_ERR_NOT_CONFIGURED == 301, "3xx");
_Static_assert(NDRT_ERR_LOAD == 400 && NDRT_ERR_INTERNAL == 500, "4xx, 5xx");
_Static_assert(NDRT_F32 == 1 && NDRT_F64 == 2 && NDRT_F16 == 3 && NDRT_BF16 == 4 && NDRT_I8 == 5 &&
                   NDRT_U8 == 6 && NDRT_I32 == 7 && NDRT_I64 == 8 && NDRT_BOOL == 9,
               "dtype values are fixed");
_Static_assert(NDRT_CPU == 0, "cpu:0 is 0");
_Static_assert(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 3) == 0x10003, "device packing");
_Static_assert(NDRT_DEVICE_TYPE_OF(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 3)) == NDRT_DEVICE_TYPE_CUDA, "type");
_Static_assert(NDRT_DEVICE_INDEX_OF(NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 3)) == 3, "index");
_Static_assert(NDRT_DEVICE_CURRENT == -1, "current device sentinel");
_Static_assert(NDRT_MAX_RANK == 8, "max rank");
_Static_assert(NDRT_ABI_VERSION >= 1 && NDRT_API_VERSION >= 1, "versions");
_Static_assert(sizeof(ndrt_memory_stats) == 7 * sizeof(int64_t), "memory stats: seven int64");

/* Every pointer type of the header is usable from C. */
static void on_release(void* data, void* user) { (void)data; (void)user; }
static void on_pressure(int64_t in_use, void* user) { (void)in_use; (void)user; }
static void on_log(int32_t level, const char* message, void* user) { (void)level; (void)message; (void)user; }

int main(void) {
  ndrt_release_fn r = on_release;
  ndrt_pressure_fn p = on_pressure;
  ndrt_log_fn l = on_log;
  const ndrt_api* api = 0;
  ndrt_memory_stats stats = {0, 0, 0, 0, 0, 0, 0};
  (void)api;
  return (r && p && l && stats.in_use == 0) ? 0 : 1;
}
