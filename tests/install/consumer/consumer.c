/* A tiny program against the installed header and library: adds two tensors through the C ABI and
 * checks every element against the sum computed here. Exits non-zero with a message on failure. */
#include <ndrt/ndrt.h>
#include <stdio.h>

#define CHECK(call)                                                                \
  do {                                                                             \
    ndrt_status st_ = (call);                                                      \
    if (st_ != NDRT_OK) {                                                          \
      fprintf(stderr, "%s failed: %s (%s)\n", #call, ndrt_status_name(st_), ndrt_last_error()); \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

int main(void) {
  const int64_t shape[2] = {3, 5};
  float a[15], b[15], y[15];
  for (int i = 0; i < 15; ++i) {
    a[i] = 0.25f * (float)i - 1.0f;
    b[i] = 3.0f - 0.5f * (float)(i % 4);
    y[i] = -999.0f;
  }
  ndrt_handle ta = 0, tb = 0, ty = 0;
  int32_t add = -1;
  CHECK(ndrt_tensor_from_host(NDRT_F32, 2, shape, a, sizeof a, NDRT_CPU, &ta));
  CHECK(ndrt_tensor_from_host(NDRT_F32, 2, shape, b, sizeof b, NDRT_CPU, &tb));
  CHECK(ndrt_op_find("add", &add));
  ndrt_handle in[2] = {ta, tb};
  CHECK(ndrt_exec(add, in, 2, &ty, 1, NULL, 0, NULL, 0));
  CHECK(ndrt_tensor_read(ty, y, sizeof y));
  for (int i = 0; i < 15; ++i)
    if (y[i] != a[i] + b[i]) {
      fprintf(stderr, "element %d: %g, want %g\n", i, (double)y[i], (double)(a[i] + b[i]));
      return 1;
    }
  CHECK(ndrt_tensor_release(ta));
  CHECK(ndrt_tensor_release(tb));
  CHECK(ndrt_tensor_release(ty));
  printf("ndrt %s (ABI %u): 15 sums correct\n", ndrt_version_string(), ndrt_abi_version());
  return 0;
}
