/* Add two 2x3 tensors with ndrt from C. Build: cc -std=c11 example.c -lndrt */
#include <ndrt/ndrt.h>
#include <stdio.h>
#include <stdlib.h>

/* Every ndrt call returns a status; on failure, ndrt_last_error() says what went wrong. */
static void check(ndrt_status status, const char* what) {
  if (status != NDRT_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, ndrt_status_name(status), ndrt_last_error());
    exit(1);
  }
}

int main(void) {
  const int64_t shape[2] = {2, 3};
  const float a_data[6] = {1, 2, 3, 4, 5, 6};
  const float b_data[6] = {10, 20, 30, 40, 50, 60};
  float y_data[6];
  ndrt_handle a, b;
  ndrt_handle y = 0; /* 0: the runtime allocates the output */
  int32_t add;
  int i;

  /* Ops run on the calling thread's current device; all their tensors must live there. */
  check(ndrt_thread_attach(NDRT_CPU), "thread_attach");
  check(ndrt_tensor_from_host(NDRT_F32, 2, shape, a_data, sizeof a_data, NDRT_CPU, &a), "from_host a");
  check(ndrt_tensor_from_host(NDRT_F32, 2, shape, b_data, sizeof b_data, NDRT_CPU, &b), "from_host b");

  /* Look the op up once; ndrt_exec takes its id. add has no attributes. */
  check(ndrt_op_find("add", &add), "op_find add");
  {
    const ndrt_handle inputs[2] = {a, b};
    check(ndrt_exec(add, inputs, 2, &y, 1, NULL, 0, NULL, 0), "exec add");
  }

  check(ndrt_tensor_read(y, y_data, sizeof y_data), "read y");
  for (i = 0; i < 6; ++i) printf("%g%s", y_data[i], i % 3 == 2 ? "\n" : " ");

  /* Each handle is the caller's and is released exactly once. */
  check(ndrt_tensor_release(y), "release y");
  check(ndrt_tensor_release(b), "release b");
  check(ndrt_tensor_release(a), "release a");
  return 0;
}
