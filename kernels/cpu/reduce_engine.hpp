// The cpu reduction engine, shared by the reduce ops (kernels/cpu/reduce*.cpp) and the norm and
// loss kernels. The input's axes split into kept (one output element per index) and reduced
// (folded into it). Two loop orders:
//  - rows: the reduced run is innermost in memory; each output folds its own run, 8 accumulator
//    lanes so the fold vectorises. Few outputs with many elements each split the run across threads.
//  - columns: the kept axis is innermost (e.g. summing a [N, C] tensor over N); a tile of outputs is
//    updated per reduced element, so memory is read in order.
//
// A reduction R supplies: Acc, Out, init(), step(acc, x, i, p) (x in the compute type, i the flat
// index of x in the reduced space, row-major over the reduced axes, p a per-output parameter from an
// earlier pass, e.g. the max for logsumexp), combine(a, b) (a holds the lower indices) and
// finish(acc, n, p) -> Out. Optionally fold_contig(x, n, i0, p, acc) for a contiguous run.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "convert.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_reduce_stats(Registry& r);  // kernels/cpu/reduce_stats.cpp
void register_cpu_reduce_arg(Registry& r);    // kernels/cpu/reduce_arg.cpp
void register_cpu_reduce_bp(Registry& r);     // kernels/cpu/reduce_bp.cpp

