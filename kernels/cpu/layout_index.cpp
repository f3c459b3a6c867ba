// cpu kernels: gather, gather_bp, scatter, scatter_add, one_hot. Indices are checked before anything
// is written. x (or y) splits into pre (axes before `axis`), the indexed axis, and post (axes after);
// the gathered side into pre, the index space, and post.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "layout_common.hpp"

namespace ndrt {

namespace {

struct IndexedSpaces {
  Axes<2> pre, jdx, post;  // pre: (x-side, gathered-side); jdx: (indices, gathered); post: (x-side, gathered)
  int64_t axis_stride = 0, axis_len = 0;
};

// `big` has x's shape (x for gather, y for scatter), `small` gather's output shape.
IndexedSpaces spaces(const Tensor& big, const Tensor& idx, const Tensor& small, int axis) {
  IndexedSpaces s;
  int j = 0;
  for (int d = 0; d < axis; ++d, ++j) s.pre.push(big.shape.d[d], {big.strides.d[d], small.strides.d[j]});
  for (int d = 0; d < idx.rank(); ++d, ++j) s.jdx.push(idx.shape.d[d], {idx.strides.d[d], small.strides.d[j]});
  for (int d = axis + 1; d < big.rank(); ++d, ++j) s.post.push(big.shape.d[d], {big.strides.d[d], small.strides.d[j]});
  s.axis_stride = big.strides.d[axis];
  s.axis_len = big.shape.d[axis];
  return s;
}

int axis_of(const OpContext& c, int rank) {
  int64_t a = c.attrs.get_int(0);
  return int(a < 0 ? a + rank : a);
}

template <class I>
void check_axis_indices(const OpContext& c, const Tensor& idx, int axis, int64_t n) {
  std::string range = "[" + std::to_string(-n) + ", " + std::to_string(n) + ") for axis " + std::to_string(axis) +
                      " of size " + std::to_string(n);
  check_indices<I>(idx, -n, n, c.op->name, range.c_str());
}

template <class Word, class I>
void gather_impl(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& idx = *c.in[1];
  const Tensor& y = *c.out[0];
  const int axis = axis_of(c, x.rank());
  check_axis_indices<I>(c, idx, axis, x.shape.d[axis]);
  const IndexedSpaces s = spaces(x, idx, y, axis);
  const int64_t P = s.pre.size(), J = s.jdx.size(), Q = s.post.size();
  if (P * J * Q == 0) return;
  const Word* xb = x.data<Word>();
  Word* yb = y.data<Word>();
  const I* ib = idx.data<I>();
  const int64_t qx = s.post.inner(0), qy = s.post.inner(1), ji = s.jdx.inner(0), jy = s.jdx.inner(1);
  // One unit = one (pre, j) pair: a post row to copy.
  parallel_for(P * J, std::max<int64_t>(1, kElementwiseGrain / Q), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e;) {
      const int64_t p = u / J, j0 = u % J, j1 = std::min(J, j0 + (e - u));
      int64_t po[2];
      s.pre.offsets(p, po);
      s.jdx.rows(j0, j1, [&](const int64_t* jo, int64_t n) {
        for (int64_t t = 0; t < n; ++t) {
          int64_t k = int64_t(ib[jo[0] + t * ji]);
          if (k < 0) k += s.axis_len;
          const Word* src = xb + po[0] + k * s.axis_stride;
          Word* dst = yb + po[1] + jo[1] + t * jy;
          s.post.rows(0, Q, [&](const int64_t* qo, int64_t m) {
            if (qx == 1 && qy == 1)
              std::memcpy(dst + qo[1], src + qo[0], size_t(m) * sizeof(Word));
            else
              for (int64_t q = 0; q < m; ++q) dst[qo[1] + q * qy] = src[qo[0] + q * qx];
          });
        }
      });
      u += j1 - j0;
    }
  });
}

