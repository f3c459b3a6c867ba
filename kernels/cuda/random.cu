// cuda kernels: uniform, normal, truncated_normal, bernoulli, dropout, dropout_bp on the Philox
// stream of kernels/philox.hpp, mapped exactly as kernels/cpu/random.cpp maps it: output element i
// (row-major) is stream element g = offset + i; 32-bit draws take word g % 4 of block g / 4, f64
// draws block g / 2 (two words each). One thread computes one Philox block and stores the K
// values of it that fall inside [offset, offset + n), so every block is generated once.
// The arithmetic follows the CPU build (x86-64-v3, which contracts `a + b * c` into an FMA):
// uniform is bit-identical; normals differ only by the device's logf/sinf/cosf/erfc ulps.
#include <cmath>

#include "../philox.hpp"
#include "strided.cuh"

namespace ndrt::cuda {

namespace {

using strided::from_double;
using strided::Walk;

struct Stream {
  philox::Key key;
  uint64_t offset;
};

Stream stream_of(const OpContext& c, int seed_attr) {
  return {philox::key_of(uint64_t(c.attrs.get_int(seed_attr))), uint64_t(c.attrs.get_int(seed_attr + 1))};
}

template <class T> __device__ __forceinline__ double as_double(T v) { return double(convert<compute_t<T>>(v)); }

// ---- generators: K values of storage type T from the four words of one block --------------------

// The largest T strictly below `high` (host), as the CPU's largest_below: uniform's half-open end.
template <class T>
T largest_below(double high) {
  T t = from_double<T>(high);
  for (int guard = 0; guard < 4 && double(convert<compute_t<T>>(t)) >= high; ++guard) {
    if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
      uint16_t bits;
      std::memcpy(&bits, &t, 2);
      if (bits == 0x0000u) bits = 0x8001u;  // one ulp toward -inf on the sign-magnitude bits
      else if (bits & 0x8000u) bits = uint16_t(bits + 1);
      else bits = uint16_t(bits - 1);
      std::memcpy(static_cast<void*>(&t), &bits, 2);
    } else {
      t = std::nextafter(t, -INFINITY);
    }
  }
  return t;
}

template <class T>
struct UniformGen {
  static constexpr int K = std::is_same_v<T, double> ? 2 : 4;
  double low, span, high;
  T below;
  __device__ T store(double v) const {
    const T t = from_double<T>(v);
    return as_double(t) >= high ? below : t;
  }
  __device__ void operator()(const philox::Block& w, T (&out)[K]) const {
    if constexpr (K == 2) {
      out[0] = store(fma(span, philox::u01_f64(w.v[0], w.v[1]), low));
      out[1] = store(fma(span, philox::u01_f64(w.v[2], w.v[3]), low));
    } else {
      for (int j = 0; j < 4; ++j) out[j] = store(fma(span, double(philox::u01_f32(w.v[j])), low));
    }
  }
};

template <class T>
struct NormalGen {
  static constexpr int K = std::is_same_v<T, double> ? 2 : 4;
  double mean, sd;
  __device__ void operator()(const philox::Block& w, T (&out)[K]) const {
    if constexpr (K == 2) {
      double z0, z1;
      philox::normal_pair_f64(w.v[0], w.v[1], w.v[2], w.v[3], z0, z1);
      out[0] = fma(sd, z0, mean);
      out[1] = fma(sd, z1, mean);
    } else {
      float z[4];
      philox::normal_pair_f32(w.v[0], w.v[1], z[0], z[1]);
      philox::normal_pair_f32(w.v[2], w.v[3], z[2], z[3]);
      for (int j = 0; j < 4; ++j) out[j] = from_double<T>(fma(sd, double(z[j]), mean));
    }
  }
};

template <class T>
struct TruncatedNormalGen {
  static constexpr int K = std::is_same_v<T, double> ? 2 : 4;
  double mean, sd;
  philox::Truncation tr;
  __device__ void operator()(const philox::Block& w, T (&out)[K]) const {
    if constexpr (K == 2) {
      out[0] = fma(sd, philox::truncated_normal(tr, philox::u01_f64(w.v[0], w.v[1])), mean);
      out[1] = fma(sd, philox::truncated_normal(tr, philox::u01_f64(w.v[2], w.v[3])), mean);
    } else {
      for (int j = 0; j < 4; ++j)
        out[j] = from_double<T>(fma(sd, philox::truncated_normal(tr, double(philox::u01_f32(w.v[j]))), mean));
    }
  }
};

template <class T>
struct BernoulliGen {
  static constexpr int K = 4;
  uint64_t thresh;
  T one, zero;
  __device__ void operator()(const philox::Block& w, T (&out)[K]) const {
    for (int j = 0; j < 4; ++j) out[j] = philox::bernoulli(w.v[j], thresh) ? one : zero;
  }
};

// Blocks covering stream elements [offset, offset + n), K values per block.
struct BlockRange {
  uint64_t first;
  int64_t count;
};
BlockRange blocks_of(uint64_t offset, int64_t n, int K) {
  const uint64_t first = offset / uint64_t(K), last = (offset + uint64_t(n) - 1) / uint64_t(K);
  return {first, int64_t(last - first + 1)};
}

template <class Gen, class T>
__global__ void generate_kernel(Gen gen, philox::Key key, BlockRange blocks, uint64_t offset, int64_t n, T* y,
                                Walk<1> w) {
  constexpr int K = Gen::K;
  for (int64_t t = strided::first_index(); t < blocks.count; t += strided::grid_step()) {
    const uint64_t b = blocks.first + uint64_t(t);
    T vals[K];
    gen(philox::block(key, b), vals);
    for (int j = 0; j < K; ++j) {
      const uint64_t g = b * K + uint64_t(j);
      if (g < offset || g - offset >= uint64_t(n)) continue;
      int64_t off[1];
      w.offsets(int64_t(g - offset), off);
      y[off[0]] = vals[j];
    }
  }
}

template <class T, class Gen>
void generate(OpContext& c, const Gen& gen, const Stream& st) {
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  Walk<1> w;
  for (int d = 0; d < y.rank(); ++d) w.push(y.shape.d[d], {y.strides.d[d]});
  const BlockRange blocks = blocks_of(st.offset, n, Gen::K);
  const Launch L = launch_for(blocks.count);
  generate_kernel<Gen, T><<<L.grid, L.block, 0, stream(c)>>>(gen, st.key, blocks, st.offset, n,
                                                               reinterpret_cast<T*>(strided::base_of(y)), w);
  check_launch(c.op->name);
}

template <class T>
void uniform_kernel(OpContext& c) {
  const double low = c.attrs.get_float(0), high = c.attrs.get_float(1);
  generate<T>(c, UniformGen<T>{low, high - low, high, largest_below<T>(high)}, stream_of(c, 2));
}

template <class T>
void normal_kernel(OpContext& c) {
  generate<T>(c, NormalGen<T>{c.attrs.get_float(0), c.attrs.get_float(1)}, stream_of(c, 2));
}

template <class T>
void truncated_normal_kernel(OpContext& c) {
  const philox::Truncation tr = philox::truncation(c.attrs.get_float(2), c.attrs.get_float(3));
  generate<T>(c, TruncatedNormalGen<T>{c.attrs.get_float(0), c.attrs.get_float(1), tr}, stream_of(c, 4));
}

template <class T>
void bernoulli_kernel(OpContext& c) {
  const BernoulliGen<T> gen{philox::threshold(c.attrs.get_float(0)), from_double<T>(1.0), from_double<T>(0.0)};
  generate<T>(c, gen, stream_of(c, 1));
}

// ---- dropout ------------------------------------------------------------------------------------
// Operands of the walk over x's shape: 0 = y, 1 = mask (bool or u8: one byte), 2 = x.
template <class T>
__global__ void dropout_kernel(philox::Key key, uint64_t thresh, compute_t<T> scale, BlockRange blocks,
                               uint64_t offset, int64_t n, T* y, uint8_t* mask, const T* x, Walk<3> w) {
  const T zero = convert<T>(0.0f);
  for (int64_t t = strided::first_index(); t < blocks.count; t += strided::grid_step()) {
    const uint64_t b = blocks.first + uint64_t(t);
    const philox::Block words = philox::block(key, b);
    for (int j = 0; j < 4; ++j) {
      const uint64_t g = b * 4 + uint64_t(j);
      if (g < offset || g - offset >= uint64_t(n)) continue;
      int64_t off[3];
      w.offsets(int64_t(g - offset), off);
      const bool drop = philox::bernoulli(words.v[j], thresh);
      const T xv = x[off[2]];  // read before the write: y may be x itself
      mask[off[1]] = drop ? 0 : 1;
      y[off[0]] = drop ? zero : convert<T>(convert<compute_t<T>>(xv) * scale);
    }
  }
}

template <class T>
void dropout_run(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  const Tensor& m = *c.out[1];
  const int64_t n = x.numel();
  if (n == 0) return;
  const double p = c.attrs.get_float(0);
  const Stream st = stream_of(c, 1);
  const C scale = p < 1 ? C(1.0 / (1.0 - p)) : C(0);
  Walk<3> w;
  for (int d = 0; d < x.rank(); ++d) w.push(x.shape.d[d], {y.strides.d[d], m.strides.d[d], x.strides.d[d]});
  const BlockRange blocks = blocks_of(st.offset, n, 4);
  const Launch L = launch_for(blocks.count);
  dropout_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(
      st.key, philox::threshold(p), scale, blocks, st.offset, n, reinterpret_cast<T*>(strided::base_of(y)),
      reinterpret_cast<uint8_t*>(strided::base_of(m)), reinterpret_cast<const T*>(strided::base_of(x)), w);
  check_launch("dropout");
}

// Operands: 0 = dx, 1 = dy, 2 = mask.
template <class T>
__global__ void dropout_bp_kernel(compute_t<T> scale, int64_t n, T* dx, const T* dy, const uint8_t* mask, Walk<3> w) {
  const T zero = convert<T>(0.0f);
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[3];
    w.offsets(i, off);
    const T g = dy[off[1]];
    dx[off[0]] = mask[off[2]] ? convert<T>(convert<compute_t<T>>(g) * scale) : zero;
  }
}

