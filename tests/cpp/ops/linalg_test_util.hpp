// Helpers of the linalg test files: float64 GEMM references with per-element error bounds, attribute
// encoders, thread-count scoping.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/ndrt_test.hpp"

namespace lt {

using namespace nt;

// Unit roundoff of the arithmetic an op computes in (f16/bf16 compute in f32).
inline double compute_eps(ndrt_dtype d) { return d == NDRT_F64 ? 1.2e-16 : 6e-8; }

// Sets cpu.threads for a scope (tiles depend on it) and puts the old value back.
class Threads {
 public:
  explicit Threads(int n) {
    char buf[32];
    size_t need = 0;
    NT_CHECK(ndrt_config_get("cpu.threads", buf, sizeof buf, &need));
    old_ = buf;
    NT_CHECK(ndrt_config_set("cpu.threads", std::to_string(n).c_str()));
  }
  ~Threads() { ndrt_config_set("cpu.threads", old_.c_str()); }

 private:
  std::string old_;
};

// op(a) @ op(b) in float64 for batched row-major values; `bound` gets an error bound per element
// (eps * sqrt(K) * sum |terms|) for the accumulation in the op's compute type.
struct Ref {
  Shape out;
  int64_t m = 0, n = 0, k = 0;
  std::vector<double> v, bound;
};

inline Ref product_ref(const std::vector<double>& a, const Shape& sa, const std::vector<double>& b, const Shape& sb,
                       bool ta, bool tb, double eps) {
  const size_t ra = sa.size(), rb = sb.size();
  Ref r;
  r.m = ta ? sa[ra - 1] : sa[ra - 2];
  r.k = ta ? sa[ra - 2] : sa[ra - 1];
  r.n = tb ? sb[rb - 2] : sb[rb - 1];
  const int64_t M = r.m, K = r.k, N = r.n;
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  Shape batch = broadcast(ba, bb);
  r.out = batch;
  r.out.push_back(M);
  r.out.push_back(N);
  const int64_t nb = numel_of(batch);
  r.v.assign(size_t(nb * M * N), 0);
  r.bound.assign(r.v.size(), 0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    std::vector<int64_t> idx = unravel(bi, batch);
    const int64_t ia = broadcast_index(idx, batch, ba) * M * K, ib = broadcast_index(idx, batch, bb) * K * N;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0, mag = 0;
        for (int64_t l = 0; l < K; ++l) {
          double x = a[size_t(ia + (ta ? l * M + i : i * K + l))];
          double y = b[size_t(ib + (tb ? j * K + l : l * N + j))];
          acc += x * y;
          mag += std::fabs(x * y);
        }
        size_t o = size_t((bi * M + i) * N + j);
        r.v[o] = acc;
        r.bound[o] = eps * std::sqrt(double(std::max<int64_t>(K, 1))) * mag;
      }
  }
  return r;
}

// Last two axes of s swapped (shapes are given untransposed, then flipped for the flags).
inline Shape flip_last(Shape s) {
  if (s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

}  // namespace lt
