// cpu kernels: pad, pad_bp, tile, tile_bp. Both ops map each output index to an input index axis by
// axis, so the forward kernels walk output rows with a per-axis source map, and the gradients sum,
// for each input element, the output elements that map to it (a fixed order: deterministic).
#include <algorithm>
#include <vector>

#include "layout_common.hpp"

namespace ndrt {

namespace {

enum { kConstant = 0, kReflect = 1, kEdge = 2 };

// Source index along one axis for each output index of pad (-1: the constant value).
std::vector<int64_t> pad_map(int64_t len, int64_t before, int64_t out_len, int64_t mode) {
  std::vector<int64_t> m(size_t(out_len > 0 ? out_len : 0));
  for (int64_t o = 0; o < out_len; ++o) {
    int64_t i = o - before;
    if (i < 0 || i >= len) {
      if (mode == kConstant) i = -1;
      else if (mode == kReflect) i = i < 0 ? -i : 2 * (len - 1) - i;
      else i = i < 0 ? 0 : len - 1;
    }
    m[size_t(o)] = i;
  }
  return m;
}

struct PadMaps {
  int rank = 0;
  std::vector<int64_t> map[NDRT_MAX_RANK];
};

// Rank 0 behaves as rank 1 of size 1 with no padding.
PadMaps pad_maps(const OpContext& c, const Dims& x, const Dims& y) {
  PadMaps pm;
  pm.rank = x.rank;
  const int n = c.attrs.list_size(0);
  const int64_t* pads = c.attrs.list_data(0);
  for (int d = 0; d < x.rank; ++d)
    pm.map[d] = pad_map(x.d[d], n ? pads[2 * d] : 0, y.d[d], c.attrs.get_int(1));
  return pm;
}

template <class Word>
void pad_impl(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  const uint64_t bits = value_bits(y.dtype, c.attrs.get_float(2));
  Word value;
  std::memcpy(&value, &bits, sizeof(Word));
  if (y.rank() == 0) {
    *y.data<Word>() = *x.data<Word>();
    return;
  }
  const PadMaps pm = pad_maps(c, x.shape, y.shape);
  const int r = y.rank();
  const int64_t cols = y.shape.d[r - 1], rows = y.numel() / cols;
  const int64_t ys = y.strides.d[r - 1], xs = x.strides.d[r - 1];
  const int64_t* last = pm.map[r - 1].data();
  const int64_t before = c.attrs.list_size(0) ? c.attrs.list_data(0)[2 * (r - 1)] : 0, len = x.shape.d[r - 1];
  const Word* xb = x.data<Word>();
  Word* yb = y.data<Word>();
  parallel_for(rows, std::max<int64_t>(1, kElementwiseGrain / cols), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t rem = row, oy = 0, ox = 0;
      bool fill = false;
      for (int d = r - 2; d >= 0; --d) {
        const int64_t k = rem % y.shape.d[d];
        rem /= y.shape.d[d];
        oy += k * y.strides.d[d];
        const int64_t m = pm.map[d][size_t(k)];
        fill |= m < 0;
        ox += m * x.strides.d[d];
      }
      Word* yr = yb + oy;
      if (fill) {
        for (int64_t j = 0; j < cols; ++j) yr[j * ys] = value;
        continue;
      }
      const Word* xr = xb + ox;
      for (int64_t j = 0; j < before; ++j) yr[j * ys] = last[j] < 0 ? value : xr[last[j] * xs];
      if (ys == 1 && xs == 1 && len > 0)
        std::memcpy(yr + before, xr, size_t(len) * sizeof(Word));
      else
        for (int64_t j = 0; j < len; ++j) yr[(before + j) * ys] = xr[j * xs];
      for (int64_t j = before + len; j < cols; ++j) yr[j * ys] = last[j] < 0 ? value : xr[last[j] * xs];
    }
  });
}

void pad_kernel(OpContext& c) {
  by_word(c.in[0]->itemsize(), [&](auto w) { pad_impl<decltype(w)>(c); });
}

// Per axis, the output indices that map to each input index (CSR: start[i] .. start[i+1]).
struct Preimages {
  std::vector<int64_t> start, list;
};

