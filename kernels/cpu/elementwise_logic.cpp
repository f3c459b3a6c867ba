// Comparisons, logical ops (bool outputs) and where on cpu. bool inputs are read as bytes (uint8_t)
// and mean their truth (runtime/value_rules.hpp): a byte that is neither 0 nor 1 is true, never
// undefined behaviour.
#include <cstring>

#include "elementwise_map.hpp"

namespace ndrt {

namespace {

using namespace elt;

template <class C> bool truth(C x) { return x != C(0); }  // NaN is true

struct Eq : NoAttrs { template <class C> static bool f(C a, C b, const Params<C>&) { return a == b; } };
struct Ne : NoAttrs { template <class C> static bool f(C a, C b, const Params<C>&) { return a != b; } };
struct Lt : NoAttrs { template <class C> static bool f(C a, C b, const Params<C>&) { return a < b; } };
struct Le : NoAttrs { template <class C> static bool f(C a, C b, const Params<C>&) { return a <= b; } };
struct Gt : NoAttrs { template <class C> static bool f(C a, C b, const Params<C>&) { return a > b; } };
struct Ge : NoAttrs { template <class C> static bool f(C a, C b, const Params<C>&) { return a >= b; } };
struct And : NoAttrs {
  template <class C> static bool f(C a, C b, const Params<C>&) { return truth(a) && truth(b); }
};
struct Or : NoAttrs {
  template <class C> static bool f(C a, C b, const Params<C>&) { return truth(a) || truth(b); }
};
struct Xor : NoAttrs {
  template <class C> static bool f(C a, C b, const Params<C>&) { return truth(a) != truth(b); }
};
struct Not : NoAttrs {
  template <class C> static bool f(C x, const Params<C>&) { return !truth(x); }
};

// where selects bits: one kernel per element size serves every dtype.
template <class Word>
void where_kernel(OpContext& c) {
  Loop<4> L = make_loop<4>(*c.out[0], {c.in[0], c.in[1], c.in[2]});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    Word* o = reinterpret_cast<Word*>(p[0]);
    const uint8_t* k = reinterpret_cast<const uint8_t*>(p[1]);
    const Word* a = reinterpret_cast<const Word*>(p[2]);
    const Word* b = reinterpret_cast<const Word*>(p[3]);
    if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = k[i] ? a[i] : b[i];
    } else if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 0) {
      const Word bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = k[i] ? a[i] : bv;
    } else if (s[0] == 1 && s[1] == 1 && s[2] == 0 && s[3] == 1) {
      const Word av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = k[i] ? av : b[i];
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = k[i * s[1]] ? a[i * s[2]] : b[i * s[3]];
    }
  });
}

// A comparison of bool bytes compares their truth values (0x21 == 0x01: both true).
template <class Op>
struct OnTruth : NoAttrs {
  template <class C> static bool f(C a, C b, const Params<C>&) { return Op::f(truth(a), truth(b), Params<bool>{}); }
};
template <class Op>
using AsIs = Op;

// K: the storage type the kernel reads (uint8_t for bool); Cmp wraps the comparisons.
template <class T, class K, template <class> class Cmp>
void register_logic(Registry& r) {
  const ndrt_dtype d = dtype_of<T>();
  r.kernel("eq", kCpu, {d}, binary_kernel<K, bool, Cmp<Eq>>, "ndrt:cpu");
  r.kernel("ne", kCpu, {d}, binary_kernel<K, bool, Cmp<Ne>>, "ndrt:cpu");
  r.kernel("lt", kCpu, {d}, binary_kernel<K, bool, Cmp<Lt>>, "ndrt:cpu");
  r.kernel("le", kCpu, {d}, binary_kernel<K, bool, Cmp<Le>>, "ndrt:cpu");
  r.kernel("gt", kCpu, {d}, binary_kernel<K, bool, Cmp<Gt>>, "ndrt:cpu");
  r.kernel("ge", kCpu, {d}, binary_kernel<K, bool, Cmp<Ge>>, "ndrt:cpu");
  r.kernel("logical_and", kCpu, {d}, binary_kernel<K, bool, And>, "ndrt:cpu");
  r.kernel("logical_or", kCpu, {d}, binary_kernel<K, bool, Or>, "ndrt:cpu");
  r.kernel("logical_xor", kCpu, {d}, binary_kernel<K, bool, Xor>, "ndrt:cpu");
  r.kernel("logical_not", kCpu, {d}, unary_kernel<K, bool, Not>, "ndrt:cpu");
}

}  // namespace

void register_cpu_elementwise_logic(Registry& r) {
  for_types<float, double, Half, BFloat16, int8_t, uint8_t, int32_t, int64_t>([&](auto t) {
    using T = decltype(t);
    register_logic<T, T, AsIs>(r);
  });
  register_logic<bool, uint8_t, OnTruth>(r);
  r.kernel("where", kCpu, {NDRT_F64, NDRT_I64}, where_kernel<uint64_t>, "ndrt:cpu");
  r.kernel("where", kCpu, {NDRT_F32, NDRT_I32}, where_kernel<uint32_t>, "ndrt:cpu");
  r.kernel("where", kCpu, {NDRT_F16, NDRT_BF16}, where_kernel<uint16_t>, "ndrt:cpu");
  r.kernel("where", kCpu, {NDRT_I8, NDRT_U8, NDRT_BOOL}, where_kernel<uint8_t>, "ndrt:cpu");
}

}  // namespace ndrt
