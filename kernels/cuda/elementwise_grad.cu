// Gradient CUDA kernels of the elementwise ops (kernels/cpu/elementwise_grad*.cpp):
//  - <op>_bp of the unary maps: dx = f'(x or y) * dy, a two-input map (elementwise_map.cuh);
//  - add_bp ... pow_bp of the broadcasting binaries: da (db) is the partial derivative times dy,
//    summed over the axes a (b) was broadcast along. One kernel per side: each output element is
//    owned by a group of threads that sums its broadcast axes in f64 (a group of 1 when there is
//    nothing to sum, or enough output elements to fill the GPU) and rounds once, as the CPU.
#include "elementwise_map.cuh"

namespace ndrt::cuda {

namespace {

using namespace elt;

// ---- unary gradients -----------------------------------------------------------------------------
struct ReluBp : NoAttrs {
  template <class C> __device__ static C f(C x, C dy, const Params<C>&) { return x > C(0) ? dy : C(0); }
};
struct LeakyReluBp : OneFloatAttr {
  template <class C> __device__ static C f(C x, C dy, const Params<C>& p) { return x > C(0) ? dy : p.a * dy; }
};
struct EluBp : OneFloatAttr {
  template <class C> __device__ static C f(C x, C dy, const Params<C>& p) { return x > C(0) ? dy : dy * p.a * m_exp(x); }
};
struct SigmoidBp : NoAttrs {  // from y
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return dy * y * (C(1) - y); }
};
struct TanhBp : NoAttrs {  // from y
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return dy * (C(1) - y * y); }
};
struct ExpBp : NoAttrs {  // from y
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return dy * y; }
};
struct LogBp : NoAttrs {
  template <class C> __device__ static C f(C x, C dy, const Params<C>&) { return dy / x; }
};
struct SqrtBp : NoAttrs {  // from y
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return dy / (C(2) * y); }
};
struct AbsBp : NoAttrs {
  template <class C>
  __device__ static C f(C x, C dy, const Params<C>&) { return x > C(0) ? dy : (x < C(0) ? -dy : C(0)); }
};
struct SquareBp : NoAttrs {
  template <class C> __device__ static C f(C x, C dy, const Params<C>&) { return C(2) * x * dy; }
};
struct SinBp : NoAttrs {
  template <class C> __device__ static C f(C x, C dy, const Params<C>&) { return dy * m_cos(x); }
};
struct CosBp : NoAttrs {
  template <class C> __device__ static C f(C x, C dy, const Params<C>&) { return -dy * m_sin(x); }
};
struct Expm1Bp : NoAttrs {  // from y
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return dy * (y + C(1)); }
};
struct Log1pBp : NoAttrs {
  template <class C> __device__ static C f(C x, C dy, const Params<C>&) { return dy / (C(1) + x); }
};
struct RsqrtBp : NoAttrs {  // from y: d/dx x^(-1/2) = -y^3 / 2
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return dy * (C(-0.5) * y * y * y); }
};
struct ReciprocalBp : NoAttrs {  // from y: d/dx 1/x = -y^2
  template <class C> __device__ static C f(C y, C dy, const Params<C>&) { return -dy * (y * y); }
};
struct SoftplusBp : OneFloatAttr {  // dy * sigmoid(beta x)
  template <class C>
  __device__ static C f(C x, C dy, const Params<C>& p) {
    const C bx = p.a * x;
    const C e = m_exp(-m_fabs(bx));
    const C s = C(1) / (C(1) + e);
    return dy * (bx >= C(0) ? s : e * s);
  }
};
struct ClipBp {
  template <class C>
  static Params<C> params(const OpContext& c) {
    return {float_param<C>(c.attrs.get_float(0)), float_param<C>(c.attrs.get_float(1))};
  }
  template <class C> __device__ static C f(C x, C dy, const Params<C>& p) { return (x >= p.a && x <= p.b) ? dy : C(0); }
};
struct GeluErfBp : NoAttrs {  // Phi(x) + x phi(x)
  template <class C>
  __device__ static C f(C x, C dy, const Params<C>&) {
    const C pdf = C(0.39894228040143267794) * m_exp(C(-0.5) * x * x);
    return dy * (m_normcdf(x) + x * pdf);
  }
};
struct GeluTanhBp : NoAttrs {
  template <class C>
  __device__ static C f(C x, C dy, const Params<C>&) {
    const C k0 = C(0.79788456080286535588), k1 = C(0.044715);
    const C x2 = x * x;
    const C t = m_tanh(k0 * x * (C(1) + k1 * x2));
    return dy * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * k0 * (C(1) + C(3) * k1 * x2));
  }
};

