// Op definitions: softmax and log_softmax forward/backward; losses with their gradients.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_softmax_loss_ops(Registry& r) {
  (void)r;  // family under construction: no ops registered yet
}

}  // namespace ndrt
