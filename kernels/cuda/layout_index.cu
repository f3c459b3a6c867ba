// cuda kernels: gather, gather_bp, scatter, scatter_add, one_hot.
//
// Bad indices: the CPU checks every index first and fails naming the first bad one. A kernel
// cannot fail without a host synchronisation, which kernels must not do, so these kernels do NOT
// report out-of-range indices: gather leaves the output elements of a bad index unwritten,
// scatter/scatter_add/gather_bp ignore the updates of a bad index, one_hot writes `off` for the
// whole row of a bad index. Nothing is clamped and no memory outside the tensors is touched.
//
// The scatters are deterministic and follow the CPU's order exactly: the (target index, position)
// pairs are stably sorted by target index (cub radix sort), so every target element is owned by one
// thread that applies its updates in row-major order of indices (scatter: the last one wins;
// scatter_add: accumulated in that order, f16/bf16 in f32, integers wrapping).
#include <cub/device/device_radix_sort.cuh>

#include "strided.cuh"

namespace ndrt::cuda {

namespace {

using strided::base_of;
using strided::Walk;

int axis_of(const OpContext& c, int rank) {
  const int64_t a = c.attrs.get_int(0);
  return int(a < 0 ? a + rank : a);
}

// ---- gather -------------------------------------------------------------------------------------
// Walk over y's shape (pre axes, indices' axes, post axes); operands 0 = y, 1 = x at the indexed
// axis' position 0, 2 = indices.
template <class Word, class I>
__global__ void gather_kernel(Word* y, const Word* x, const I* idx, Walk<3> w, int64_t axis_len, int64_t axis_stride,
                              int64_t n) {
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[3];
    w.offsets(i, off);
    int64_t k = int64_t(idx[off[2]]);
    if (k < 0) k += axis_len;
    if (k < 0 || k >= axis_len) continue;  // a bad index: not reported, see the top of the file
    y[off[0]] = x[off[1] + k * axis_stride];
  }
}

void gather_fn(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& idx = *c.in[1];
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const int axis = axis_of(c, x.rank()), ir = idx.rank();
  Walk<3> w;
  for (int d = 0; d < y.rank(); ++d) {
    const int64_t ys = y.strides.d[d];
    if (d < axis) w.push(y.shape.d[d], {ys, x.strides.d[d], 0});
    else if (d < axis + ir) w.push(y.shape.d[d], {ys, 0, idx.strides.d[d - axis]});
    else w.push(y.shape.d[d], {ys, x.strides.d[d - ir + 1], 0});
  }
  const Launch L = launch_for(n);
  strided::by_word(x.dtype, [&](auto word) {
    strided::by_index(idx.dtype, [&](auto index) {
      using Word = decltype(word);
      using I = decltype(index);
      gather_kernel<Word, I><<<L.grid, L.block, 0, stream(c)>>>(
          reinterpret_cast<Word*>(base_of(y)), reinterpret_cast<const Word*>(base_of(x)),
          reinterpret_cast<const I*>(base_of(idx)), w, x.shape.d[axis], x.strides.d[axis], n);
    });
  });
  check_launch("gather");
}

// ---- scatter, scatter_add, gather_bp ------------------------------------------------------------
// Sort key of each position j of indices (row-major): its target index, or axis_len for a bad
// one (sorted last, ignored). Value: the offset of updates[0.., j, 0..]. Operands 0 = indices,
// 1 = updates along indices' axes.
template <class I>
__global__ void scatter_keys_kernel(const I* idx, Walk<2> w, int64_t axis_len, uint64_t* keys, int64_t* vals,
                                    int64_t J) {
  for (int64_t j = strided::first_index(); j < J; j += strided::grid_step()) {
    int64_t off[2];
    w.offsets(j, off);
    int64_t k = int64_t(idx[off[0]]);
    if (k < 0) k += axis_len;
    keys[j] = uint64_t(k < 0 || k >= axis_len ? axis_len : k);
    vals[j] = off[1];
  }
}

// Segment [begin[k], end[k]) of the sorted keys holds target index k (begin = end = 0 if absent).
__global__ void segment_bounds_kernel(const uint64_t* keys, int64_t J, int64_t axis_len, int64_t* begin,
                                      int64_t* end) {
  for (int64_t s = strided::first_index(); s < J; s += strided::grid_step()) {
    const uint64_t k = keys[s];
    if (k >= uint64_t(axis_len)) continue;
    if (s == 0 || keys[s - 1] != k) begin[k] = s;
    if (s == J - 1 || keys[s + 1] != k) end[k] = s + 1;
  }
}

// Sorted (target, updates offset) pairs of one call, in stream-ordered scratch memory.
struct Segments {
  Segments(const OpContext& c, int64_t J, int64_t axis_len)
      : pairs(c.device, size_t(J > 0 ? 4 * J : 1) * 8), bounds(c.device, size_t(2 * axis_len) * 8) {}
  Scratch pairs;   // keys, sorted keys, values, sorted values (J each)
  Scratch bounds;  // begin, end (axis_len each)
  const int64_t* sorted_vals(int64_t J) const { return pairs.as<int64_t>() + 3 * J; }
  int64_t* begin() const { return bounds.as<int64_t>(); }
  int64_t* end(int64_t axis_len) const { return bounds.as<int64_t>() + axis_len; }
};

// Fills seg for target x (axis `axis`), indices and updates.
template <class I>
void build_segments(const OpContext& c, const Tensor& idx, const Tensor& upd, int axis, int64_t axis_len,
                    Segments& seg) {
  const cudaStream_t s = stream(c);
  const int64_t J = idx.numel();
  check(cudaMemsetAsync(seg.bounds.ptr, 0, seg.bounds.bytes, s), "scatter: clearing segment bounds");
  if (J == 0) return;
  uint64_t* keys = seg.pairs.as<uint64_t>();
  uint64_t* sorted_keys = keys + J;
  int64_t* vals = seg.pairs.as<int64_t>() + 2 * J;
  int64_t* sorted_vals = vals + J;
  Walk<2> w;
  for (int d = 0; d < idx.rank(); ++d) w.push(idx.shape.d[d], {idx.strides.d[d], upd.strides.d[axis + d]});
  const Launch L = launch_for(J);
  scatter_keys_kernel<I><<<L.grid, L.block, 0, s>>>(reinterpret_cast<const I*>(base_of(idx)), w, axis_len, keys,
                                                    vals, J);
  check_launch("scatter: keys");
  // Radix sort is stable: equal targets keep the row-major order of indices.
  const int end_bit = 64 - __builtin_clzll(uint64_t(axis_len));  // the key axis_len (bad) fits too
  size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, sorted_keys, vals, sorted_vals, J, 0, end_bit, s),
        "scatter: sort size");
  Scratch temp(c.device, temp_bytes > 0 ? temp_bytes : 1);
  check(cub::DeviceRadixSort::SortPairs(temp.ptr, temp_bytes, keys, sorted_keys, vals, sorted_vals, J, 0, end_bit, s),
        "scatter: sort");
  segment_bounds_kernel<<<L.grid, L.block, 0, s>>>(sorted_keys, J, axis_len, seg.begin(), seg.end(axis_len));
  check_launch("scatter: segments");
}

