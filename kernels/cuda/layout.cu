// cuda kernels: concat, stack, flip, transpose_copy (views of the output or input plus a strided
// copy, as kernels/cpu/layout.cpp), pad, pad_bp, tile, tile_bp (per output element: a per-axis
// source index, as kernels/cpu/layout_pad.cpp), and the registration of the whole layout family
// (gather/scatter/one_hot in layout_index.cu). Moves are instantiated per element size, never per
// dtype; the gradients sum in f64 in the CPU's order, so they match it bit for bit.
#include "../layout_slabs.hpp"
#include "strided.cuh"

namespace ndrt::cuda {

namespace {

using strided::base_of;
using strided::Walk;

// ---- strided copy -------------------------------------------------------------------------------
// Operands: 0 = destination, 1 = source.
template <class Word>
__global__ void copy_kernel(Word* y, const Word* x, Walk<2> w, int64_t n) {
  for (int64_t i = strided::first_index(); i < n; i += strided::grid_step()) {
    int64_t off[2];
    w.offsets(i, off);
    y[off[0]] = x[off[1]];
  }
}

Walk<2> walk_of(const Tensor& dst, const Tensor& src) {
  Walk<2> w;
  for (int d = 0; d < dst.rank(); ++d) w.push(dst.shape.d[d], {dst.strides.d[d], src.strides.d[d]});
  return w;
}

template <class Word>
void launch_copy(const OpContext& c, const Tensor& dst, const Tensor& src, const Walk<2>& w) {
  const int64_t n = dst.numel();
  const Launch L = launch_for(n);
  copy_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(reinterpret_cast<Word*>(base_of(dst)),
                                                       reinterpret_cast<const Word*>(base_of(src)), w, n);
  check_launch(c.op->name);
}

// dst = src elementwise (same shape and element size, any strides).
void copy_view(const OpContext& c, const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  const Walk<2> w = walk_of(dst, src);
  strided::by_word(dst.dtype, [&](auto word) { launch_copy<decltype(word)>(c, dst, src, w); });
}

void concat_fn(OpContext& c) {
  slabs::concat(c, [&c](const Tensor& dst, const Tensor& src) { copy_view(c, dst, src); });
}

void stack_fn(OpContext& c) {
  slabs::stack(c, [&c](const Tensor& dst, const Tensor& src) { copy_view(c, dst, src); });
}

// A view of x with negated strides on the flipped axes, copied.
void flip_fn(OpContext& c) {
  const Tensor& x = *c.in[0];
  const int n = c.attrs.list_size(0);
  const int64_t* axes = c.attrs.list_data(0);
  Tensor v = x;
  for (int d = 0; d < x.rank(); ++d) {
    bool flip = n == 0;
    for (int k = 0; k < n; ++k) flip |= (axes[k] < 0 ? axes[k] + x.rank() : axes[k]) == d;
    if (flip && x.shape.d[d] > 0) {
      v.offset += (x.shape.d[d] - 1) * x.strides.d[d];
      v.strides.d[d] = -x.strides.d[d];
    }
  }
  copy_view(c, *c.out[0], v);
}

// ---- transpose_copy -----------------------------------------------------------------------------
// Square tiles through shared memory when y is unit-stride on its inner axis b and x on another
// axis a: both the reads (along a) and the writes (along b) are then coalesced.
constexpr int kTile = 32, kTileRows = 8;

struct TileGeom {
  Walk<2> outer;               // every axis but a and b: (y, x) offsets of a tile's plane
  int64_t A, B;                // extents of a and b
  int64_t ya, yb, xa, xb;      // strides along a and b
  int64_t tiles_a, tiles_b, total;
};

template <class Word>
__global__ void transpose_tiled_kernel(Word* y, const Word* x, TileGeom g) {
  __shared__ Word tile[kTile][kTile + 1];  // +1: the column reads hit distinct banks
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int64_t t = blockIdx.x; t < g.total; t += gridDim.x) {
    const int64_t per_plane = g.tiles_a * g.tiles_b, o = t / per_plane, rem = t - o * per_plane;
    const int64_t a0 = (rem / g.tiles_b) * kTile, b0 = (rem % g.tiles_b) * kTile;
    int64_t off[2];
    g.outer.offsets(o, off);
    for (int j = ty; j < kTile; j += kTileRows) {
      const int64_t a = a0 + tx, b = b0 + j;
      if (a < g.A && b < g.B) tile[j][tx] = x[off[1] + a * g.xa + b * g.xb];
    }
    __syncthreads();
    for (int j = ty; j < kTile; j += kTileRows) {
      const int64_t a = a0 + j, b = b0 + tx;
      if (a < g.A && b < g.B) y[off[0] + a * g.ya + b * g.yb] = tile[tx][j];
    }
    __syncthreads();
  }
}

// The tiled geometry when it applies: y unit-stride on the walk's last axis, x on another one.
bool tiled_geometry(const Walk<2>& w, TileGeom& g) {
  const int r = w.rank;
  if (r < 2 || w.stride[0][r - 1] != 1 || w.stride[1][r - 1] == 1 || w.stride[1][r - 1] == -1) return false;
  int a = -1;
  for (int d = 0; d < r - 1; ++d)
    if (w.stride[1][d] == 1 || w.stride[1][d] == -1) a = d;
  if (a < 0 || w.shape[a] < 8 || w.shape[r - 1] < 8) return false;
  if (launch_for(int64_t(1) << 20, kTile * kTileRows).block < unsigned(kTile * kTileRows)) return false;
  g.outer = Walk<2>();
  for (int d = 0; d < r - 1; ++d)
    if (d != a) g.outer.push(w.shape[d], {w.stride[0][d], w.stride[1][d]});
  g.A = w.shape[a];
  g.B = w.shape[r - 1];
  g.ya = w.stride[0][a];
  g.xa = w.stride[1][a];
  g.yb = w.stride[0][r - 1];
  g.xb = w.stride[1][r - 1];
  g.tiles_a = (g.A + kTile - 1) / kTile;
  g.tiles_b = (g.B + kTile - 1) / kTile;
  int64_t planes = 1;
  for (int d = 0; d < g.outer.rank; ++d) planes *= g.outer.shape[d];
  g.total = planes * g.tiles_a * g.tiles_b;
  return true;
}

void transpose_copy_fn(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  if (y.numel() == 0) return;
  const int n = c.attrs.list_size(0);
  const int64_t* perm = c.attrs.list_data(0);
  Tensor v = x;
  for (int d = 0; d < x.rank(); ++d) {
    const int p = n == 0 ? x.rank() - 1 - d : int(perm[d] < 0 ? perm[d] + x.rank() : perm[d]);
    v.shape.d[d] = x.shape.d[p];
    v.strides.d[d] = x.strides.d[p];
  }
  const Walk<2> w = walk_of(y, v);
  TileGeom g;
  if (!tiled_geometry(w, g)) return copy_view(c, y, v);
  const Launch L = launch_for(g.total * kTile * kTileRows, kTile * kTileRows);
  strided::by_word(y.dtype, [&](auto word) {
    using Word = decltype(word);
    transpose_tiled_kernel<Word><<<L.grid, dim3(kTile, kTileRows), 0, stream(c)>>>(
        reinterpret_cast<Word*>(base_of(y)), reinterpret_cast<const Word*>(base_of(v)), g);
  });
  check_launch("transpose_copy");
}

// ---- pad ----------------------------------------------------------------------------------------
enum { kConstant = 0, kReflect = 1, kEdge = 2 };

// Rank 0 is one element and no axis: y = x.
struct PadGeom {
  int32_t rank, mode;
  int64_t y_shape[NDRT_MAX_RANK], y_stride[NDRT_MAX_RANK];
  int64_t x_len[NDRT_MAX_RANK], x_stride[NDRT_MAX_RANK], before[NDRT_MAX_RANK];
};

// y is pad's output (dy for the gradient).
PadGeom pad_geom(const OpContext& c, const Tensor& x, const Tensor& y) {
  PadGeom g;
  g.rank = x.rank();
  g.mode = int32_t(c.attrs.get_int(1));
  const int np = c.attrs.list_size(0);
  const int64_t* pads = c.attrs.list_data(0);
  for (int d = 0; d < g.rank; ++d) {
    g.y_shape[d] = y.shape.d[d];
    g.y_stride[d] = y.strides.d[d];
    g.x_len[d] = x.shape.d[d];
    g.x_stride[d] = x.strides.d[d];
    g.before[d] = np ? pads[2 * d] : 0;
  }
  return g;
}

// Source index along one axis for output index o (-1: the constant value), as the CPU's pad_map.
__host__ __device__ __forceinline__ int64_t pad_source(int64_t o, int64_t before, int64_t len, int mode) {
  int64_t i = o - before;
  if (i < 0 || i >= len) {
    if (mode == kConstant) i = -1;
    else if (mode == kReflect) i = i < 0 ? -i : 2 * (len - 1) - i;
    else i = i < 0 ? 0 : len - 1;
  }
  return i;
}

template <class Word>
__global__ void pad_kernel(Word* y, const Word* x, Word value, PadGeom g, int64_t n) {
  for (int64_t f = strided::first_index(); f < n; f += strided::grid_step()) {
    int64_t rem = f, oy = 0, ox = 0;
    bool fill = false;
    for (int d = g.rank - 1; d >= 0; --d) {
      const int64_t k = rem % g.y_shape[d];
      rem /= g.y_shape[d];
      oy += k * g.y_stride[d];
      const int64_t s = pad_source(k, g.before[d], g.x_len[d], g.mode);
      fill |= s < 0;
      ox += s * g.x_stride[d];
    }
    y[oy] = fill ? value : x[ox];
  }
}

void pad_fn(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  const PadGeom g = pad_geom(c, x, y);
  const uint64_t bits = strided::value_bits(y.dtype, c.attrs.get_float(2));
  const Launch L = launch_for(n);
  strided::by_word(y.dtype, [&](auto word) {
    using Word = decltype(word);
    pad_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(reinterpret_cast<Word*>(base_of(y)),
                                                        reinterpret_cast<const Word*>(base_of(x)),
                                                        strided::word_of<Word>(bits), g, n);
  });
  check_launch("pad");
}

// Output positions along one axis that pad maps to input index i, ascending (the CPU's preimage
// lists): at most three runs of consecutive positions.
struct Preimage {
  int64_t start[3], count[3];
  __host__ __device__ int64_t total() const { return count[0] + count[1] + count[2]; }
  __host__ __device__ int64_t at(int64_t k) const {
    if (k < count[0]) return start[0] + k;
    k -= count[0];
    if (k < count[1]) return start[1] + k;
    return start[2] + k - count[1];
  }
};

__host__ __device__ Preimage preimage(int64_t i, int64_t before, int64_t len, int64_t out_len, int mode) {
  Preimage p = {{0, 0, 0}, {0, 0, 0}};
  const int64_t after = out_len - len - before;
  if (mode == kEdge) {
    const int64_t lo = i == 0 ? 0 : i + before, hi = i == len - 1 ? out_len : i + before + 1;
    p.start[0] = lo;
    p.count[0] = hi - lo;
  } else {
    int r = 0;
    if (mode == kReflect && i >= 1 && i <= before) {  // mirrored in front: o = before - i
      p.start[r] = before - i;
      p.count[r++] = 1;
    }
    p.start[r] = i + before;
    p.count[r++] = 1;
    if (mode == kReflect && i <= len - 2 && i >= len - 1 - after) {  // mirrored behind
      p.start[r] = before + 2 * (len - 1) - i;
      p.count[r++] = 1;
    }
  }
  return p;
}

// dx[i] = sum over the product of the per-axis preimages of i, in row-major order of the output
// positions, in f64 (as the CPU). Rank 0: dx = dy.
template <class T>
__global__ void pad_bp_kernel(T* dx, const T* dy, PadGeom g, int64_t n) {
  for (int64_t f = strided::first_index(); f < n; f += strided::grid_step()) {
    Preimage pre[NDRT_MAX_RANK];
    int64_t pos[NDRT_MAX_RANK], cnt[NDRT_MAX_RANK], rem = f, out_off = 0;
    bool none = false;
    for (int d = g.rank - 1; d >= 0; --d) {
      const int64_t i = rem % g.x_len[d];
      rem /= g.x_len[d];
      out_off += i * g.x_stride[d];  // x_stride holds dx's strides here
      pre[d] = preimage(i, g.before[d], g.x_len[d], g.y_shape[d], g.mode);
      cnt[d] = pre[d].total();
      pos[d] = 0;
      none |= cnt[d] == 0;
    }
    double acc = 0;
    while (!none) {
      int64_t off = 0;
      for (int d = 0; d < g.rank; ++d) off += pre[d].at(pos[d]) * g.y_stride[d];
      acc += double(convert<compute_t<T>>(dy[off]));
      int d = g.rank - 1;
      while (d >= 0 && ++pos[d] == cnt[d]) pos[d--] = 0;
      if (d < 0) break;
    }
    dx[out_off] = strided::from_double<T>(acc);
  }
}

template <class T>
void pad_bp_run(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& dy = *c.in[1];
  const Tensor& dx = *c.out[0];
  const int64_t n = dx.numel();
  if (n == 0) return;
  PadGeom g = pad_geom(c, x, dy);
  for (int d = 0; d < g.rank; ++d) g.x_stride[d] = dx.strides.d[d];
  const Launch L = launch_for(n);
  pad_bp_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(reinterpret_cast<T*>(base_of(dx)),
                                                      reinterpret_cast<const T*>(base_of(dy)), g, n);
  check_launch("pad_bp");
}

void pad_bp_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "pad_bp", [&](auto t) { pad_bp_run<decltype(t)>(c); });
}

