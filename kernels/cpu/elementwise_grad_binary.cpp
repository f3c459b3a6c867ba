// Gradients of the broadcasting binary ops (add_bp, sub_bp, mul_bp, div_bp, maximum_bp, minimum_bp,
// pow_bp). For each of da and db:
//  - its input has dy's shape (no broadcasting on that side): the partial derivative times dy is
//    written straight into it, one pass over the strided operands;
//  - otherwise the partial times dy goes into a dense scratch of dy's shape in the compute type,
//    then the reduce engine sums it back over the broadcast axes into the output (f64
//    accumulation, one rounding). add and sub need no scratch: they sum dy itself back.
#include <cmath>

#include "elementwise_map.hpp"
#include "kernels.hpp"
#include "reduce_engine.hpp"
#include "reduce_math.hpp"

namespace ndrt {

namespace {

// Sum of Ts values into To (negated for Neg), accumulated in f64.
template <class Ts, class To, bool Neg>
struct SumBack {
  using C = compute_t<Ts>;
  using Acc = double;
  using Out = To;
  static constexpr bool kGroup4 = std::is_same_v<Ts, float>;  // as sum: 4 rows in f32, then f64
  static Acc init() { return 0; }
  template <class P>
  static Acc step(Acc a, C x, int64_t, P) {
    return a + double(x);
  }
  static Acc combine(Acc a, Acc b) { return a + b; }
  template <class P>
  static Acc fold_contig(const Ts* x, int64_t n, int64_t, P, Acc acc) {
    if constexpr (red::kPlainFloat<Ts>) {
      return acc + red::run_sum<double>(x, n);
    } else {
      red::for_float_blocks(x, n, [&](const float* b, int64_t k, int64_t) { acc += red::run_sum<double>(b, k); });
      return acc;
    }
  }
  template <class P>
  static Out finish(Acc a, int64_t, P) {
    return convert<To>(Neg ? -a : a);
  }
};

// out (rank <= src's, numpy-broadcastable to src) = sum of src over the axes out was broadcast along.
template <class Ts, class To, bool Neg>
void sum_back(const Tensor& src, const Tensor& out) {
  const int r = src.rank(), off = r - out.rank();
  uint32_t mask = 0;
  int64_t ys[NDRT_MAX_RANK];
  for (int i = 0; i < r; ++i) {
    const bool lead = i < off;
    if (lead || out.shape.d[i - off] == 1) mask |= 1u << i;
    ys[i] = lead ? 0 : out.strides.d[i - off];
  }
  const red::Plan p = red::make_plan(src, mask, ys, true);
  red::reduce_exec<Ts, SumBack<Ts, To, Neg>>(p, src.data<Ts>(), out.data<To>());
}

// out = Op::g<K>(a, b, dy) over dy's shape (a, b broadcast), rounded to To (T, or the compute type
// for the scratch). Rows run in blocks converted to the compute type (elementwise_map.hpp), so the
// arithmetic loop vectorises for every dtype; a broadcast operand (stride 0) is read once.
template <class T, class To, class Op, int K>
void grad_into(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& dy) {
  using C = compute_t<T>;
  constexpr int64_t B = elt::kBlock;
  Loop<4> L = make_loop<4>(out, {&a, &b, &dy});
  run_loop(L, [&](char** p, int64_t n, const int64_t* s) {
    To* o = reinterpret_cast<To*>(p[0]);
    const T* ap = reinterpret_cast<const T*>(p[1]);
    const T* bp = reinterpret_cast<const T*>(p[2]);
    const T* gp = reinterpret_cast<const T*>(p[3]);
    C ab[B], bb[B], gb[B], yb[B];
    const C as = red::load(*ap), bs = red::load(*bp);
    for (int64_t off = 0; off < n; off += B) {
      const int64_t m = std::min(B, n - off);
      if (s[1]) elt::load(ab, ap + off * s[1], s[1], m);
      if (s[2]) elt::load(bb, bp + off * s[2], s[2], m);
      elt::load(gb, gp + off * s[3], s[3], m);
      if (s[1] && s[2]) {
        for (int64_t i = 0; i < m; ++i) yb[i] = Op::template g<K>(ab[i], bb[i], gb[i]);
      } else if (s[2]) {
        for (int64_t i = 0; i < m; ++i) yb[i] = Op::template g<K>(as, bb[i], gb[i]);
      } else if (s[1]) {
        for (int64_t i = 0; i < m; ++i) yb[i] = Op::template g<K>(ab[i], bs, gb[i]);
      } else {
        for (int64_t i = 0; i < m; ++i) yb[i] = Op::template g<K>(as, bs, gb[i]);
      }
      elt::store(o + off * s[0], s[0], yb, m);
    }
  });
}

// Partial derivatives times dy: g<0> for a, g<1> for b. kPass: the partial is +-1 (add, sub), so
// the sum-back reads dy itself; kNegB: b's is -1.
struct AddBp {
  static constexpr bool kPass = true, kNegB = false;
  template <int K, class C>
  static C g(C, C, C dy) {
    return dy;
  }
};
struct SubBp {
  static constexpr bool kPass = true, kNegB = true;
  template <int K, class C>
  static C g(C, C, C dy) {
    return K == 0 ? dy : -dy;
  }
};
struct MulBp {
  static constexpr bool kPass = false;
  template <int K, class C>
  static C g(C a, C b, C dy) {
    return K == 0 ? dy * b : dy * a;
  }
};
struct DivBp {
  static constexpr bool kPass = false;
  template <int K, class C>
  static C g(C a, C b, C dy) {
    const C q = dy / b;
    return K == 0 ? q : -q * (a / b);
  }
};
// dy goes to the side the forward picked ((a > b || a != a) ? a : b for maximum); ties split it.
template <bool Less>
struct ExtremeBp {
  static constexpr bool kPass = false;
  template <int K, class C>
  static C g(C a, C b, C dy) {
    if (a == b) return dy * C(0.5);
    const bool a_wins = (Less ? a < b : a > b) || a != a;
    return (K == 0) == a_wins ? dy : C(0);
  }
};
struct PowBp {
  static constexpr bool kPass = false;
  template <int K, class C>
  static C g(C a, C b, C dy) {
    if constexpr (K == 0)
      return b == C(0) ? C(0) : dy * (b * std::pow(a, b - C(1)));
    else
      return (a == C(0) && b >= C(0)) ? C(0) : dy * (std::pow(a, b) * std::log(a));
  }
};

template <class T, class Op, int K>
void one_side(const OpContext& c, Tensor& scratch) {
  using C = compute_t<T>;
  const Tensor &a = *c.in[0], &b = *c.in[1], &dy = *c.in[2], &out = *c.out[K];
  if (out.numel() == 0) return;
  if (out.shape == dy.shape) return grad_into<T, T, Op, K>(out, a, b, dy);
  if constexpr (Op::kPass) {
    sum_back<T, T, K == 1 && Op::kNegB>(dy, out);
  } else {
    if (!scratch.storage) scratch = alloc_tensor(dtype_of<C>(), dy.shape, c.device);  // first side that needs it
    grad_into<T, C, Op, K>(scratch, a, b, dy);
    sum_back<C, T, false>(scratch, out);
  }
}

template <class T, class Op>
void binary_bp_kernel(OpContext& c) {
  Tensor scratch;  // shared by the two sides
  one_side<T, Op, 0>(c, scratch);
  one_side<T, Op, 1>(c, scratch);
}

}  // namespace

void register_cpu_elementwise_grad_binary(Registry& r) {
  for_types<float, double, Half, BFloat16>([&](auto t) {
    using T = decltype(t);
    const ndrt_dtype d = dtype_of<T>();
    r.kernel("add_bp", kCpu, {d}, binary_bp_kernel<T, AddBp>, "ndrt:cpu");
    r.kernel("sub_bp", kCpu, {d}, binary_bp_kernel<T, SubBp>, "ndrt:cpu");
    r.kernel("mul_bp", kCpu, {d}, binary_bp_kernel<T, MulBp>, "ndrt:cpu");
    r.kernel("div_bp", kCpu, {d}, binary_bp_kernel<T, DivBp>, "ndrt:cpu");
    r.kernel("maximum_bp", kCpu, {d}, binary_bp_kernel<T, ExtremeBp<false>>, "ndrt:cpu");
    r.kernel("minimum_bp", kCpu, {d}, binary_bp_kernel<T, ExtremeBp<true>>, "ndrt:cpu");
    r.kernel("pow_bp", kCpu, {d}, binary_bp_kernel<T, PowBp>, "ndrt:cpu");
  });
}

}  // namespace ndrt
