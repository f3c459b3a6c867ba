// Op definitions: fused in-place updater steps: sgd, nesterovs, adagrad, rmsprop, adam, adamw.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_updaters_ops(Registry& r) {
  (void)r;  // family under construction: no ops registered yet
}

}  // namespace ndrt
