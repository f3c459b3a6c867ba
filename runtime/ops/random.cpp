// Op definitions: uniform, normal, truncated_normal, bernoulli, dropout: counter-based Philox streams.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_random_ops(Registry& r) {
  (void)r;  // family under construction: no ops registered yet
}

}  // namespace ndrt