namespace red {

// One element in its compute type (f16/bf16 -> float, with the F16C instruction where built for it).
template <class T>
inline compute_t<T> load(const T& v) {
  if constexpr (std::is_same_v<T, Half>) {
#if defined(__F16C__)
    return _cvtsh_ss(v.bits);
#else
    return static_cast<float>(v);
#endif
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// The accumulator of sums: f64 for f32/f64 (as sum always did), f32 for f16/bf16, i64 for integers.
template <class T>
using sum_acc_t = std::conditional_t<
    std::is_integral_v<T>, int64_t,
    std::conditional_t<std::is_same_v<compute_t<T>, float> && !std::is_same_v<T, float>, float, double>>;

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

// Calls seg(offset, n, stride, pos) over the runs of the space's flat indices [b, e): input offset
// of the run's first element, its length and stride, and the flat index of its first element.
template <class Seg>
void walk(const Space& s, int64_t b, int64_t e, Seg&& seg) {
  if (s.rank == 0) {
    if (b < e) seg(int64_t(0), int64_t(1), int64_t(1), int64_t(0));
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
    seg(off, n, s.sx[r - 1], pos);
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

// A reduction of x over the axes in `mask`. ystrides: the output's strides, one per output axis
// (reduced axes included when keep). The flat kept index m is row-major over the kept axes.
struct Plan {
  Space kept, red;
  int64_t M = 0, N = 0;
};

inline Plan make_plan(const Tensor& x, uint32_t mask, const int64_t* ystrides, bool keep) {
  Plan p;
  for (int i = 0, j = 0; i < x.rank(); ++i) {
    if (mask & (1u << i)) {
      p.red.push(x.shape.d[i], x.strides.d[i], 0);
      if (keep) ++j;
    } else {
      p.kept.push(x.shape.d[i], x.strides.d[i], ystrides[j++]);
    }
  }
  p.M = p.kept.size();
  p.N = p.red.size();
  return p;
}

// Plan writing a contiguous buffer indexed by the flat kept index (the first pass of two-pass
// reductions).
inline Plan make_flat_plan(const Tensor& x, uint32_t mask) {
  int64_t st[NDRT_MAX_RANK];
  int k = 0;
  for (int i = 0; i < x.rank(); ++i)
    if (!(mask & (1u << i))) ++k;
  int64_t acc = 1;
  for (int i = x.rank() - 1, j = k - 1; i >= 0; --i)
    if (!(mask & (1u << i))) {
      st[j--] = acc;
      acc *= x.shape.d[i];
    }
  return make_plan(x, mask, st, false);
}

// The `axes` attribute (empty = all) as a mask; the op's shape function validated it.
inline uint32_t axes_mask(const Attrs& a, int k, int rank) {
  if (a.list_size(k) == 0) return rank ? (1u << rank) - 1 : 0;
  uint32_t mask = 0;
  for (int i = 0; i < a.list_size(k); ++i) {
    int64_t ax = a.list_data(k)[i];
    mask |= 1u << (ax < 0 ? ax + rank : ax);
  }
  return mask;
}

template <class R, class T, class P, class = void>
struct has_fold_contig : std::false_type {};
template <class R, class T, class P>
struct has_fold_contig<R, T, P,
                       std::void_t<decltype(R::fold_contig(std::declval<const T*>(), int64_t(0), int64_t(0),
                                                           std::declval<P>(), std::declval<typename R::Acc>()))>>
    : std::true_type {};

// The generic fold of a contiguous run: 8 accumulator lanes, combined at the end.
template <class T, class R, class P>
typename R::Acc fold_lanes(const T* x, int64_t n, int64_t i0, P p, typename R::Acc acc) {
  using Acc = typename R::Acc;
  Acc lane[8];
  for (auto& l : lane) l = R::init();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) lane[l] = R::step(lane[l], load(x[i + l]), i0 + i + l, p);
  for (; i < n; ++i) lane[i & 7] = R::step(lane[i & 7], load(x[i]), i0 + i, p);
  for (int l = 0; l < 8; ++l) acc = R::combine(acc, lane[l]);
  return acc;
}

// Folds one run; R::fold_contig, where R has one, takes contiguous runs (hand-vectorised folds).
template <class T, class R, class P>
typename R::Acc fold_run(const T* x, int64_t n, int64_t stride, int64_t i0, P p, typename R::Acc acc) {
  if (stride != 1) {
    for (int64_t i = 0; i < n; ++i) acc = R::step(acc, load(x[i * stride]), i0 + i, p);
    return acc;
  }
  if constexpr (has_fold_contig<R, T, P>::value)
    return R::fold_contig(x, n, i0, p, acc);
  else
    return fold_lanes<T, R>(x, n, i0, p, acc);
}

// R::kGroup4 (f32 sums): the column path may add 4 reduced rows in f32 before accumulating.
template <class R, class = void>
struct group4 : std::false_type {};
template <class R>
struct group4<R, std::void_t<decltype(R::kGroup4)>> : std::bool_constant<R::kGroup4> {};
template <class R>
constexpr bool kGroup4 = group4<R>::value;

// f32 and f64 (not f16/bf16, whose loads do not vectorise) take the hand-written folds.
template <class T>
constexpr bool kPlainFloat = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Reduced elements per chunk of a long fold (see reduce_exec).
constexpr int64_t kFoldChunk = int64_t(1) << 16;

struct NoParam {
  int operator()(int64_t) const { return 0; }
};

// Runs reduction R of plan `p` over input xb into yb (addressed through the kept space's output
// strides); param(m) gives the parameter of output m.
template <class T, class R, class PF = NoParam>
void reduce_exec(const Plan& p, const T* xb, typename R::Out* yb, PF param = PF()) {
  using Acc = typename R::Acc;
  using P = decltype(param(int64_t(0)));
  const Space &kept = p.kept, &red = p.red;
  const int64_t M = p.M, N = p.N;
  if (M == 0) return;

  const bool columns = kept.rank > 0 && kept.sx[kept.rank - 1] == 1 && (red.rank == 0 || red.sx[red.rank - 1] != 1);
  if (columns && N > 0) {
    // Wide tiles (few pages touched per reduced element), narrowed so every thread gets one. The
    // tile width does not change any output's accumulation order.
    constexpr int64_t kMaxTile = 2048;
    const int64_t inner = kept.shape[kept.rank - 1], ys = kept.sy[kept.rank - 1];
    Space outer = kept;
    outer.rank -= 1;
    const int64_t per_thread = (inner * outer.size() + cpu_threads() - 1) / cpu_threads();
    const int64_t tile = std::min(kMaxTile, std::max<int64_t>(64, (per_thread + 63) / 64 * 64));
    const int64_t tiles_per_row = (inner + tile - 1) / tile, tiles = outer.size() * tiles_per_row;
    parallel_for(tiles, std::max<int64_t>(1, kElementwiseGrain / (N * tile)), [&](int64_t b, int64_t e) {
      Acc acc[kMaxTile];
      P prm[kMaxTile];
      for (int64_t t = b; t < e; ++t) {
        int64_t ox, oy;
        const int64_t o = t / tiles_per_row;
        outer.offsets(o, ox, oy);
        const int64_t j0 = (t % tiles_per_row) * tile, w = std::min(tile, inner - j0);
        for (int64_t j = 0; j < w; ++j) {
          acc[j] = R::init();
          prm[j] = param(o * inner + j0 + j);
        }
        walk(red, 0, N, [&](int64_t off, int64_t n, int64_t s, int64_t pos) {
          int64_t i = 0;
          if constexpr (kGroup4<R>) {  // f32 sums: 4 rows added in f32, then into the f64 accumulator
            for (; i + 4 <= n; i += 4) {
              const T* r0 = xb + ox + j0 + off + i * s;
              const T *r1 = r0 + s, *r2 = r1 + s, *r3 = r2 + s;
              for (int64_t j = 0; j < w; ++j) acc[j] += Acc((r0[j] + r1[j]) + (r2[j] + r3[j]));
            }
          }
          for (; i < n; ++i) {
            const T* row = xb + ox + j0 + off + i * s;
            for (int64_t j = 0; j < w; ++j) acc[j] = R::step(acc[j], load(row[j]), pos + i, prm[j]);
          }
        });
        for (int64_t j = 0; j < w; ++j) yb[oy + (j0 + j) * ys] = R::finish(acc[j], N, prm[j]);
      }
    });
    return;
  }

  auto fold_range = [&](int64_t m, int64_t rb, int64_t re, P prm) {
    int64_t ox, oy;
    kept.offsets(m, ox, oy);
    Acc acc = R::init();
    walk(red, rb, re, [&](int64_t off, int64_t n, int64_t s, int64_t pos) {
      acc = fold_run<T, R>(xb + ox + off, n, s, pos, prm, acc);
    });
    return acc;
  };
  // A long fold is cut into chunks at fixed multiples of kFoldChunk whose results combine in order,
  // whether one thread runs them all or several share them: the result never depends on the
  // thread count.
  const int64_t chunks = (N + kFoldChunk - 1) / kFoldChunk;
  auto fold_output = [&](int64_t m, P prm) {
    if (chunks <= 1) return fold_range(m, 0, N, prm);
    Acc acc = R::init();
    for (int64_t q = 0; q < chunks; ++q)
      acc = R::combine(acc, fold_range(m, q * kFoldChunk, std::min(N, (q + 1) * kFoldChunk), prm));
    return acc;
  };
  const int64_t threads = cpu_threads();
  if (M < threads && chunks > 1) {
    // Few long folds: the chunks of each are shared among the threads, kParts at a time (one pool
    // dispatch per 64M elements: a worker woken late leaves its share to the caller each time).
    constexpr int64_t kParts = 1024;
    for (int64_t m = 0; m < M; ++m) {
      const P prm = param(m);
      Acc acc = R::init();
      for (int64_t q0 = 0; q0 < chunks; q0 += kParts) {
        const int64_t parts = std::min(kParts, chunks - q0);
        Acc partial[kParts];
        parallel_for(parts, 1, [&](int64_t b, int64_t e) {
          for (int64_t q = b; q < e; ++q)
            partial[q] = fold_range(m, (q0 + q) * kFoldChunk, std::min(N, (q0 + q + 1) * kFoldChunk), prm);
        });
        for (int64_t q = 0; q < parts; ++q) acc = R::combine(acc, partial[q]);
      }
      int64_t ox, oy;
      kept.offsets(m, ox, oy);
      yb[oy] = R::finish(acc, N, prm);
    }
    return;
  }
  parallel_for(M, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(N, 1)), [&](int64_t b, int64_t e) {
    for (int64_t m = b; m < e; ++m) {
      int64_t ox, oy;
      kept.offsets(m, ox, oy);
      const P prm = param(m);
      yb[oy] = R::finish(N ? fold_output(m, prm) : R::init(), N, prm);
    }
  });
}

// Runs R over x into the op's output 0 with attributes {axes, keepdims, ...}.
template <class T, class R, class PF = NoParam>
void reduce_into_output(OpContext& c, uint32_t mask, bool keep, PF param = PF()) {
  const Tensor& x = *c.in[0];
  Tensor& y = *c.out[0];
  Plan p = make_plan(x, mask, y.strides.d, keep);
  reduce_exec<T, R>(p, x.data<T>(), y.data<typename R::Out>(), param);
}

}  // namespace red
}  // namespace ndrt
