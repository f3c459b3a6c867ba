// main() for every test executable of the suite: pins the backend choice to the CPU (the suite
// tests the CPU backend; on a machine with a GPU, new threads would otherwise default to cuda:N)
// before any device is used, then runs GoogleTest.
#include <gtest/gtest.h>

#include <cstdio>

#include "ndrt/ndrt.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (ndrt_config_set("backend.priority.cpu", "1000") != NDRT_OK)
    std::fprintf(stderr, "warning: could not set backend.priority.cpu: %s\n", ndrt_last_error());
  return RUN_ALL_TESTS();
}
