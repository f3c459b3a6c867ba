// Helpers shared by the elementwise op tests (tests/cpp/ops/elementwise*_test.cpp).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "common/ndrt_test.hpp"

namespace elt_test {

using namespace nt;

// Integer results wrap like the kernels (two's complement); i64 values in these tests never overflow.
inline double wrap_int(double v, ndrt_dtype d) {
  int bits = (d == NDRT_I8 || d == NDRT_U8) ? 8 : d == NDRT_I32 ? 32 : 0;
  if (!bits) return v;
  double m = std::ldexp(1.0, bits);
  v = std::fmod(v, m);
  if (v < 0) v += m;
  if (d != NDRT_U8 && v >= m / 2) v -= m;
  return v;
}

// Rounds a reference value computed in f64 to what the output dtype can hold at best (ints wrap).
inline double to_dtype(double v, ndrt_dtype d) { return is_int(d) ? wrap_int(v, d) : v; }

inline std::string dname(ndrt_dtype d) { return dtype_str(d); }

inline Tol scaled(Tol t, double k) { return {t.rtol * k, t.atol * k}; }

// A generator that draws from a fixed list (ties and specials on purpose), converted to d.
inline Gen list_gen(ndrt_dtype d, std::vector<double> vals) {
  return [d, vals](std::mt19937& rng) {
    std::uniform_int_distribution<size_t> u(0, vals.size() - 1);
    double v = vals[u(rng)];
    if (d == NDRT_F32 && std::isfinite(v)) v = double(float(v));
    return v;
  };
}

// Every float and integer dtype the arithmetic ops take.
inline const std::vector<ndrt_dtype>& numeric_dtypes() {
  static const std::vector<ndrt_dtype> v = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16,
                                            NDRT_I8,  NDRT_U8,  NDRT_I32, NDRT_I64};
  return v;
}
inline const std::vector<ndrt_dtype>& float_dtypes() {
  static const std::vector<ndrt_dtype> v = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
  return v;
}

// For each element of shape `dst` (row-major), the flat index of the element of `src` that
// broadcasts to it. An odometer instead of unravel() per element: large cases stay fast.
inline std::vector<int64_t> bcast_index_map(const Shape& dst, const Shape& src) {
  const size_t r = dst.size(), off = r - src.size();
  Shape sstr = strides_of(src);
  std::vector<int64_t> step(r, 0);  // src stride seen along each dst axis (0 where broadcast)
  for (size_t i = off; i < r; ++i) step[i] = src[i - off] == 1 ? 0 : sstr[i - off];
  const int64_t n = numel_of(dst);
  std::vector<int64_t> map(size_t(n > 0 ? n : 0));
  std::vector<int64_t> idx(r, 0);
  int64_t cur = 0;
  for (int64_t f = 0; f < n; ++f) {
    map[size_t(f)] = cur;
    for (size_t k = r; k-- > 0;) {
      if (++idx[k] < dst[k]) {
        cur += step[k];
        break;
      }
      cur -= step[k] * (dst[k] - 1);
      idx[k] = 0;
    }
  }
  return map;
}

// gtest parameter names must be alphanumeric or '_'.
inline std::string param_safe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// Checks the status and that the last error message contains each of `parts`.
inline void expect_error(ndrt_status want, ndrt_status got, const std::vector<std::string>& parts) {
  EXPECT_EQ(want, got) << "returned " << describe_status(got) << ", expected " << ndrt_status_name(want);
  std::string msg = ndrt_last_error();
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nmissing: " << p;
}

}  // namespace elt_test