// ---- tile ---------------------------------------------------------------------------------------
// x seen with y's rank: leading axes of size 1 (stride 0) where reps is longer than x's rank.
struct TileMap {
  int32_t rank;
  int64_t y_shape[NDRT_MAX_RANK], y_stride[NDRT_MAX_RANK];
  int64_t x_len[NDRT_MAX_RANK], x_stride[NDRT_MAX_RANK];
};

TileMap tile_map(const Tensor& x, const Tensor& y) {
  TileMap m;
  m.rank = y.rank();
  const int lead = y.rank() - x.rank();
  for (int d = 0; d < m.rank; ++d) {
    m.y_shape[d] = y.shape.d[d];
    m.y_stride[d] = y.strides.d[d];
    m.x_len[d] = d < lead ? 1 : x.shape.d[d - lead];
    m.x_stride[d] = d < lead ? 0 : x.strides.d[d - lead];
  }
  return m;
}

template <class Word>
__global__ void tile_kernel(Word* y, const Word* x, TileMap m, int64_t n) {
  for (int64_t f = strided::first_index(); f < n; f += strided::grid_step()) {
    int64_t rem = f, oy = 0, ox = 0;
    for (int d = m.rank - 1; d >= 0; --d) {
      const int64_t k = rem % m.y_shape[d];
      rem /= m.y_shape[d];
      oy += k * m.y_stride[d];
      ox += (k % m.x_len[d]) * m.x_stride[d];
    }
    y[oy] = x[ox];
  }
}

