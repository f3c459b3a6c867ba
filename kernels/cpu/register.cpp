#include "kernels.hpp"
#include "ops/ops.hpp"

namespace ndrt {

void register_cpu_kernels(Registry& r) {
  register_cpu_creation(r);
  register_cpu_elementwise(r);
  register_cpu_reduce(r);
  register_cpu_matmul(r);
}

}  // namespace ndrt