void gather_kernel(OpContext& c) {
  by_word(c.in[0]->itemsize(), [&](auto w) {
    by_index(c.in[1]->dtype, [&](auto i) { gather_impl<decltype(w), decltype(i)>(c); });
  });
}

// Integers wrap (through unsigned arithmetic: signed overflow is undefined in C++).
template <class A>
inline A add(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using UA = std::make_unsigned_t<A>;
    return A(UA(a) + UA(b));
  } else {
    return a + b;
  }
}

// target[pre, indices[j], post] (op)= updates[pre, j, post] for every j in row-major order. Units
// are (pre, chunk of post) pairs: each target element belongs to one unit, so units run in parallel
// and repeated indices apply in the same order whatever the thread count.
template <class A, class U, class I, bool kAdd>
void scatter_core(A* target, const Tensor& tshape, const Tensor& idx, const Tensor& upd, int axis) {
  const IndexedSpaces s = spaces(tshape, idx, upd, axis);
  const int64_t P = s.pre.size(), J = s.jdx.size(), Q = s.post.size();
  if (P * J * Q == 0) return;
  const U* ub = upd.data<U>();
  const I* ib = idx.data<I>();
  const int64_t qt = s.post.inner(0), qu = s.post.inner(1), ji = s.jdx.inner(0), ju = s.jdx.inner(1);
  constexpr int64_t kChunk = 2048;
  const int64_t chunks = (Q + kChunk - 1) / kChunk;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::min(Q, kChunk) / J);
  parallel_for(P * chunks, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t p = u / chunks, q0 = (u % chunks) * kChunk, q1 = std::min(Q, q0 + kChunk);
      int64_t po[2];
      s.pre.offsets(p, po);
      s.jdx.rows(0, J, [&](const int64_t* jo, int64_t n) {
        for (int64_t t = 0; t < n; ++t) {
          int64_t k = int64_t(ib[jo[0] + t * ji]);
          if (k < 0) k += s.axis_len;
          A* dst = target + po[0] + k * s.axis_stride;
          const U* src = ub + po[1] + jo[1] + t * ju;
          s.post.rows(q0, q1, [&](const int64_t* qo, int64_t m) {
            A* d = dst + qo[0];
            const U* v = src + qo[1];
            if constexpr (kAdd) {
              for (int64_t q = 0; q < m; ++q) d[q * qt] = add(d[q * qt], A(v[q * qu]));
            } else if (qt == 1 && qu == 1) {
              std::memcpy(d, v, size_t(m) * sizeof(A));
            } else {
              for (int64_t q = 0; q < m; ++q) d[q * qt] = v[q * qu];
            }
          });
        }
      });
    }
  });
}

template <class Word, class I>
void scatter_impl(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  const int axis = axis_of(c, x.rank());
  check_axis_indices<I>(c, *c.in[1], axis, x.shape.d[axis]);
  if (!same_view(x, y)) copy_view(y, x);
  scatter_core<Word, Word, I, false>(y.data<Word>(), y, *c.in[1], *c.in[2], axis);
}

void scatter_kernel(OpContext& c) {
  by_word(c.in[0]->itemsize(), [&](auto w) {
    by_index(c.in[1]->dtype, [&](auto i) { scatter_impl<decltype(w), decltype(i)>(c); });
  });
}

template <class To, class From>
void convert_view(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  Loop<2> L = make_loop<2>(dst, {&src});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const From* x = reinterpret_cast<const From*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i * s[0]] = To(compute_t<From>(x[i * s[1]]));
  });
}

void zero_view(const Tensor& t) {
  if (t.numel() == 0) return;
  Loop<1> L = make_loop<1>(t, {});
  const int64_t is = t.itemsize();
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    if (s[0] == 1)
      std::memset(p[0], 0, size_t(n * is));
    else
      for (int64_t i = 0; i < n; ++i) std::memset(p[0] + i * s[0] * is, 0, size_t(is));
  });
}

