// Dense access for the norm kernels. Their passes read the same elements several times, so an
// input given as a strided view is packed once into a pooled contiguous tensor, and an output given
// as a strided view is computed into one and copied out at the end; contiguous tensors (the common
// case) are used as they are. Small per-channel vectors are read and written through their stride.
#pragma once
#include <cstdint>
#include <vector>

#include "convert.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_norm_layer(Registry& r);  // kernels/cpu/norm_layer.cpp

namespace nrm {

// Elements per parallel task (and per partial sum, so results do not depend on the thread count).
constexpr int64_t kChunk = 32768;

template <class T>
void copy_view(const Tensor& dst, const Tensor& src) {
  Loop<2> L = make_loop<2>(dst, {&src});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i * s[0]] = x[i * s[1]];
  });
}

template <class T>
struct DenseIn {
  Tensor own;  // the packed copy, when one was needed
  const T* p = nullptr;
  explicit DenseIn(const Tensor& t) {
    if (t.is_contiguous()) {
      p = t.data<T>();
      return;
    }
    own = alloc_tensor(t.dtype, t.shape, t.device());
    copy_view<T>(own, t);
    p = own.data<T>();
  }
};

template <class T>
struct DenseOut {
  Tensor* t;
  Tensor own;
  T* p = nullptr;
  explicit DenseOut(Tensor& out) : t(&out) {
    if (out.is_contiguous()) {
      p = out.data<T>();
      return;
    }
    own = alloc_tensor(out.dtype, out.shape, out.device());
    p = own.data<T>();
  }
  void finish() {
    if (own.storage) copy_view<T>(*t, own);
  }
};

// A rank-1 tensor's values as doubles, and back.
template <class T>
std::vector<double> read_vec(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.shape.d[0]));
  const T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(p[int64_t(i) * t.strides.d[0]]);
  return v;
}
template <class T>
void write_vec(Tensor& t, const std::vector<double>& v) {
  T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) p[int64_t(i) * t.strides.d[0]] = convert<T>(v[i]);
}

}  // namespace nrm
}  // namespace ndrt
