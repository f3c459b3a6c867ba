/*
 * A dlopen caller, as Python's ctypes or a plugin host would be: this program links nothing of
 * ndrt. It loads the library given as argv[1], resolves the single symbol ndrt_get_api, checks the
 * ABI through the table, and runs an op through it (create, exec add, read, release).
 * The header is included for its types and constants only.
 */
#define _POSIX_C_SOURCE 200809L

#include <ndrt/ndrt.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int g_passed, g_failed;

static int check_(int ok, const char* what, int line) {
  if (ok) {
    ++g_passed;
    return 1;
  }
  ++g_failed;
  fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, line, what);
  return 0;
}
#define CHECK(cond) check_((cond) ? 1 : 0, #cond, __LINE__)

typedef ndrt_status (*get_api_fn)(uint32_t, const ndrt_api**);

int main(int argc, char** argv) {
  void* lib;
  void* sym;
  get_api_fn get_api = NULL;
  const ndrt_api* api = NULL;
  const ndrt_api* none = NULL;
  const int64_t shape[2] = {2, 2};
  const float a_data[4] = {1, 2, 3, 4}, b_data[4] = {0.5f, 0.25f, -1, 10};
  float y_data[4] = {0, 0, 0, 0};
  ndrt_handle a = 0, b = 0, y = 0, inputs[2];
  int32_t add = -1;
  int64_t live = -1;
  ndrt_status st;

  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/libndrt.so\n", argv[0]);
    return 2;
  }
  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen(%s) failed: %s\n", argv[1], dlerror());
    return 1;
  }
  sym = dlsym(lib, "ndrt_get_api");
  if (!CHECK(sym != NULL)) {
    fprintf(stderr, "dlsym(ndrt_get_api): %s\n", dlerror());
    return 1;
  }
  /* ISO C has no object-to-function pointer conversion; POSIX guarantees the bytes are the same. */
  memcpy(&get_api, &sym, sizeof get_api);

  /* A version this library does not offer: a status and a message, not a crash. */
  none = (const ndrt_api*)&none; /* any non-NULL value: must come back NULL */
  st = get_api(NDRT_API_VERSION + 1000, &none);
  CHECK(st == NDRT_ERR_NOT_CONFIGURED);
  CHECK(none == NULL);

  if (!CHECK(get_api(NDRT_API_VERSION, &api) == NDRT_OK && api != NULL)) return 1;
  CHECK(api->version == NDRT_API_VERSION);
  CHECK(api->last_error != NULL && api->last_error()[0] != '\0'); /* the NOT_CONFIGURED message */
  CHECK(api->abi_version != NULL && api->abi_version() == NDRT_ABI_VERSION);
  if (api->abi_version() != NDRT_ABI_VERSION) {
    fprintf(stderr, "library ABI %u, this program was built for %u\n", (unsigned)api->abi_version(),
            (unsigned)NDRT_ABI_VERSION);
    return 1;
  }
  printf("loaded ndrt %s (ABI %u) from %s\n", api->version_string(), (unsigned)api->abi_version(), argv[1]);

  /* One op through the table. */
  CHECK(api->thread_attach(NDRT_CPU) == NDRT_OK);
  CHECK(api->tensor_from_host(NDRT_F32, 2, shape, a_data, sizeof a_data, NDRT_CPU, &a) == NDRT_OK);
  CHECK(api->tensor_create(NDRT_F32, 2, shape, NDRT_CPU, &b) == NDRT_OK);
  CHECK(api->tensor_write(b, b_data, sizeof b_data) == NDRT_OK);
  CHECK(api->op_find("add", &add) == NDRT_OK);
  inputs[0] = a;
  inputs[1] = b;
  CHECK(api->exec(add, inputs, 2, &y, 1, NULL, 0, NULL, 0) == NDRT_OK);
  CHECK(y != 0);
  CHECK(api->tensor_read(y, y_data, sizeof y_data) == NDRT_OK);
  CHECK(y_data[0] == 1.5f && y_data[1] == 2.25f && y_data[2] == 2.0f && y_data[3] == 14.0f);
  /* An error through the table, with its message. */
  st = api->tensor_read(y, y_data, 3);
  CHECK(st == NDRT_ERR_INVALID_ARGUMENT);
  CHECK(strcmp(api->status_name(st), "NDRT_ERR_INVALID_ARGUMENT") == 0);
  CHECK(strstr(api->last_error(), "tensor_read") != NULL);
  CHECK(api->tensor_release(y) == NDRT_OK);
  CHECK(api->tensor_release(b) == NDRT_OK);
  CHECK(api->tensor_release(a) == NDRT_OK);
  CHECK(api->tensor_release(a) == NDRT_ERR_INVALID_HANDLE);
  CHECK(api->live_handles(&live) == NDRT_OK && live == 0);

  /* Nothing but ndrt_* is visible to a dlsym caller (the exports test checks the whole table). */
  CHECK(dlsym(lib, "_ZN4ndrt4failEiPKcz") == NULL);

  /* The library stays loaded (as ctypes and JNI hosts keep it); a dlclose here would unmap code
   * that the runtime's detached pool threads may still run. */
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
