// Reductions on cpu. The input's axes split into kept (one output element per index) and reduced
// (folded into it). Two loop orders:
//  - rows: the reduced run is innermost in memory; each output folds its own run, 8 accumulator
//    lanes so the fold vectorises. Few outputs with many elements each split the run across threads.
//  - columns: the kept axis is innermost (e.g. summing a [N, C] tensor over N); a tile of outputs is
//    updated per reduced element, so memory is read in order.
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

namespace {

template <class T>
struct SumOp {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  static Acc init() { return 0; }
  static Acc step(Acc a, T x) { return a + Acc(x); }
  static Acc combine(Acc a, Acc b) { return a + b; }
  static T finish(Acc a, int64_t) { return T(a); }
};

template <class T>
struct MeanOp : SumOp<T> {
  static T finish(double a, int64_t n) { return T(a / double(n)); }  // n = 0 gives NaN
};

template <class T>
struct MaxOp {
  using Acc = T;
  static Acc init() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
  static Acc step(Acc a, T x) { return (x > a || x != x) ? x : a; }  // NaN sticks
  static Acc combine(Acc a, Acc b) { return step(a, b); }
  static T finish(Acc a, int64_t) { return a; }
};

// Axes of one index space (kept or reduced), size-1 axes dropped and mergeable axes merged.
struct Space {
  int rank = 0;
  int64_t shape[NDRT_MAX_RANK];
  int64_t sx[NDRT_MAX_RANK];  // input strides
  int64_t sy[NDRT_MAX_RANK];  // output strides (kept space only)
  int64_t size() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= shape[i];
    return n;
  }
  void push(int64_t n, int64_t x, int64_t y) {
    if (n == 1) return;
    if (rank > 0 && sx[rank - 1] == x * n && sy[rank - 1] == y * n) {
      shape[rank - 1] *= n;
      sx[rank - 1] = x;
      sy[rank - 1] = y;
      return;
    }
    shape[rank] = n;
    sx[rank] = x;
    sy[rank] = y;
    ++rank;
  }
  // Input and output element offsets of flat index f.
  void offsets(int64_t f, int64_t& ox, int64_t& oy) const {
    ox = oy = 0;
    for (int i = rank - 1; i >= 0; --i) {
      int64_t k = f % shape[i];
      f /= shape[i];
      ox += k * sx[i];
      oy += k * sy[i];
    }
  }
};

// Calls seg(offset, n, stride) over the runs of the space's flat indices [b, e) (input offsets).
template <class Seg>
void walk(const Space& s, int64_t b, int64_t e, Seg&& seg) {
  if (s.rank == 0) {
    if (b < e) seg(int64_t(0), int64_t(1), int64_t(1));
    return;
  }
  int r = s.rank;
  int64_t idx[NDRT_MAX_RANK], rem = b, off = 0;
  for (int i = r - 1; i >= 0; --i) {
    idx[i] = rem % s.shape[i];
    rem /= s.shape[i];
    off += idx[i] * s.sx[i];
  }
  for (int64_t pos = b; pos < e;) {
    int64_t n = std::min(s.shape[r - 1] - idx[r - 1], e - pos);
    seg(off, n, s.sx[r - 1]);
    pos += n;
    off += n * s.sx[r - 1];
    idx[r - 1] += n;
    for (int i = r - 1; i > 0 && idx[i] == s.shape[i]; --i) {
      off += s.sx[i - 1] - s.shape[i] * s.sx[i];
      idx[i] = 0;
      ++idx[i - 1];
    }
  }
}

template <class T, class R>
typename R::Acc fold_run(const T* x, int64_t n, int64_t stride, typename R::Acc acc) {
  using Acc = typename R::Acc;
  if (stride != 1) {
    for (int64_t i = 0; i < n; ++i) acc = R::step(acc, x[i * stride]);
    return acc;
  }
  Acc lane[8];
  for (auto& l : lane) l = R::init();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) lane[l] = R::step(lane[l], x[i + l]);
  for (; i < n; ++i) lane[0] = R::step(lane[0], x[i]);
  for (int l = 0; l < 8; ++l) acc = R::combine(acc, lane[l]);
  return acc;
}

