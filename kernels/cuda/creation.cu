// fill, copy, cast; arange, linspace, eye on CUDA (kernels/cpu/creation.cpp). copy is what the
// runtime uses to make strided CUDA tensors dense (ndrt_tensor_contiguous, reads, to_device), so
// it moves words by element size, coalesces axes, and leaves dense-to-dense to cudaMemcpyAsync.
#include <cstring>

#include "elementwise_map.cuh"

namespace ndrt::cuda {

namespace {

using namespace elt;

constexpr const char* kImpl = "cuda";

template <size_t Size> struct WordOf;
template <> struct WordOf<1> { using type = uint8_t; };
template <> struct WordOf<2> { using type = uint16_t; };
template <> struct WordOf<4> { using type = uint32_t; };
template <> struct WordOf<8> { using type = uint64_t; };
template <class T> using word_t = typename WordOf<sizeof(T)>::type;

// The bits of v as its word type.
template <class T>
word_t<T> bits_of(T v) {
  word_t<T> w;
  std::memcpy(&w, &v, sizeof(T));
  return w;
}

// ---- fill ----------------------------------------------------------------------------------------
template <class Word>
__global__ void fill_kernel(int64_t n, Strided<1> v, Word* y, Word value) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[1];
    v.offsets(i, off);
    y[off[0]] = value;
  }
}

// Every element of y = `value`'s bits; a dense y whose bytes are all alike (zero) is a memset.
template <class Word>
void fill_words(const OpContext& c, const Tensor& y, Word value) {
  const int64_t n = y.numel();
  if (n == 0) return;
  const Tensor* ts[1] = {&y};
  const Strided<1> v = make_strided<1>(y.shape, ts);
  unsigned char bytes[sizeof(Word)];
  std::memcpy(bytes, &value, sizeof(Word));
  bool uniform = true;
  for (size_t k = 1; k < sizeof(Word); ++k) uniform = uniform && bytes[k] == bytes[0];
  if (v.contig && uniform) {
    check(cudaMemsetAsync(base_of(y), bytes[0], size_t(n) * sizeof(Word), stream(c)), c.op->name);
    return;
  }
  const Launch L = launch_for(n);
  fill_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(n, v, reinterpret_cast<Word*>(base_of(y)), value);
  check_launch(c.op->name);
}

// The value converted as the cast op converts (bool: nonzero is true).
template <class T>
void fill_op(OpContext& c) {
  fill_words(c, *c.out[0], bits_of(cast_value<T>(c.attrs.get_float(0))));
}

// ---- copy ----------------------------------------------------------------------------------------
template <class Word>
__global__ void copy_kernel(int64_t n, Strided<2> v, Word* y, const Word* x) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    v.offsets(i, off);
    y[off[0]] = x[off[1]];
  }
}

template <class Word>
void copy_words(const OpContext& c) {
  const Tensor &y = *c.out[0], &x = *c.in[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const Tensor* ts[2] = {&y, &x};
  const Strided<2> v = make_strided<2>(y.shape, ts);
  if (v.contig) {  // also a single element
    check(cudaMemcpyAsync(base_of(y), base_of(x), size_t(n) * sizeof(Word), cudaMemcpyDeviceToDevice, stream(c)),
          c.op->name);
    return;
  }
  const Launch L = launch_for(n);
  copy_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(n, v, reinterpret_cast<Word*>(base_of(y)),
                                                       reinterpret_cast<const Word*>(base_of(x)));
  check_launch(c.op->name);
}

void copy_op(OpContext& c) {
  switch (item_size(c.in[0]->dtype)) {
    case 1: return copy_words<uint8_t>(c);
    case 2: return copy_words<uint16_t>(c);
    case 4: return copy_words<uint32_t>(c);
    default: return copy_words<uint64_t>(c);
  }
}

// ---- cast ----------------------------------------------------------------------------------------
template <class To, class From>
__global__ void cast_kernel(int64_t n, Strided<2> v, To* y, const From* x) {
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[2];
    v.offsets(i, off);
    if constexpr (std::is_same_v<From, bool>)  // read bool as its byte: no UB on a byte other than 0 / 1
      y[off[0]] = cast_value<To>(reinterpret_cast<const uint8_t*>(x)[off[1]] != 0);
    else
      y[off[0]] = cast_value<To>(x[off[1]]);
  }
}

template <class To, class From>
void cast_into(const OpContext& c) {
  if constexpr (std::is_same_v<To, From> && !std::is_same_v<To, bool>) {  // bool -> bool makes bytes 0 / 1
    copy_words<word_t<To>>(c);
  } else {
    const Tensor &y = *c.out[0], &x = *c.in[0];
    const int64_t n = y.numel();
    if (n == 0) return;
    const Tensor* ts[2] = {&y, &x};
    const Strided<2> v = make_strided<2>(y.shape, ts);
    const Launch L = launch_for(n);
    cast_kernel<To, From><<<L.grid, L.block, 0, stream(c)>>>(n, v, reinterpret_cast<To*>(base_of(y)),
                                                             reinterpret_cast<const From*>(base_of(x)));
    check_launch(c.op->name);
  }
}