void tile_fn(OpContext& c) {
  const Tensor& x = *c.in[0];
  const Tensor& y = *c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;  // else every x_len > 0
  const TileMap m = tile_map(x, y);
  const Launch L = launch_for(n);
  strided::by_word(y.dtype, [&](auto word) {
    using Word = decltype(word);
    tile_kernel<Word><<<L.grid, L.block, 0, stream(c)>>>(reinterpret_cast<Word*>(base_of(y)),
                                                         reinterpret_cast<const Word*>(base_of(x)), m, n);
  });
  check_launch("tile");
}

// dx[i] = sum over the rep combinations (row-major) of dy at (rep * x_len + i), in f64, in the
// CPU's order. In the map, y is dy and x is dx (padded to dy's rank).
template <class T>
__global__ void tile_bp_kernel(T* dx, const T* dy, TileMap m, int64_t n) {
  for (int64_t f = strided::first_index(); f < n; f += strided::grid_step()) {
    int64_t idx[NDRT_MAX_RANK], reps[NDRT_MAX_RANK], rep[NDRT_MAX_RANK], rem = f, out_off = 0, combos = 1;
    for (int d = m.rank - 1; d >= 0; --d) {
      idx[d] = rem % m.x_len[d];
      rem /= m.x_len[d];
      out_off += idx[d] * m.x_stride[d];
      reps[d] = m.y_shape[d] / m.x_len[d];
      rep[d] = 0;
      combos *= reps[d];
    }
    double acc = 0;
    for (int64_t k = 0; k < combos; ++k) {
      int64_t off = 0;
      for (int d = 0; d < m.rank; ++d) off += (rep[d] * m.x_len[d] + idx[d]) * m.y_stride[d];
      acc += double(convert<compute_t<T>>(dy[off]));
      for (int d = m.rank - 1; d >= 0 && ++rep[d] == reps[d]; --d) rep[d] = 0;
    }
    dx[out_off] = strided::from_double<T>(acc);
  }
}

