// Helpers shared by the layout kernels (layout*.cpp): index spaces over strided operands, copies
// between views by element size, index checks. Layout ops move bytes: one instantiation per element
// size (and index type), never per dtype.
#pragma once
#include <array>
#include <atomic>
#include <cstring>
#include <limits>

#include "convert.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

void register_cpu_layout_index(Registry& r);  // layout_index.cpp: gather, scatter, one_hot
void register_cpu_layout_pad(Registry& r);    // layout_pad.cpp: pad, tile and their gradients

// An index space of K operands (outermost axis first). Size-1 axes are dropped and an axis merges
// into the previous one when every operand allows it, so row-major flat order is kept.
template <int K>
struct Axes {
  int rank = 0;
  bool empty = false;
  int64_t shape[NDRT_MAX_RANK];
  int64_t stride[K][NDRT_MAX_RANK];

  void push(int64_t n, const std::array<int64_t, K>& s) {
    if (n == 0) empty = true;
    if (n == 1) return;
    if (rank > 0) {
      bool merge = true;
      for (int k = 0; k < K; ++k) merge &= stride[k][rank - 1] == s[k] * n;
      if (merge) {
        shape[rank - 1] *= n;
        for (int k = 0; k < K; ++k) stride[k][rank - 1] = s[k];
        return;
      }
    }
    shape[rank] = n;
    for (int k = 0; k < K; ++k) stride[k][rank] = s[k];
    ++rank;
  }
  int64_t size() const {
    if (empty) return 0;
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= shape[i];
    return n;
  }
  int64_t inner(int k) const { return rank ? stride[k][rank - 1] : 1; }
  // Element offsets of flat index f (f < size()).
  void offsets(int64_t f, int64_t* off) const {
    for (int k = 0; k < K; ++k) off[k] = 0;
    for (int i = rank - 1; i >= 0; --i) {
      int64_t q = f / shape[i], r = f - q * shape[i];
      f = q;
      for (int k = 0; k < K; ++k) off[k] += r * stride[k][i];
    }
  }
  // Calls row(off, n) over runs along the innermost axis covering flat indices [b, e); off[k] is
  // the offset of the run's first element, the run steps by inner(k).
  template <class Row>
  void rows(int64_t b, int64_t e, Row&& row) const {
    if (b >= e) return;
    int64_t off[K];
    if (rank == 0) {
      for (int k = 0; k < K; ++k) off[k] = 0;
      row(static_cast<const int64_t*>(off), int64_t(1));
      return;
    }
    const int r = rank;
    int64_t idx[NDRT_MAX_RANK], rem = b;
    for (int i = r - 1; i >= 0; --i) {
      idx[i] = rem % shape[i];
      rem /= shape[i];
    }
    for (int k = 0; k < K; ++k) {
      off[k] = 0;
      for (int i = 0; i < r; ++i) off[k] += idx[i] * stride[k][i];
    }
    for (int64_t pos = b; pos < e;) {
      int64_t n = shape[r - 1] - idx[r - 1];
      if (n > e - pos) n = e - pos;
      row(static_cast<const int64_t*>(off), n);
      pos += n;
      if (pos >= e) break;
      for (int k = 0; k < K; ++k) off[k] += n * stride[k][r - 1];
      idx[r - 1] += n;
      for (int i = r - 1; i > 0 && idx[i] == shape[i]; --i) {
        for (int k = 0; k < K; ++k) off[k] += stride[k][i - 1] - shape[i] * stride[k][i];
        idx[i] = 0;
        ++idx[i - 1];
      }
    }
  }
};

// Unsigned word of an element size: layout kernels are instantiated per size, not per dtype.
template <int Size> struct WordOf;
template <> struct WordOf<1> { using type = uint8_t; };
template <> struct WordOf<2> { using type = uint16_t; };
template <> struct WordOf<4> { using type = uint32_t; };
template <> struct WordOf<8> { using type = uint64_t; };

// Calls f(Word{}) for the word type of an element size.
template <class F>
void by_word(int64_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

// Calls f(I{}) for an index dtype (i32 or i64; inference has checked it).
template <class F>
void by_index(ndrt_dtype d, F&& f) {
  if (d == NDRT_I32) return f(int32_t{});
  return f(int64_t{});
}

// The bits of `v` converted to dtype d (cast rules), in the low bytes.
inline uint64_t value_bits(ndrt_dtype d, double v) {
  uint64_t bits = 0;
  visit_dtype(d, [&](auto t) {
    auto x = convert<decltype(t)>(v);
    std::memcpy(&bits, &x, sizeof x);
  });
  return bits;
}

template <class Word>
void copy_loop(const Loop<2>& L) {
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    Word* o = reinterpret_cast<Word*>(p[0]);
    const Word* x = reinterpret_cast<const Word*>(p[1]);
    if (s[0] == 1 && s[1] == 1)
      std::memcpy(o, x, size_t(n) * sizeof(Word));
    else
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = x[i * s[1]];
  });
}

// dst = src elementwise (same shape, same element size, any strides).
inline void copy_view(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  Loop<2> L = make_loop<2>(dst, {&src});
  by_word(dst.itemsize(), [&](auto w) { copy_loop<decltype(w)>(L); });
}

inline bool same_view(const Tensor& a, const Tensor& b) {
  return a.same_view(b);
}

// Checks every index of `idx` against [lo, hi); the first bad one in row-major order fails with
// NDRT_ERR_INVALID_ARGUMENT naming it, its position and `range` (the caller's words for [lo, hi)).
template <class I>
void check_indices(const Tensor& idx, int64_t lo, int64_t hi, const char* op, const char* range) {
  Axes<1> ax;
  for (int d = 0; d < idx.rank(); ++d) ax.push(idx.shape.d[d], {idx.strides.d[d]});
  const I* base = idx.data<I>();
  std::atomic<int64_t> first{std::numeric_limits<int64_t>::max()};
  parallel_for(ax.size(), kElementwiseGrain, [&](int64_t b, int64_t e) {
    int64_t pos = b;
    ax.rows(b, e, [&](const int64_t* off, int64_t n) {
      const I* p = base + off[0];
      const int64_t s = ax.inner(0);
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = int64_t(p[i * s]);
        if (v < lo || v >= hi) {
          int64_t f = pos + i, cur = first.load();
          while (f < cur && !first.compare_exchange_weak(cur, f)) {
          }
          break;
        }
      }
      pos += n;
    });
  });
  int64_t f = first.load();
  if (f == std::numeric_limits<int64_t>::max()) return;
  int64_t at[NDRT_MAX_RANK], off = 0, rem = f;
  for (int d = idx.rank() - 1; d >= 0; --d) {
    at[d] = rem % idx.shape.d[d];
    rem /= idx.shape.d[d];
    off += at[d] * idx.strides.d[d];
  }
  fail(NDRT_ERR_INVALID_ARGUMENT, "%s: index %lld at position %s of indices is out of range %s", op,
       (long long)base[off], dims_str(at, idx.rank()).c_str(), range);
}

}  // namespace ndrt
