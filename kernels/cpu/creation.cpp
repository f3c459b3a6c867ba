// fill, copy, cast; arange, linspace, eye on cpu.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "convert.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace ndrt {

namespace {

template <class T>
void fill_kernel(OpContext& c) {
  T v = convert<T>(c.attrs.get_float(0));
  Loop<1> L = make_loop<1>(*c.out[0], {});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    T* o = reinterpret_cast<T*>(p[0]);
    if (s[0] == 1)
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    else
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = v;
  });
}

// copy moves bytes: one kernel per element size serves every dtype.
template <class Word>
void copy_words(OpContext& c) {
  Loop<2> L = make_loop<2>(*c.out[0], {c.in[0]});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    Word* o = reinterpret_cast<Word*>(p[0]);
    const Word* x = reinterpret_cast<const Word*>(p[1]);
    if (s[0] == 1 && s[1] == 1)
      std::memcpy(o, x, size_t(n) * sizeof(Word));
    else
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = x[i * s[1]];
  });
}

void copy_kernel(OpContext& c) {
  switch (c.in[0]->itemsize()) {
    case 1: return copy_words<uint8_t>(c);
    case 2: return copy_words<uint16_t>(c);
    case 4: return copy_words<uint32_t>(c);
    default: return copy_words<uint64_t>(c);
  }
}

// A bool source is read as bytes (any non-zero byte is true: runtime/value_rules.hpp).
template <class To, class From>
void cast_loop(OpContext& c) {
  using Stored = std::conditional_t<std::is_same_v<From, bool>, uint8_t, From>;
  auto value = [](Stored v) {
    if constexpr (std::is_same_v<From, bool>) return rules::bool_byte(v);
    else return v;
  };
  Loop<2> L = make_loop<2>(*c.out[0], {c.in[0]});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const Stored* x = reinterpret_cast<const Stored*>(p[1]);
    if (s[0] == 1 && s[1] == 1)
      for (int64_t i = 0; i < n; ++i) o[i] = convert<To>(value(x[i]));
    else
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = convert<To>(value(x[i * s[1]]));
  });
}

// Keyed by the source dtype; the destination dtype is a runtime switch.
template <class From>
void cast_kernel(OpContext& c) {
  visit_dtype(c.out[0]->dtype, [&](auto to) { cast_loop<decltype(to), From>(c); });
}

// Calls f(i, p) for every element of the rank-1 output y, p pointing at y[i]; parallel for large n.
template <class T, class F>
void each_index(const Tensor& y, F&& f) {
  const int64_t n = y.shape.d[0], s = y.strides.d[0];
  T* o = y.data<T>();
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i, o + i * s);
  });
}

template <class T>
void arange_kernel(OpContext& c) {
  const double start = c.attrs.get_float(0), step = c.attrs.get_float(2);
  if constexpr (std::is_integral_v<T>) {  // exact integer arithmetic (infer checked the values' range;
    // a step is out of range only when one value is made, and then it is never used)
    const int64_t s0 = rules::float_to_int<int64_t>(start), st = rules::float_to_int<int64_t>(step);
    each_index<T>(*c.out[0], [&](int64_t i, T* p) { *p = T(s0 + i * st); });
  } else {
    each_index<T>(*c.out[0], [&](int64_t i, T* p) { *p = convert<T>(start + double(i) * step); });
  }
}

template <class T>
void linspace_kernel(OpContext& c) {
  const double start = c.attrs.get_float(0), stop = c.attrs.get_float(1);
  const int64_t num = c.out[0]->shape.d[0];
  const bool endpoint = c.attrs.get_bool(4);
  const int64_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / double(div) : 0.0;
  const int64_t half = num / 2;
  each_index<T>(*c.out[0], [&](int64_t i, T* p) {
    double v = div <= 0 || i < half || !endpoint ? start + double(i) * step : stop - double(num - 1 - i) * step;
    *p = convert<T>(v);
  });
}

template <class Word>
void eye_words(OpContext& c, Word one) {
  const Tensor& y = *c.out[0];
  const int64_t n = y.shape.d[0], m = y.shape.d[1], k = c.attrs.get_int(2);
  const int64_t s0 = y.strides.d[0], s1 = y.strides.d[1];
  if (n == 0 || m == 0) return;
  Word* base = y.data<Word>();
  parallel_for(n, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(m, 1)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      Word* row = base + i * s0;
      if (s1 == 1)
        std::memset(static_cast<void*>(row), 0, size_t(m) * sizeof(Word));
      else
        for (int64_t j = 0; j < m; ++j) row[j * s1] = Word(0);
      int64_t j = i + k;
      if (j >= 0 && j < m) row[j * s1] = one;
    }
  });
}

// eye moves words: 1 converted to the dtype, zero is all-zero bits for every dtype.
template <class T>
void eye_kernel(OpContext& c) {
  using Word = std::conditional_t<sizeof(T) == 1, uint8_t,
               std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  T one = convert<T>(1.0);
  Word w;
  std::memcpy(&w, &one, sizeof(T));
  eye_words<Word>(c, w);
}

}  // namespace

void register_cpu_creation(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t, bool>([&](auto t) {
    using T = decltype(t);
    r.kernel("fill", kCpu, {dtype_of<T>()}, fill_kernel<T>, "ndrt:cpu");
    r.kernel("copy", kCpu, {dtype_of<T>()}, copy_kernel, "ndrt:cpu");
    r.kernel("cast", kCpu, {dtype_of<T>()}, cast_kernel<T>, "ndrt:cpu");
    r.kernel("eye", kCpu, {dtype_of<T>()}, eye_kernel<T>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    r.kernel("arange", kCpu, {dtype_of<T>()}, arange_kernel<T>, "ndrt:cpu");
  });
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    r.kernel("linspace", kCpu, {dtype_of<T>()}, linspace_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