template <class T>
void dropout_bp_run(OpContext& c) {
  using C = compute_t<T>;
  const Tensor& dy = *c.in[0];
  const Tensor& m = *c.in[1];
  const Tensor& dx = *c.out[0];
  const int64_t n = dx.numel();
  if (n == 0) return;
  const double p = c.attrs.get_float(0);
  const C scale = p < 1 ? C(1.0 / (1.0 - p)) : C(0);
  Walk<3> w;
  for (int d = 0; d < dx.rank(); ++d) w.push(dx.shape.d[d], {dx.strides.d[d], dy.strides.d[d], m.strides.d[d]});
  const Launch L = launch_for(n);
  dropout_bp_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(scale, n, reinterpret_cast<T*>(strided::base_of(dx)),
                                                          reinterpret_cast<const T*>(strided::base_of(dy)),
                                                          reinterpret_cast<const uint8_t*>(strided::base_of(m)), w);
  check_launch("dropout_bp");
}

// One KernelFn per op: the dtype picks the instantiation.
void uniform_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "uniform", [&](auto t) { uniform_kernel<decltype(t)>(c); });
}
void normal_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "normal", [&](auto t) { normal_kernel<decltype(t)>(c); });
}
void truncated_normal_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64>(c.key_dtype, "truncated_normal", [&](auto t) { truncated_normal_kernel<decltype(t)>(c); });
}
void bernoulli_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64, NDRT_BOOL>(
      c.key_dtype, "bernoulli", [&](auto t) { bernoulli_kernel<decltype(t)>(c); });
}
void dropout_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "dropout", [&](auto t) { dropout_run<decltype(t)>(c); });
}
void dropout_bp_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "dropout_bp",
                                                 [&](auto t) { dropout_bp_run<decltype(t)>(c); });
}

}  // namespace

void register_cuda_random() {
  reg("uniform", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, uniform_fn, "cuda:philox");
  reg("normal", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, normal_fn, "cuda:philox");
  reg("truncated_normal", {NDRT_F32, NDRT_F64}, truncated_normal_fn, "cuda:philox");
  reg("bernoulli", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64, NDRT_BOOL},
      bernoulli_fn, "cuda:philox");
  reg("dropout", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, dropout_fn, "cuda:philox");
  reg("dropout_bp", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, dropout_bp_fn, "cuda");
}

}  // namespace ndrt::cuda