// Walk over the target's shape; operands 0 = y, 1 = x, 2 = updates at the indexed axis' position
// 0 (plus the sorted offsets), 3 = the target index along the axis.
Walk<4> apply_walk(const Tensor& y, const Tensor& x, const Tensor& upd, int axis, int ir) {
  Walk<4> w;
  for (int d = 0; d < y.rank(); ++d) {
    const int64_t ys = y.strides.d[d], xs = x.strides.d[d];
    if (d < axis) w.push(y.shape.d[d], {ys, xs, upd.strides.d[d], 0});
    else if (d == axis) w.push(y.shape.d[d], {ys, xs, 0, 1});
    else w.push(y.shape.d[d], {ys, xs, upd.strides.d[d + ir - 1], 0});
  }
  return w;
}

// Last update of the segment wins; untouched elements copy x (nothing to do in place).
template <class Word>
__global__ void scatter_apply_kernel(Word* y, const Word* x, const Word* upd, const int64_t* vals,
                                     const int64_t* begin, const int64_t* end, Walk<4> w, bool in_place, int64_t n) {
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[4];
    w.offsets(i, off);
    const int64_t b = begin[off[3]], e = end[off[3]];
    if (e > b) y[off[0]] = upd[off[2] + vals[e - 1]];
    else if (!in_place) y[off[0]] = x[off[1]];
  }
}

// Integers wrap (through unsigned arithmetic: signed overflow is undefined).
template <class A>
__device__ __forceinline__ A add(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using UA = std::make_unsigned_t<A>;
    return A(UA(a) + UA(b));
  } else {
    return a + b;
  }
}

// y = (x, or 0 when x is null) + the segment's updates in order, accumulated in compute_t<T>.
template <class T>
__global__ void scatter_add_apply_kernel(T* y, const T* x, const T* upd, const int64_t* vals, const int64_t* begin,
                                         const int64_t* end, Walk<4> w, bool in_place, int64_t n) {
  using A = compute_t<T>;
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[4];
    w.offsets(i, off);
    const int64_t b = begin[off[3]], e = end[off[3]];
    if (e == b && in_place) continue;
    A acc = x ? convert<A>(x[off[1]]) : A(0);
    for (int64_t s = b; s < e; ++s) acc = add(acc, convert<A>(upd[off[2] + vals[s]]));
    y[off[0]] = convert<T>(acc);
  }
}

