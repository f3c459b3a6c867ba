#include "kernels.hpp"
#include "ops/ops.hpp"

namespace ndrt {

void register_cpu_kernels(Registry& r) {
  register_cpu_creation(r);
  register_cpu_elementwise(r);
  register_cpu_reduce(r);
  register_cpu_matmul(r);
  register_cpu_random(r);
  register_cpu_layout(r);
  register_cpu_softmax_loss(r);
  register_cpu_conv(r);
  register_cpu_norm(r);
  register_cpu_updaters(r);
  register_cpu_rnn(r);
  register_cpu_sequence_pool(r);
}

}  // namespace ndrt
