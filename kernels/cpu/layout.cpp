// cpu kernels: concat, stack, split, pad, gather, scatter, one_hot, tile, flip, transpose-copy.
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_layout(Registry& r) {
  (void)r;  // family under construction: no kernels registered yet
}

}  // namespace ndrt