// Keyed by the source dtype; the destination dtype is a runtime switch.
template <class From>
void cast_op(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8, NDRT_U8, NDRT_I32, NDRT_I64, NDRT_BOOL>(
      c.out[0]->dtype, "cast", [&](auto to) { cast_into<decltype(to), From>(c); });
}

// ---- arange, linspace ----------------------------------------------------------------------------
// y[i] = start + i * step: integers in exact int64 arithmetic (inference checked the range), floats
// computed in f64 and converted once.
template <class T>
__global__ void arange_kernel(int64_t n, int64_t stride, T* y, double start, double step) {
  const int64_t grid_step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid_step) {
    if constexpr (std::is_integral_v<T>)
      y[i * stride] = T(int64_t(start) + i * int64_t(step));
    else
      y[i * stride] = cast_value<T>(start + double(i) * step);
  }
}

template <class T>
void arange_op(OpContext& c) {
  const Tensor& y = *c.out[0];
  const int64_t n = y.shape.d[0];
  if (n == 0) return;
  const Launch L = launch_for(n);
  arange_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(n, y.strides.d[0], reinterpret_cast<T*>(base_of(y)),
                                                      c.attrs.get_float(0), c.attrs.get_float(2));
  check_launch("arange");
}

// From both ends, so y[0] == start and (with endpoint) y[num - 1] == stop exactly.
template <class T>
__global__ void linspace_kernel(int64_t num, int64_t stride, T* y, double start, double stop, double step,
                                bool endpoint) {
  const int64_t div = endpoint ? num - 1 : num, half = num / 2;
  const int64_t grid_step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < num; i += grid_step) {
    const double v =
        div <= 0 || i < half || !endpoint ? start + double(i) * step : stop - double(num - 1 - i) * step;
    y[i * stride] = cast_value<T>(v);
  }
}

template <class T>
void linspace_op(OpContext& c) {
  const Tensor& y = *c.out[0];
  const double start = c.attrs.get_float(0), stop = c.attrs.get_float(1);
  const bool endpoint = c.attrs.get_bool(4);
  const int64_t num = y.shape.d[0];
  if (num == 0) return;
  const int64_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / double(div) : 0.0;
  const Launch L = launch_for(num);
  linspace_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(num, y.strides.d[0], reinterpret_cast<T*>(base_of(y)),
                                                        start, stop, step, endpoint);
  check_launch("linspace");
}

// ---- eye -----------------------------------------------------------------------------------------
// y[i][j] = one where j - i == k, else zero (all-zero bits in every dtype), in one pass.
template <class Word>
__global__ void eye_kernel(int64_t total, int64_t m, int64_t s0, int64_t s1, int64_t k, Word* y, Word one) {
  const int64_t grid_step = int64_t(gridDim.x) * blockDim.x;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += grid_step) {
    const int64_t i = e / m, j = e - i * m;
    y[i * s0 + j * s1] = j - i == k ? one : Word(0);
  }
}

template <class T>
void eye_op(OpContext& c) {
  const Tensor& y = *c.out[0];
  const int64_t n = y.shape.d[0], m = y.shape.d[1];
  if (n == 0 || m == 0) return;
  using Word = word_t<T>;
  const Launch L = launch_for(n * m);
  eye_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(n * m, m, y.strides.d[0], y.strides.d[1], c.attrs.get_int(2),
                                                      reinterpret_cast<Word*>(base_of(y)), bits_of(cast_value<T>(1.0)));
  check_launch("eye");
}

template <ndrt_dtype D>
void register_any() {
  using T = typename DType<D>::type;
  reg("fill", {D}, fill_op<T>, kImpl);
  reg("copy", {D}, copy_op, kImpl);
  reg("cast", {D}, cast_op<T>, kImpl);
  reg("eye", {D}, eye_op<T>, kImpl);
  if constexpr (D != NDRT_BOOL) reg("arange", {D}, arange_op<T>, kImpl);
  if constexpr (D == NDRT_F32 || D == NDRT_F64 || D == NDRT_F16 || D == NDRT_BF16)
    reg("linspace", {D}, linspace_op<T>, kImpl);
}

}  // namespace

void register_cuda_creation() {
  register_any<NDRT_F32>();
  register_any<NDRT_F64>();
  register_any<NDRT_F16>();
  register_any<NDRT_BF16>();
  register_any<NDRT_I8>();
  register_any<NDRT_U8>();
  register_any<NDRT_I32>();
  register_any<NDRT_I64>();
  register_any<NDRT_BOOL>();
}

}  // namespace ndrt::cuda