template <class I>
void scatter_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& idx = *c.in[1];
  const Tensor& upd = *c.in[2];
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const int axis = axis_of(c, x.rank());
  const int64_t axis_len = x.shape.d[axis];
  Segments seg(c, idx.numel(), axis_len);
  build_segments<I>(c, idx, upd, axis, axis_len, seg);
  const Walk<4> w = apply_walk(y, x, upd, axis, idx.rank());
  const bool in_place = x.same_view(y);
  const Launch L = launch_for(n);
  strided::by_word(x.dtype, [&](auto word) {
    using Word = decltype(word);
    scatter_apply_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(
        reinterpret_cast<Word*>(base_of(y)), reinterpret_cast<const Word*>(base_of(x)),
        reinterpret_cast<const Word*>(base_of(upd)), seg.sorted_vals(idx.numel()), seg.begin(), seg.end(axis_len), w,
        in_place, n);
  });
  check_launch("scatter");
}

// scatter_add, or gather_bp (from zero: x only gives the shape).
template <class T, class I>
void scatter_add_run(OpContext& c, bool from_zero) {
  const Tensor& x = *c.in[0];
  const Tensor& idx = *c.in[1];
  const Tensor& upd = *c.in[2];
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const int axis = axis_of(c, x.rank());
  const int64_t axis_len = x.shape.d[axis];
  Segments seg(c, idx.numel(), axis_len);
  build_segments<I>(c, idx, upd, axis, axis_len, seg);
  const Walk<4> w = apply_walk(y, x, upd, axis, idx.rank());
  const bool in_place = !from_zero && x.same_view(y);
  const Launch L = launch_for(n);
  scatter_add_apply_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(
      reinterpret_cast<T*>(base_of(y)), from_zero ? nullptr : reinterpret_cast<const T*>(base_of(x)),
      reinterpret_cast<const T*>(base_of(upd)), seg.sorted_vals(idx.numel()), seg.begin(), seg.end(axis_len), w,
      in_place, n);
  check_launch(c.op->name);
}

void scatter_fn(OpContext& c) {
  strided::by_index(c.in[1]->dtype, [&](auto index) { scatter_run<decltype(index)>(c); });
}

void scatter_add_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I32, NDRT_I64>(c.key_dtype, "scatter_add", [&](auto t) {
    strided::by_index(c.in[1]->dtype, [&](auto index) { scatter_add_run<decltype(t), decltype(index)>(c, false); });
  });
}

void gather_bp_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "gather_bp", [&](auto t) {
    strided::by_index(c.in[1]->dtype, [&](auto index) { scatter_add_run<decltype(t), decltype(index)>(c, true); });
  });
}

// ---- one_hot ------------------------------------------------------------------------------------
// Walk over y's shape; operands 0 = y, 1 = indices (stride 0 on the new axis), 2 = the position
// along the new axis.
template <class Word, class I>
__global__ void one_hot_kernel(Word* y, const I* idx, Word on, Word off_value, Walk<3> w, int64_t n) {
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[3];
    w.offsets(i, off);
    y[off[0]] = int64_t(idx[off[1]]) == off[2] ? on : off_value;
  }
}

void one_hot_fn(OpContext& c) {
  const Tensor& idx = *c.in[0];
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const int axis = int(c.attrs.get_int(2) < 0 ? c.attrs.get_int(2) + y.rank() : c.attrs.get_int(2));
  const uint64_t on_bits = strided::value_bits(y.dtype, c.attrs.get_float(3));
  const uint64_t off_bits = strided::value_bits(y.dtype, c.attrs.get_float(4));
  Walk<3> w;
  for (int d = 0; d < y.rank(); ++d) {
    if (d == axis) w.push(y.shape.d[d], {y.strides.d[d], 0, 1});
    else w.push(y.shape.d[d], {y.strides.d[d], idx.strides.d[d < axis ? d : d - 1], 0});
  }
  const Launch L = launch_for(n);
  strided::by_word(y.dtype, [&](auto word) {
    strided::by_index(idx.dtype, [&](auto index) {
      using Word = decltype(word);
      using I = decltype(index);
      one_hot_kernel<Word, I><<<L.grid, L.block, 0, stream(c)>>>(
          reinterpret_cast<Word*>(base_of(y)), reinterpret_cast<const I*>(base_of(idx)),
          strided::word_of<Word>(on_bits), strided::word_of<Word>(off_bits), w, n);
    });
  });
  check_launch("one_hot");
}

}  // namespace

void register_cuda_layout_index() {
  const std::initializer_list<ndrt_dtype> all = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8,
                                                 NDRT_U8,  NDRT_I32, NDRT_I64, NDRT_BOOL};
  reg("gather", all, gather_fn, "cuda");
  reg("scatter", all, scatter_fn, "cuda");
  reg("one_hot", all, one_hot_fn, "cuda");
  reg("scatter_add", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I32, NDRT_I64}, scatter_add_fn, "cuda");
  reg("gather_bp", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, gather_bp_fn, "cuda");
}

}  // namespace ndrt::cuda
