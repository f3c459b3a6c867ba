// Hyperparameters of the fused updater ops (sgd, nesterovs, adagrad, rmsprop, adam, adamw), decoded
// from the op's attributes once per call on the host. Shared by kernels/cpu/updaters.cpp and
// kernels/cuda/updaters.cu, so both backends derive the very same values (derived terms in double).
#pragma once
#include <cmath>

#include "registry.hpp"

namespace ndrt::updater {

enum class Kind { Sgd, Nesterovs, AdaGrad, RmsProp, Adam };  // Adam also serves adamw

// In the compute type of the kernel.
template <class C>
struct Hyper {
  C lr = 0, wd = 0;          // learning rate; L2 (or, adamw, the decoupled decay)
  C mu = 0, mu1 = 0;         // nesterovs: momentum, 1 + momentum
  C eps = 0;                 // adagrad, rmsprop, adam
  C rho = 0, rho1 = 0;       // rmsprop: decay, 1 - decay
  C b1 = 0, b1c = 0;         // adam: beta1, 1 - beta1
  C b2 = 0, b2c = 0;         // adam: beta2, 1 - beta2
  C alpha_t = 0, lr_wd = 0;  // adam: bias-corrected step size; adamw: lr * weight_decay
};

// Attribute order (runtime/ops/updaters.cpp): lr first, weight_decay last among the floats.
template <Kind K, class T>
Hyper<T> hyper_of(const Attrs& a) {
  Hyper<T> h;
  h.lr = T(a.get_float(0));
  if constexpr (K == Kind::Sgd) {
    h.wd = T(a.get_float(1));
  } else if constexpr (K == Kind::Nesterovs) {
    h.mu = T(a.get_float(1));
    h.mu1 = T(1.0 + a.get_float(1));
    h.wd = T(a.get_float(2));
  } else if constexpr (K == Kind::AdaGrad) {
    h.eps = T(a.get_float(1));
    h.wd = T(a.get_float(2));
  } else if constexpr (K == Kind::RmsProp) {
    h.rho = T(a.get_float(1));
    h.rho1 = T(1.0 - a.get_float(1));
    h.eps = T(a.get_float(2));
    h.wd = T(a.get_float(3));
  } else {  // adam, adamw: lr, beta1, beta2, eps, weight_decay, step
    const double lr = a.get_float(0), b1 = a.get_float(1), b2 = a.get_float(2), t = double(a.get_int(5));
    h.b1 = T(b1);
    h.b1c = T(1.0 - b1);
    h.b2 = T(b2);
    h.b2c = T(1.0 - b2);
    h.eps = T(a.get_float(3));
    h.wd = T(a.get_float(4));
    h.alpha_t = T(lr * std::sqrt(1.0 - std::pow(b2, t)) / (1.0 - std::pow(b1, t)));
    h.lr_wd = T(lr * a.get_float(4));
  }
  return h;
}

}  // namespace ndrt::updater