Preimages preimages(const std::vector<int64_t>& map, int64_t len) {
  Preimages p;
  p.start.assign(size_t(len + 1), 0);
  for (int64_t m : map)
    if (m >= 0) ++p.start[size_t(m + 1)];
  for (int64_t i = 0; i < len; ++i) p.start[size_t(i + 1)] += p.start[size_t(i)];
  p.list.resize(size_t(p.start[size_t(len)]));
  std::vector<int64_t> fill(p.start.begin(), p.start.end() - 1);
  for (size_t o = 0; o < map.size(); ++o)
    if (map[o] >= 0) p.list[size_t(fill[size_t(map[o])]++)] = int64_t(o);
  return p;
}

// dx[i] = sum over the product of the per-axis preimages of i (output positions in row-major order).
template <class T>
void pad_bp_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& dy = *c.in[1];
  const Tensor& dx = *c.out[0];
  const int64_t n = dx.numel();
  if (n == 0) return;
  if (dx.rank() == 0) {
    *dx.data<T>() = *dy.data<T>();
    return;
  }
  const int r = dx.rank();
  const PadMaps pm = pad_maps(c, x.shape, dy.shape);
  Preimages pre[NDRT_MAX_RANK];
  for (int d = 0; d < r; ++d) pre[d] = preimages(pm.map[d], x.shape.d[d]);
  const T* dyb = dy.data<T>();
  T* dxb = dx.data<T>();
  parallel_for(n, 4096, [&](int64_t b, int64_t e) {
    int64_t idx[NDRT_MAX_RANK], rem = b;
    for (int d = r - 1; d >= 0; --d) {
      idx[d] = rem % dx.shape.d[d];
      rem /= dx.shape.d[d];
    }
    for (int64_t f = b; f < e; ++f) {
      const int64_t* lists[NDRT_MAX_RANK];
      int64_t cnt[NDRT_MAX_RANK], pos[NDRT_MAX_RANK], out_off = 0;
      bool none = false;
      for (int d = 0; d < r; ++d) {
        lists[d] = pre[d].list.data() + pre[d].start[size_t(idx[d])];
        cnt[d] = pre[d].start[size_t(idx[d] + 1)] - pre[d].start[size_t(idx[d])];
        none |= cnt[d] == 0;
        pos[d] = 0;
        out_off += idx[d] * dx.strides.d[d];
      }
      double acc = 0;
      while (!none) {
        int64_t off = 0;
        for (int d = 0; d < r; ++d) off += lists[d][pos[d]] * dy.strides.d[d];
        acc += double(compute_t<T>(dyb[off]));
        int d = r - 1;
        while (d >= 0 && ++pos[d] == cnt[d]) pos[d--] = 0;
        if (d < 0) break;
      }
      dxb[out_off] = convert<T>(acc);
      for (int d = r - 1; d >= 0 && ++idx[d] == dx.shape.d[d]; --d) idx[d] = 0;
    }
  });
}

// x seen with y's rank: leading axes of size 1 (stride 0) where reps is longer than x's rank.
void tile_dims(const Tensor& x, int r, int64_t* len, int64_t* stride) {
  const int lead = r - x.rank();
  for (int d = 0; d < r; ++d) {
    len[d] = d < lead ? 1 : x.shape.d[d - lead];
    stride[d] = d < lead ? 0 : x.strides.d[d - lead];
  }
}

