// Op definitions: batch norm and layer norm forward/backward.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_norm_ops(Registry& r) {
  (void)r;  // family under construction: no ops registered yet
}

}  // namespace ndrt