template <class T>
void gelu_bp(OpContext& c) {
  if (c.attrs.get_bool(0))
    map_op<T, GeluTanhBp, 2>(c);
  else
    map_op<T, GeluErfBp, 2>(c);
}

// ---- gradients of the broadcasting binaries --------------------------------------------------------
// g<0>: the partial for a times dy, g<1>: for b.
struct AddBp {
  template <int K, class C> __device__ static C g(C, C, C dy) { return dy; }
};
struct SubBp {
  template <int K, class C> __device__ static C g(C, C, C dy) { return K == 0 ? dy : -dy; }
};
struct MulBp {
  template <int K, class C> __device__ static C g(C a, C b, C dy) { return K == 0 ? dy * b : dy * a; }
};
struct DivBp {
  template <int K, class C>
  __device__ static C g(C a, C b, C dy) {
    const C q = dy / b;
    return K == 0 ? q : -q * (a / b);
  }
};
// dy goes to the side the forward picked ((a > b || a != a) ? a : b for maximum); ties split it.
template <bool Less>
struct ExtremeBp {
  template <int K, class C>
  __device__ static C g(C a, C b, C dy) {
    if (a == b) return dy * C(0.5);
    const bool a_wins = (Less ? a < b : a > b) || a != a;
    return (K == 0) == a_wins ? dy : C(0);
  }
};
struct PowBp {
  template <int K, class C>
  __device__ static C g(C a, C b, C dy) {
    if constexpr (K == 0)
      return b == C(0) ? C(0) : dy * (b * m_pow(a, b - C(1)));
    else
      return (a == C(0) && b >= C(0)) ? C(0) : dy * (m_pow(a, b) * m_log(a));
  }
};

