// Op definitions: conv2d forward/backward, pooling forward/backward, im2col/col2im.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

void define_conv_ops(Registry& r) {
  (void)r;  // family under construction: no ops registered yet
}

}  // namespace ndrt