template <class T>
void tile_bp_run(OpContext& c) {
  const Tensor& dy = *c.in[1];
  const Tensor& dx = *c.out[0];
  const int64_t n = dx.numel();
  if (n == 0) return;
  const TileMap m = tile_map(dx, dy);
  const Launch L = launch_for(n);
  tile_bp_kernel<T><<<L.grid, L.block, 0, stream(c)>>>(reinterpret_cast<T*>(base_of(dx)),
                                                       reinterpret_cast<const T*>(base_of(dy)), m, n);
  check_launch("tile_bp");
}

void tile_bp_fn(OpContext& c) {
  visit<NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16>(c.key_dtype, "tile_bp", [&](auto t) { tile_bp_run<decltype(t)>(c); });
}

}  // namespace

void register_cuda_layout() {
  const std::initializer_list<ndrt_dtype> all = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8,
                                                 NDRT_U8,  NDRT_I32, NDRT_I64, NDRT_BOOL};
  reg("concat", all, concat_fn, "cuda");
  reg("stack", all, stack_fn, "cuda");
  reg("flip", all, flip_fn, "cuda");
  reg("transpose_copy", all, transpose_copy_fn, "cuda");
  reg("pad", all, pad_fn, "cuda");
  reg("tile", all, tile_fn, "cuda");
  reg("pad_bp", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, pad_bp_fn, "cuda");
  reg("tile_bp", {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}, tile_bp_fn, "cuda");
  register_cuda_layout_index();
}

}  // namespace ndrt::cuda