template <class T, class R>
void reduce_kernel(OpContext& c) {
  using Acc = typename R::Acc;
  const Tensor& x = *c.in[0];
  Tensor& y = *c.out[0];
  const Attrs& a = c.attrs;
  uint32_t mask = 0;
  if (a.list_size(0) == 0)
    mask = x.rank() ? (1u << x.rank()) - 1 : 0;
  else
    for (int i = 0; i < a.list_size(0); ++i) {
      int64_t ax = a.list_data(0)[i];
      mask |= 1u << (ax < 0 ? ax + x.rank() : ax);
    }
  bool keep = a.get_bool(1);
  Space kept, red;
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    bool reduced = mask & (1u << i);
    if (reduced) {
      red.push(x.shape.d[i], x.strides.d[i], 0);
      if (keep) ++j;
    } else {
      kept.push(x.shape.d[i], x.strides.d[i], y.strides.d[j++]);
    }
  }
  const int64_t M = kept.size(), N = red.size();
  if (M == 0) return;
  const T* xb = x.data<T>();
  T* yb = y.data<T>();

  const bool columns = kept.rank > 0 && kept.sx[kept.rank - 1] == 1 && (red.rank == 0 || red.sx[red.rank - 1] != 1);
  if (columns && N > 0) {
    constexpr int64_t kTile = 256;
    const int64_t inner = kept.shape[kept.rank - 1], ys = kept.sy[kept.rank - 1];
    Space outer = kept;
    outer.rank -= 1;
    const int64_t tiles_per_row = (inner + kTile - 1) / kTile, tiles = outer.size() * tiles_per_row;
    parallel_for(tiles, std::max<int64_t>(1, kElementwiseGrain / (N * kTile)), [&](int64_t b, int64_t e) {
      Acc acc[kTile];
      for (int64_t t = b; t < e; ++t) {
        int64_t ox, oy;
        outer.offsets(t / tiles_per_row, ox, oy);
        const int64_t j0 = (t % tiles_per_row) * kTile, w = std::min(kTile, inner - j0);
        for (int64_t j = 0; j < w; ++j) acc[j] = R::init();
        walk(red, 0, N, [&](int64_t off, int64_t n, int64_t s) {
          for (int64_t i = 0; i < n; ++i) {
            const T* row = xb + ox + j0 + off + i * s;
            for (int64_t j = 0; j < w; ++j) acc[j] = R::step(acc[j], row[j]);
          }
        });
        for (int64_t j = 0; j < w; ++j) yb[oy + (j0 + j) * ys] = R::finish(acc[j], N);
      }
    });
    return;
  }

  auto fold_output = [&](int64_t m, int64_t rb, int64_t re) {
    int64_t ox, oy;
    kept.offsets(m, ox, oy);
    Acc acc = R::init();
    walk(red, rb, re, [&](int64_t off, int64_t n, int64_t s) { acc = fold_run<T, R>(xb + ox + off, n, s, acc); });
    return acc;
  };
  const int64_t threads = cpu_threads();
  if (M < threads && N >= 4 * kElementwiseGrain) {
    // Few long folds: split each fold across threads, then combine the partial results.
    for (int64_t m = 0; m < M; ++m) {
      const int64_t parts = threads;
      std::vector<Acc> partial(size_t(parts), R::init());
      parallel_for(parts, 1, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) partial[size_t(p)] = fold_output(m, N * p / parts, N * (p + 1) / parts);
      });
      Acc acc = R::init();
      for (Acc v : partial) acc = R::combine(acc, v);
      int64_t ox, oy;
      kept.offsets(m, ox, oy);
      yb[oy] = R::finish(acc, N);
    }
    return;
  }
  parallel_for(M, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(N, 1)), [&](int64_t b, int64_t e) {
    for (int64_t m = b; m < e; ++m) {
      int64_t ox, oy;
      kept.offsets(m, ox, oy);
      yb[oy] = R::finish(N ? fold_output(m, 0, N) : R::init(), N);
    }
  });
}

}  // namespace

void register_cpu_reduce(Registry& r) {
  for_types<float, double, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    r.kernel("sum", kCpu, {dtype_of<T>()}, reduce_kernel<T, SumOp<T>>, "ndrt:cpu");
    r.kernel("max", kCpu, {dtype_of<T>()}, reduce_kernel<T, MaxOp<T>>, "ndrt:cpu");
  });
  for_types<float, double>([&](auto t) {
    using T = decltype(t);
    r.kernel("mean", kCpu, {dtype_of<T>()}, reduce_kernel<T, MeanOp<T>>, "ndrt:cpu");
  });
}

}  // namespace ndrt