// y = (from_zero ? 0 : x) + scatter of updates; f16/bf16 accumulate in an f32 scratch tensor.
template <class T, class I>
void scatter_add_impl(OpContext& c, bool from_zero) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  const int axis = axis_of(c, x.rank());
  check_axis_indices<I>(c, *c.in[1], axis, x.shape.d[axis]);
  if constexpr (std::is_same_v<compute_t<T>, T>) {
    if (from_zero)
      zero_view(y);
    else if (!same_view(x, y))
      copy_view(y, x);
    scatter_core<T, T, I, true>(y.data<T>(), y, *c.in[1], *c.in[2], axis);
  } else {
    Tensor acc = alloc_tensor(NDRT_F32, y.shape, y.device());
    if (from_zero)
      zero_view(acc);
    else
      convert_view<float, T>(acc, x);
    scatter_core<float, T, I, true>(acc.data<float>(), acc, *c.in[1], *c.in[2], axis);
    convert_view<T, float>(y, acc);
  }
}

template <class T>
void scatter_add_kernel(OpContext& c) {
  by_index(c.in[1]->dtype, [&](auto i) { scatter_add_impl<T, decltype(i)>(c, false); });
}

template <class T>
void gather_bp_kernel(OpContext& c) {
  by_index(c.in[1]->dtype, [&](auto i) { scatter_add_impl<T, decltype(i)>(c, true); });
}

template <class Word, class I>
void one_hot_impl(OpContext& c) {
  const Tensor& idx = *c.in[0];
  const Tensor& y = *c.out[0];
  const int64_t depth = c.attrs.get_int(0);
  const int axis = int(c.attrs.get_int(2) < 0 ? c.attrs.get_int(2) + y.rank() : c.attrs.get_int(2));
  const std::string range = "[0, " + std::to_string(depth) + ") (depth " + std::to_string(depth) + ")";
  check_indices<I>(idx, 0, depth, "one_hot", range.c_str());
  if (y.numel() == 0) return;
  const uint64_t on_bits = value_bits(y.dtype, c.attrs.get_float(3)), off_bits = value_bits(y.dtype, c.attrs.get_float(4));
  Word on, off;
  std::memcpy(&on, &on_bits, sizeof(Word));
  std::memcpy(&off, &off_bits, sizeof(Word));
  Axes<2> ax;  // (indices, y without the new axis)
  for (int d = 0; d < idx.rank(); ++d) ax.push(idx.shape.d[d], {idx.strides.d[d], y.strides.d[d < axis ? d : d + 1]});
  const int64_t ys = y.strides.d[axis], si = ax.inner(0), sy = ax.inner(1);
  const I* ib = idx.data<I>();
  Word* yb = y.data<Word>();
  parallel_for(ax.size(), std::max<int64_t>(1, kElementwiseGrain / depth), [&](int64_t b, int64_t e) {
    ax.rows(b, e, [&](const int64_t* o, int64_t n) {
      for (int64_t t = 0; t < n; ++t) {
        const int64_t k = int64_t(ib[o[0] + t * si]);
        Word* row = yb + o[1] + t * sy;
        for (int64_t h = 0; h < depth; ++h) row[h * ys] = h == k ? on : off;
      }
    });
  });
}

void one_hot_kernel(OpContext& c) {
  by_word(c.out[0]->itemsize(), [&](auto w) {
    by_index(c.in[0]->dtype, [&](auto i) { one_hot_impl<decltype(w), decltype(i)>(c); });
  });
}

}  // namespace

void register_cpu_layout_index(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t, bool>([&](auto t) {
    const ndrt_dtype d = dtype_of<decltype(t)>();
    r.kernel("gather", kCpu, {d}, gather_kernel, "ndrt:cpu");
    r.kernel("scatter", kCpu, {d}, scatter_kernel, "ndrt:cpu");
    r.kernel("one_hot", kCpu, {d}, one_hot_kernel, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    r.kernel("scatter_add", kCpu, {dtype_of<T>()}, scatter_add_kernel<T>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("gather_bp", kCpu, {dtype_of<T>()}, gather_bp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
