// Op definitions: concat, stack, split, pad, gather, scatter, one_hot, tile, flip, transpose-copy.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_layout_ops(Registry& r) {
  (void)r;  // family under construction: no ops registered yet
}

}  // namespace ndrt
