// cpu kernels: concat, stack, flip, transpose_copy (views of the output or input plus a strided copy),
// and the registration of the whole layout family (gather/scatter/one_hot in layout_index.cpp,
// pad/tile in layout_pad.cpp).
#include <algorithm>
#include <cstdlib>

#include "../layout_slabs.hpp"
#include "layout_common.hpp"

namespace ndrt {

namespace {

void concat_kernel(OpContext& c) {
  slabs::concat(c, [](const Tensor& dst, const Tensor& src) { copy_view(dst, src); });
}

void stack_kernel(OpContext& c) {
  slabs::stack(c, [](const Tensor& dst, const Tensor& src) { copy_view(dst, src); });
}

// A view of x with negated strides on the flipped axes, copied.
void flip_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const int n = c.attrs.list_size(0);
  const int64_t* axes = c.attrs.list_data(0);
  Tensor v = x;
  for (int d = 0; d < x.rank(); ++d) {
    bool flip = n == 0;
    for (int k = 0; k < n; ++k) flip |= (axes[k] < 0 ? axes[k] + x.rank() : axes[k]) == d;
    if (flip && x.shape.d[d] > 0) {
      v.offset += (x.shape.d[d] - 1) * x.strides.d[d];
      v.strides.d[d] = -x.strides.d[d];
    }
  }
  copy_view(*c.out[0], v);
}

// Copy over the two innermost loop axes in square tiles, so that whichever operand is strided
// along the innermost axis still reads (or writes) whole cache lines of its own inner axis.
template <class Word>
void blocked_copy(const Loop<2>& L) {
  constexpr int64_t T = 32;
  const int r = L.rank;
  const int64_t A = L.shape[r - 2], B = L.shape[r - 1];
  const int64_t ya = L.stride[0][r - 2], yb = L.stride[0][r - 1], xa = L.stride[1][r - 2], xb = L.stride[1][r - 1];
  const int64_t ta = (A + T - 1) / T, tb = (B + T - 1) / T, outer = L.numel() / (A * B);
  Word* ybase = reinterpret_cast<Word*>(L.base[0]);
  const Word* xbase = reinterpret_cast<const Word*>(L.base[1]);
  parallel_for(outer * ta * tb, std::max<int64_t>(1, kElementwiseGrain / (T * T)), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / (ta * tb), rem = t % (ta * tb);
      const int64_t i0 = (rem / tb) * T, j0 = (rem % tb) * T;
      const int64_t i1 = std::min(A, i0 + T), j1 = std::min(B, j0 + T);
      int64_t oy = 0, ox = 0;
      for (int d = r - 3; d >= 0; --d) {
        int64_t k = o % L.shape[d];
        o /= L.shape[d];
        oy += k * L.stride[0][d];
        ox += k * L.stride[1][d];
      }
      Word* yp = ybase + oy;
      const Word* xp = xbase + ox;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) yp[i * ya + j * yb] = xp[i * xa + j * xb];
    }
  });
}

void transpose_copy_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  const int n = c.attrs.list_size(0);
  const int64_t* perm = c.attrs.list_data(0);
  Tensor v = x;
  for (int d = 0; d < x.rank(); ++d) {
    int p = n == 0 ? x.rank() - 1 - d : int(perm[d] < 0 ? perm[d] + x.rank() : perm[d]);
    v.shape.d[d] = x.shape.d[p];
    v.strides.d[d] = x.strides.d[p];
  }
  Loop<2> L = make_loop<2>(y, {&v});
  const int r = L.rank;
  // Tiles pay off when one operand is unit-stride on the inner axis and the other on the next one.
  const bool tiled = r >= 2 && std::llabs(L.stride[0][r - 1]) != std::llabs(L.stride[1][r - 1]) &&
                     L.shape[r - 1] >= 8 && L.shape[r - 2] >= 8;
  by_word(y.itemsize(), [&](auto w) {
    using Word = decltype(w);
    if (tiled)
      blocked_copy<Word>(L);
    else
      copy_loop<Word>(L);
  });
}

}  // namespace

void register_cpu_layout(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t, bool>([&](auto t) {
    const ndrt_dtype d = dtype_of<decltype(t)>();
    r.kernel("concat", kCpu, {d}, concat_kernel, "ndrt:cpu");
    r.kernel("stack", kCpu, {d}, stack_kernel, "ndrt:cpu");
    r.kernel("flip", kCpu, {d}, flip_kernel, "ndrt:cpu");
    r.kernel("transpose_copy", kCpu, {d}, transpose_copy_kernel, "ndrt:cpu");
  });
  register_cpu_layout_index(r);
  register_cpu_layout_pad(r);
}

}  // namespace ndrt
