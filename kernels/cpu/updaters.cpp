// cpu kernels: fused in-place updater steps: sgd, nesterovs, adagrad, rmsprop, adam, adamw.
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_updaters(Registry& r) {
  (void)r;  // family under construction: no kernels registered yet
}

}  // namespace ndrt