template <class Word>
void tile_impl(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  if (y.rank() == 0) {
    *y.data<Word>() = *x.data<Word>();
    return;
  }
  const int r = y.rank();
  int64_t xl[NDRT_MAX_RANK], xst[NDRT_MAX_RANK];
  tile_dims(x, r, xl, xst);
  const int64_t cols = y.shape.d[r - 1], rows = y.numel() / cols, m = xl[r - 1];
  const int64_t ys = y.strides.d[r - 1], xs = xst[r - 1];
  const Word* xb = x.data<Word>();
  Word* yb = y.data<Word>();
  parallel_for(rows, std::max<int64_t>(1, kElementwiseGrain / cols), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t rem = row, oy = 0, ox = 0;
      for (int d = r - 2; d >= 0; --d) {
        const int64_t k = rem % y.shape.d[d];
        rem /= y.shape.d[d];
        oy += k * y.strides.d[d];
        ox += (k % xl[d]) * xst[d];
      }
      Word* yr = yb + oy;
      const Word* xr = xb + ox;
      if (ys == 1 && xs == 1) {
        for (int64_t j = 0; j < cols; j += m) std::memcpy(yr + j, xr, size_t(std::min(m, cols - j)) * sizeof(Word));
      } else {
        for (int64_t j = 0, k = 0; j < cols; ++j, k = k + 1 == m ? 0 : k + 1) yr[j * ys] = xr[k * xs];
      }
    }
  });
}

void tile_kernel(OpContext& c) {
  by_word(c.in[0]->itemsize(), [&](auto w) { tile_impl<decltype(w)>(c); });
}

// dx[i] = sum over the rep combinations (row-major) of dy at (rep * x.shape + i): per block of dx
// elements, an f64 accumulator each and one pass over dy per combination.
template <class T>
void tile_bp_kernel(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& dy = *c.in[1];
  const Tensor& dx = *c.out[0];
  const int64_t n = dx.numel();
  if (n == 0) return;
  const int r = dy.rank();
  int64_t xl[NDRT_MAX_RANK], unused[NDRT_MAX_RANK], reps[NDRT_MAX_RANK];
  tile_dims(x, r, xl, unused);
  int64_t combos = 1;
  for (int d = 0; d < r; ++d) {
    reps[d] = dy.shape.d[d] / xl[d];  // xl[d] > 0: n > 0
    combos *= reps[d];
  }
  // x's index space with (dx, dy) strides, dx padded to dy's rank like x.
  Axes<2> ax;
  const int lead = r - dx.rank();
  for (int d = 0; d < r; ++d) ax.push(xl[d], {d < lead ? 0 : dx.strides.d[d - lead], dy.strides.d[d]});
  const T* dyb = dy.data<T>();
  T* dxb = dx.data<T>();
  const int64_t s0 = ax.inner(0), s1 = ax.inner(1);
  constexpr int64_t kBlock = 2048;
  parallel_for((n + kBlock - 1) / kBlock, 1, [&](int64_t bb, int64_t be) {
    double acc[kBlock];
    for (int64_t blk = bb; blk < be; ++blk) {
      const int64_t b = blk * kBlock, e = std::min(n, b + kBlock);
      std::fill(acc, acc + (e - b), 0.0);
      int64_t rep[NDRT_MAX_RANK] = {};
      for (int64_t k = 0; k < combos; ++k) {
        int64_t base = 0;
        for (int d = 0; d < r; ++d) base += rep[d] * xl[d] * dy.strides.d[d];
        int64_t pos = 0;
        ax.rows(b, e, [&](const int64_t* o, int64_t m) {
          const T* src = dyb + base + o[1];
          for (int64_t t = 0; t < m; ++t) acc[pos + t] += double(compute_t<T>(src[t * s1]));
          pos += m;
        });
        for (int d = r - 1; d >= 0 && ++rep[d] == reps[d]; --d) rep[d] = 0;
      }
      int64_t pos = 0;
      ax.rows(b, e, [&](const int64_t* o, int64_t m) {
        for (int64_t t = 0; t < m; ++t) dxb[o[0] + t * s0] = convert<T>(acc[pos + t]);
        pos += m;
      });
    }
  });
}

}  // namespace

void register_cpu_layout_pad(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t, bool>([&](auto t) {
    const ndrt_dtype d = dtype_of<decltype(t)>();
    r.kernel("pad", kCpu, {d}, pad_kernel, "ndrt:cpu");
    r.kernel("tile", kCpu, {d}, tile_kernel, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("pad_bp", kCpu, {dtype_of<T>()}, pad_bp_kernel<T>, "ndrt:cpu");
    r.kernel("tile_bp", kCpu, {dtype_of<T>()}, tile_bp_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
