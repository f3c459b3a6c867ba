// Comparisons, logical ops (bool outputs) and where on CUDA (kernels/cpu/elementwise_logic.cpp).
// bool tensors are read and written as bytes (uint8_t): the same order and truthiness as the CPU,
// and no undefined behaviour on a byte that is neither 0 nor 1; f16/bf16 compare in float.
#include "elementwise_map.cuh"

namespace ndrt::cuda {

namespace {

using namespace elt;

template <class C> __device__ __forceinline__ bool truth(C x) { return x != C(0); }  // NaN is true

struct Eq : NoAttrs { template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return a == b; } };
struct Ne : NoAttrs { template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return a != b; } };
struct Lt : NoAttrs { template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return a < b; } };
struct Le : NoAttrs { template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return a <= b; } };
struct Gt : NoAttrs { template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return a > b; } };
struct Ge : NoAttrs { template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return a >= b; } };
struct And : NoAttrs {
  template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return truth(a) && truth(b); }
};
struct Or : NoAttrs {
  template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return truth(a) || truth(b); }
};
struct Xor : NoAttrs {
  template <class C> __device__ static bool f(C a, C b, const Params<C>&) { return truth(a) != truth(b); }
};
struct Not : NoAttrs {
  template <class C> __device__ static bool f(C x, const Params<C>&) { return !truth(x); }
};

// Inputs of storage type Ti, a bool (byte) output.
template <class Ti, class Op, int NIn>
void logic_op(OpContext& c) {
  launch_map<Op, uint8_t, Ti, NIn>(c, Params<calc_t<Ti>>{});
}

// where selects bits: one kernel per element size serves every dtype.
template <class Word>
__global__ void where_kernel(int64_t n, Strided<4> v, Ptrs<4> p) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[4];
    v.offsets(i, off);
    const bool pick_a = reinterpret_cast<const uint8_t*>(p.p[1])[off[1]] != 0;
    reinterpret_cast<Word*>(p.p[0])[off[0]] = pick_a ? reinterpret_cast<const Word*>(p.p[2])[off[2]]
                                                     : reinterpret_cast<const Word*>(p.p[3])[off[3]];
  }
}

template <class Word>
void where_op(OpContext& c) {
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const Tensor* ts[4] = {&y, c.in[0], c.in[1], c.in[2]};
  Ptrs<4> p;
  for (int k = 0; k < 4; ++k) p.p[k] = base_of(*ts[k]);
  const Strided<4> v = make_strided<4>(y.shape, ts);
  const Launch L = launch_for(n);
  where_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(n, v, p);
  check_launch("where");
}

constexpr const char* kImpl = "cuda";

// A comparison of bool bytes compares their truth values (0x21 == 0x01: both true), as on the cpu.
template <class Op>
struct OnTruth : NoAttrs {
  template <class C>
  __device__ static bool f(C a, C b, const Params<C>&) { return Op::f(truth(a), truth(b), Params<bool>{}); }
};
template <class Op>
using AsIs = Op;

// T: the storage type read (uint8_t for bool); Cmp wraps the comparisons; for the listed dtypes.
template <class T, template <class> class Cmp = AsIs>
void register_logic(std::initializer_list<ndrt_dtype> dtypes) {
  reg("eq", dtypes, logic_op<T, Cmp<Eq>, 2>, kImpl);
  reg("ne", dtypes, logic_op<T, Cmp<Ne>, 2>, kImpl);
  reg("lt", dtypes, logic_op<T, Cmp<Lt>, 2>, kImpl);
  reg("le", dtypes, logic_op<T, Cmp<Le>, 2>, kImpl);
  reg("gt", dtypes, logic_op<T, Cmp<Gt>, 2>, kImpl);
  reg("ge", dtypes, logic_op<T, Cmp<Ge>, 2>, kImpl);
  reg("logical_and", dtypes, logic_op<T, And, 2>, kImpl);
  reg("logical_or", dtypes, logic_op<T, Or, 2>, kImpl);
  reg("logical_xor", dtypes, logic_op<T, Xor, 2>, kImpl);
  reg("logical_not", dtypes, logic_op<T, Not, 1>, kImpl);
}

}  // namespace

void register_cuda_elementwise_logic() {
  register_logic<float>({NDRT_F32});
  register_logic<double>({NDRT_F64});
  register_logic<__half>({NDRT_F16});
  register_logic<__nv_bfloat16>({NDRT_BF16});
  register_logic<int8_t>({NDRT_I8});
  register_logic<uint8_t>({NDRT_U8});
  register_logic<uint8_t, OnTruth>({NDRT_BOOL});
  register_logic<int32_t>({NDRT_I32});
  register_logic<int64_t>({NDRT_I64});
  reg("where", {NDRT_F64, NDRT_I64}, where_op<uint64_t>, kImpl);
  reg("where", {NDRT_F32, NDRT_I32}, where_op<uint32_t>, kImpl);
  reg("where", {NDRT_F16, NDRT_BF16}, where_op<uint16_t>, kImpl);
  reg("where", {NDRT_I8, NDRT_U8, NDRT_BOOL}, where_op<uint8_t>, kImpl);
}

}  // namespace ndrt::cuda