// Output element o (of m, the side's own shape) = sum over the r elements of its broadcast axes of
// Op::g<K>(a, b, dy), accumulated in f64 and rounded once to T. `kept` maps o to (out, a, b, dy)
// offsets, `red` a summed element j to (a, b, dy) offsets. Threads form groups of `group` (a power
// of two dividing blockDim.x) that share one output element and add up through shared memory.
template <class T, class Op, int K>
__global__ void binary_bp_kernel(int64_t m, int64_t r, int group, Strided<4> kept, Strided<3> red, Ptrs<4> p) {
  extern __shared__ double partial[];  // blockDim.x
  const int per_block = int(blockDim.x) / group;
  const int lane = int(threadIdx.x) % group;
  const int64_t o_step = int64_t(gridDim.x) * per_block;
  // The loop bound is the same for every thread of a block, so the __syncthreads below are safe.
  for (int64_t o0 = int64_t(blockIdx.x) * per_block; o0 < m; o0 += o_step) {
    const int64_t o = o0 + int64_t(threadIdx.x) / group;
    // r == 1: nothing is summed, and -0 (the additive identity) keeps a -0 partial's sign.
    double acc = r == 1 ? -0.0 : 0.0;
    int64_t ko[4] = {0, 0, 0, 0};
    if (o < m) {
      kept.offsets(o, ko);
      const T* a = reinterpret_cast<const T*>(p.p[1]) + ko[1];
      const T* b = reinterpret_cast<const T*>(p.p[2]) + ko[2];
      const T* dy = reinterpret_cast<const T*>(p.p[3]) + ko[3];
      for (int64_t j = lane; j < r; j += group) {
        int64_t ro[3];
        red.offsets(j, ro);
        acc += double(Op::template g<K>(load(a + ro[0]), load(b + ro[1]), load(dy + ro[2])));
      }
    }
    if (group > 1) {
      partial[threadIdx.x] = acc;
      __syncthreads();
      for (int s = group / 2; s > 0; s >>= 1) {
        if (lane < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
      }
      acc = partial[threadIdx.x];  // lane 0: the group's total (the next round writes only own slots)
    }
    if (o < m && lane == 0) reinterpret_cast<T*>(p.p[0])[ko[0]] = cast_value<T>(acc);
  }
}

// Output elements that keep an H100 busy without grouping; beyond this, one thread per element.
constexpr int64_t kBusyThreads = int64_t(1) << 18;

template <class T, class Op, int K>
void binary_bp_side(const OpContext& c) {
  const Tensor &a = *c.in[0], &b = *c.in[1], &dy = *c.in[2], &out = *c.out[K];
  const int64_t m = out.numel();
  if (m == 0) return;
  // The kept space is dy's shape with out's broadcast axes at extent 1, the summed space the rest.
  Dims kept_shape = dy.shape, red_shape = dy.shape;
  const int lead = dy.shape.rank - out.shape.rank;
  int64_t r = 1;
  for (int d = 0; d < dy.shape.rank; ++d) {
    const bool summed = d < lead || out.shape.d[d - lead] == 1;
    (summed ? kept_shape : red_shape).d[d] = 1;
    if (summed) r *= dy.shape.d[d];
  }
  const Tensor* kt[4] = {&out, &a, &b, &dy};
  const Tensor* rt[3] = {&a, &b, &dy};
  const Strided<4> kept = make_strided<4>(kept_shape, kt);
  const Strided<3> red = make_strided<3>(red_shape, rt);
  Ptrs<4> p;
  for (int k = 0; k < 4; ++k) p.p[k] = base_of(*kt[k]);

  Launch L = launch_for(m);
  int group = 1;
  while (2 * group <= r && L.block % (2 * group) == 0 && m * group < kBusyThreads) group *= 2;
  if (group > 1) {
    const Launch G = launch_for(m * group, L.block);
    if (G.block == L.block)
      L = G;
    else
      group = 1;
  }
  binary_bp_kernel<T, Op, K><<<L.grid, L.block, group > 1 ? L.block * sizeof(double) : 0, stream(c)>>>(
      m, r, group, kept, red, p);
  check_launch(c.op->name);
}

template <class T, class Op>
void binary_bp(OpContext& c) {
  binary_bp_side<T, Op, 0>(c);
  binary_bp_side<T, Op, 1>(c);
}

constexpr const char* kImpl = "cuda";

template <ndrt_dtype D>
void register_grad() {
  using T = typename DType<D>::type;
  reg("relu_bp", {D}, map_op<T, ReluBp, 2>, kImpl);
  reg("leaky_relu_bp", {D}, map_op<T, LeakyReluBp, 2>, kImpl);
  reg("elu_bp", {D}, map_op<T, EluBp, 2>, kImpl);
  reg("gelu_bp", {D}, gelu_bp<T>, kImpl);
  reg("sigmoid_bp", {D}, map_op<T, SigmoidBp, 2>, kImpl);
  reg("tanh_bp", {D}, map_op<T, TanhBp, 2>, kImpl);
  reg("softplus_bp", {D}, map_op<T, SoftplusBp, 2>, kImpl);
  reg("exp_bp", {D}, map_op<T, ExpBp, 2>, kImpl);
  reg("log_bp", {D}, map_op<T, LogBp, 2>, kImpl);
  reg("sqrt_bp", {D}, map_op<T, SqrtBp, 2>, kImpl);
  reg("abs_bp", {D}, map_op<T, AbsBp, 2>, kImpl);
  reg("square_bp", {D}, map_op<T, SquareBp, 2>, kImpl);
  reg("clip_bp", {D}, map_op<T, ClipBp, 2>, kImpl);
  reg("sin_bp", {D}, map_op<T, SinBp, 2>, kImpl);
  reg("cos_bp", {D}, map_op<T, CosBp, 2>, kImpl);
  reg("expm1_bp", {D}, map_op<T, Expm1Bp, 2>, kImpl);
  reg("log1p_bp", {D}, map_op<T, Log1pBp, 2>, kImpl);
  reg("rsqrt_bp", {D}, map_op<T, RsqrtBp, 2>, kImpl);
  reg("reciprocal_bp", {D}, map_op<T, ReciprocalBp, 2>, kImpl);
  reg("add_bp", {D}, binary_bp<T, AddBp>, kImpl);
  reg("sub_bp", {D}, binary_bp<T, SubBp>, kImpl);
  reg("mul_bp", {D}, binary_bp<T, MulBp>, kImpl);
  reg("div_bp", {D}, binary_bp<T, DivBp>, kImpl);
  reg("maximum_bp", {D}, binary_bp<T, ExtremeBp<false>>, kImpl);
  reg("minimum_bp", {D}, binary_bp<T, ExtremeBp<true>>, kImpl);
  reg("pow_bp", {D}, binary_bp<T, PowBp>, kImpl);
}

}  // namespace

void register_cuda_elementwise_grad() {
  register_grad<NDRT_F32>();
  register_grad<NDRT_F64>();
  register_grad<NDRT_F16>();
  register_grad<NDRT_BF16>();
}

}  // namespace ndrt::cuda
