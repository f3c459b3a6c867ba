// Registration entry points of the cpu kernel families (one file each).
#pragma once
#include "registry.hpp"

namespace ndrt {

// Calls f(T{}) for each listed type: for_types<float, double>([&](auto t) { ... }).
template <class... Ts, class F>
void for_types(F&& f) {
  (f(Ts{}), ...);
}

void register_cpu_creation(Registry& r);
void register_cpu_elementwise(Registry& r);
void register_cpu_reduce(Registry& r);
void register_cpu_matmul(Registry& r);
void register_cpu_random(Registry& r);
void register_cpu_layout(Registry& r);
void register_cpu_softmax_loss(Registry& r);
void register_cpu_conv(Registry& r);
void register_cpu_norm(Registry& r);
void register_cpu_updaters(Registry& r);
void register_cpu_rnn(Registry& r);
void register_cpu_sequence_pool(Registry& r);
}  // namespace ndrt
