// cpu kernels: uniform, normal, truncated_normal, bernoulli, dropout: counter-based Philox streams.
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_random(Registry& r) {
  (void)r;  // family under construction: no kernels registered yet
}

}  // namespace ndrt
