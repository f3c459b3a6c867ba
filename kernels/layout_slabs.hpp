// concat and stack as copies between views: the part of the output each input fills is a view of
// the output, so a backend only supplies its strided copy. Shared by kernels/cpu/layout.cpp and
// kernels/cuda/layout.cu.
#pragma once
#include "registry.hpp"

namespace ndrt::slabs {

// The op's axis attribute (attribute 0), negative counting from the end.
inline int axis_attr(const OpContext& c, int rank) {
  const int64_t a = c.attrs.get_int(0);
  return int(a < 0 ? a + rank : a);
}

// concat: each input is copied into the slab of y it occupies along the axis.
template <class Copy>
void concat(const OpContext& c, Copy&& copy_view) {
  const Tensor& y = *c.out[0];
  const int axis = axis_attr(c, y.rank());
  int64_t start = 0;
  for (int i = 0; i < c.n_in; ++i) {
    const Tensor& x = *c.in[i];
    const int64_t len = x.shape.d[axis];
    if (len > 0 && x.numel() > 0) {
      Tensor part = y;
      part.shape.d[axis] = len;
      part.offset += start * y.strides.d[axis];
      copy_view(part, x);
    }
    start += len;
  }
}

// stack: input i is copied into y[.., i, ..], y without the new axis, offset by i along it.
template <class Copy>
void stack(const OpContext& c, Copy&& copy_view) {
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  const int axis = axis_attr(c, y.rank());
  for (int i = 0; i < c.n_in; ++i) {
    Tensor part = y;
    part.shape.rank = part.strides.rank = y.rank() - 1;
    for (int d = axis; d < y.rank() - 1; ++d) {
      part.shape.d[d] = y.shape.d[d + 1];
      part.strides.d[d] = y.strides.d[d + 1];
    }
    part.offset += i * y.strides.d[axis];
    copy_view(part, *c.in[i]);
  }
}

}  // namespace ndrt::slabs
