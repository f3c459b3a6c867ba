// cpu kernels: softmax and log_softmax forward/backward; losses with their gradients.
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_softmax_loss(Registry& r) {
  (void)r;  // family under construction: no kernels registered yet
}

}  // namespace ndrt
