// fill, copy, cast on cpu.
#include <cstring>

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

template <class To, class From>
void cast_loop(OpContext& c) {
  Loop<2> L = make_loop<2>(*c.out[0], {c.in[0]});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const From* x = reinterpret_cast<const From*>(p[1]);
    if (s[0] == 1 && s[1] == 1)
      for (int64_t i = 0; i < n; ++i) o[i] = convert<To>(x[i]);
    else
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = convert<To>(x[i * s[1]]);
  });
}

// Keyed by the source dtype; the destination dtype is a runtime switch.
template <class From>
void cast_kernel(OpContext& c) {
  visit_dtype(c.out[0]->dtype, [&](auto to) { cast_loop<decltype(to), From>(c); });
}

}  // namespace

void register_cpu_creation(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t, bool>([&](auto t) {
    using T = decltype(t);
    r.kernel("fill", kCpu, {dtype_of<T>()}, fill_kernel<T>, "ndrt:cpu");
    r.kernel("copy", kCpu, {dtype_of<T>()}, copy_kernel, "ndrt:cpu");
    r.kernel("cast", kCpu, {dtype_of<T>()}, cast_kernel<T>, "ndrt:cpu");
  });
}

}  // namespace ndrt
