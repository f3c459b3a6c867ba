// cpu kernels: conv2d forward/backward, pooling forward/backward, im2col/col2im.
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_conv(Registry& r) {
  (void)r;  // family under construction: no kernels registered yet
}

}  // namespace ndrt
