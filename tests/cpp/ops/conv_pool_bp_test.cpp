// conv2d_max_pool2x2_bp_weights and conv2d_max_pool2x2_bp_data (the backward of
// conv2d_bias_max_pool2x2 from the pooled gradient and the window winners) against float64
// references: the convolution's weight and data gradients of the gradient the pooling's backward
// gives (dy at each window's winner, zero elsewhere). Random data and winners; the register tiles'
// geometries (LeNet's two convolutions, rows of one to many vectors with and without a partial last
// vector, more kernel rows than one tile holds, odd pooled widths, more windows than a tile's
// offset block, batches in several chunks) and the plain loops' (rows past 128 floats, f64);
// non-contiguous inputs and outputs; 1 and 2 threads; the same results as the separate ops on a
// real forward's index; which implementation runs where; errors.
#include <cstring>
#include <limits>

#include "conv_test_util.hpp"

using namespace nt;
using ct::Geo;
using ct::geo;

namespace {

struct PooledGrad {
  std::vector<double> dy, index, dz;  // dz: the convolution output's gradient, dense
};

// Random pooled gradient and winners for the (resolved) geometry, and the dense gradient they mean.
PooledGrad pooled_grad(const Geo& g, const std::vector<double>& dy, const std::vector<double>& index) {
  PooledGrad r{dy, index, std::vector<double>(size_t(numel_of(g.ys())), 0.0)};
  const int64_t ph = g.oh / 2, pw = g.ow / 2;
  for (int64_t pl = 0; pl < g.n * g.k; ++pl)
    for (int64_t p = 0; p < ph; ++p)
      for (int64_t q = 0; q < pw; ++q) {
        const size_t at = size_t((pl * ph + p) * pw + q);
        const int e = int(index[at]);
        r.dz[size_t((pl * g.oh + 2 * p + e / 2) * g.ow + 2 * q + e % 2)] = dy[at];
      }
  return r;
}

Shape pooled_shape(const Geo& g) { return {g.n, g.k, g.oh / 2, g.ow / 2}; }

const Gen kWinnerGen = [](std::mt19937& r) { return double(r() % 4); };

struct Setting {
  const char* threads;
  ndrt_dtype d;
};

// The register tiles' geometries (f32, AVX-512) and the plain loops' (row kw * c past 128 floats).
std::vector<Geo> bp_configs() {
  return {
      geo(3, 1, 28, 28, 20, 5, 5),   // LeNet conv 1: 5-float rows, two sets of sums, 144 windows
      geo(3, 20, 12, 12, 50, 5, 5),  // LeNet conv 2: 100-float rows (13 vectors), rows in groups 2 + 2 + 1
      geo(2, 3, 9, 11, 4, 2, 4),     // 12-float rows: a partial last vector
      geo(2, 7, 10, 10, 5, 3, 3),    // 21-float rows
      geo(2, 16, 10, 9, 3, 5, 4),    // 64-float rows: 3 + 2 kernel rows
      geo(2, 2, 7, 9, 3, 2, 4),      // 3x3 windows: an odd last pair of windows
      geo(9, 4, 12, 12, 6, 3, 3),    // a batch in two chunks
      geo(2, 5, 6, 8, 4, 1, 1),      // 1x1 kernel
      geo(1, 2, 14, 9, 3, 9, 2),     // 9 kernel rows
      geo(2, 30, 8, 8, 3, 3, 5),     // 150-float rows: plain loops
      geo(0, 3, 8, 8, 4, 3, 3),      // empty batch: dw all zeros
  };
}

TEST(ConvPoolBp, WeightAndDataGradientsAgainstReference) {
  char old[32];
  size_t need = 0;
  NT_CHECK(ndrt_config_get("cpu.threads", old, sizeof old, &need));
  std::mt19937 rng(31);
  int variant = 0;
  for (const Setting st :
       {Setting{"1", NDRT_F32}, Setting{"2", NDRT_F32}, Setting{"1", NDRT_F64}, Setting{"2", NDRT_F64}}) {
    NT_CHECK(ndrt_config_set("cpu.threads", st.threads));
    for (const Geo& g0 : bp_configs()) {
      const Geo g = g0.resolve();
      const std::string what = std::string(dtype_str(st.d)) + " " + g.str() + " threads " + st.threads;
      SCOPED_TRACE(what);
      const ndrt_dtype d = st.d;
      Operand X = make_operand(d, g.xs(), kAllKinds[variant % 5], default_gen(d), rng);
      Operand W = make_operand(d, g.ws(), kAllKinds[(variant + 1) % 5], default_gen(d), rng);
      Operand DY = make_operand(d, pooled_shape(g), kAllKinds[(variant + 2) % 5], default_gen(d), rng);
      Operand IX = make_operand(NDRT_U8, pooled_shape(g), kAllKinds[(variant + 3) % 5], kWinnerGen, rng);
      const PooledGrad pg = pooled_grad(g, DY.vals, IX.vals);
      const ct::Ref rw = ct::conv_bp_weights_ref(g, X.vals, pg.dz), rx = ct::conv_bp_data_ref(g, W.vals, pg.dz);
      const std::vector<double> ew = rw.extra(ct::acc_eps(d), g.n * (g.oh / 2) * (g.ow / 2));
      const std::vector<double> ex = rx.extra(ct::acc_eps(d), g.k * g.kh * g.kw);
      const std::vector<const Tensor*> in = {&X.view, &W.view, &DY.view, &IX.view};
      std::vector<double> got = run_out("conv2d_max_pool2x2_bp_weights", in, {}, d, g.ws(), kAllOutKinds[variant % 3]);
      expect_close(got, rw.want, d, Tol{0, 0}, "dw " + what, &ew);
      got = run_out("conv2d_max_pool2x2_bp_data", in, {}, d, g.xs(), kAllOutKinds[(variant + 1) % 3]);
      expect_close(got, rx.want, d, Tol{0, 0}, "dx " + what, &ex);
      ++variant;
    }
  }
  NT_CHECK(ndrt_config_set("cpu.threads", old));
}

// On a real forward's winners the ops give what the separate backward gives: max_pool2x2_bp_index,
// then conv2d_bp_weights / conv2d_bp_data (the same sums up to their order); and conv2d_bp_bias on
// the pooled gradient is conv2d_bp_bias on that dense gradient.
TEST(ConvPoolBp, SameAsTheSeparateBackwardOnAForwardsIndex) {
  std::mt19937 rng(7);
  for (const Geo& g0 : {geo(4, 1, 28, 28, 20, 5, 5), geo(4, 20, 12, 12, 50, 5, 5)}) {
    const Geo g = g0.resolve();
    SCOPED_TRACE(g.str());
    Operand X = make_operand(NDRT_F32, g.xs(), Kind::Contig, default_gen(NDRT_F32), rng);
    Operand W = make_operand(NDRT_F32, g.ws(), Kind::Contig, default_gen(NDRT_F32), rng);
    Operand B = make_operand(NDRT_F32, {g.k}, Kind::Contig, default_gen(NDRT_F32), rng);
    Operand DY = make_operand(NDRT_F32, pooled_shape(g), Kind::Contig, default_gen(NDRT_F32), rng);
    std::vector<ndrt_handle> out = {0, 0};
    NT_CHECK(exec("conv2d_bias_max_pool2x2", {X.view.get(), W.view.get(), B.view.get()}, out));
    Tensor y(out[0]), index(out[1]);
    Tensor dz = run("max_pool2x2_bp_index", {&DY.view, &index});
    const Attrs ca = ct::conv_attrs(g, 1);
    const std::vector<const Tensor*> in = {&X.view, &W.view, &DY.view, &index};
    const std::vector<double> dw = read_values(run("conv2d_max_pool2x2_bp_weights", in));
    const std::vector<double> dx = read_values(run("conv2d_max_pool2x2_bp_data", in));
    // Sums of hundreds of terms of up to 4 in f32, in two orders: a few 1e-4 apart at most.
    expect_close(dw, read_values(run("conv2d_bp_weights", {&X.view, &W.view, &dz}, ca)), NDRT_F32, Tol{1e-4, 2e-3},
                 "dw");
    expect_close(dx, read_values(run("conv2d_bp_data", {&X.view, &W.view, &dz}, ca)), NDRT_F32, Tol{1e-4, 1e-3}, "dx");

    Attrs nchw;
    nchw.ints = {0};
    expect_close(read_values(run("conv2d_bp_bias", {&DY.view}, nchw)), read_values(run("conv2d_bp_bias", {&dz}, nchw)),
                 NDRT_F32, Tol{1e-6, 1e-6}, "db");
  }
}

// An index laid out in any way gives what its contiguous copy gives (bit for bit), in these ops and
// in max_pool2x2_bp_index (its u8 staging copy once moved 8 bytes per element).
TEST(ConvPoolBp, NonContiguousIndexIsReadByValue) {
  std::mt19937 rng(12);
  const Geo g = geo(3, 4, 10, 10, 5, 3, 3).resolve();
  Operand X = make_operand(NDRT_F32, g.xs(), Kind::Contig, default_gen(NDRT_F32), rng);
  Operand W = make_operand(NDRT_F32, g.ws(), Kind::Contig, default_gen(NDRT_F32), rng);
  Operand DY = make_operand(NDRT_F32, pooled_shape(g), Kind::Contig, default_gen(NDRT_F32), rng);
  for (Kind k : {Kind::Permuted, Kind::Strided, Kind::Expanded, Kind::Offset}) {
    SCOPED_TRACE(kind_str(k));
    Operand IX = make_operand(NDRT_U8, pooled_shape(g), k, kWinnerGen, rng);
    Tensor dense = from_values(NDRT_U8, pooled_shape(g), IX.vals);
    for (const char* op : {"conv2d_max_pool2x2_bp_weights", "conv2d_max_pool2x2_bp_data"})
      expect_close(read_values(run(op, {&X.view, &W.view, &DY.view, &IX.view})),
                   read_values(run(op, {&X.view, &W.view, &DY.view, &dense})), NDRT_F32, Tol{0, 0}, op);
    expect_close(read_values(run("max_pool2x2_bp_index", {&DY.view, &IX.view})),
                 read_values(run("max_pool2x2_bp_index", {&DY.view, &dense})), NDRT_F32, Tol{0, 0}, "bp_index");
  }
}

// The register tiles run f32 on AVX-512 CPUs with rows of at most 128 floats; the plain loops the
// rest (f64, longer rows, CPUs without AVX-512).
TEST(ConvPoolBp, RegisterTilesRunWhereTheyApply) {
  char direct[8];
  size_t need = 0;
  NT_CHECK(ndrt_config_get("cpu.direct_conv", direct, sizeof direct, &need));
  const bool avx512 = std::string(direct) == "1";
  std::mt19937 rng(3);
  for (const Geo& g0 : bp_configs()) {
    const Geo g = g0.resolve();
    if (g.n == 0) continue;  // nothing runs
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64}) {
      Operand X = make_operand(d, g.xs(), Kind::Contig, default_gen(d), rng);
      Operand W = make_operand(d, g.ws(), Kind::Contig, default_gen(d), rng);
      Operand DY = make_operand(d, pooled_shape(g), Kind::Contig, default_gen(d), rng);
      Operand IX = make_operand(NDRT_U8, pooled_shape(g), Kind::Contig, kWinnerGen, rng);
      const bool tiles = avx512 && d == NDRT_F32 && g.kw * g.c <= 128;
      for (const char* op : {"conv2d_max_pool2x2_bp_weights", "conv2d_max_pool2x2_bp_data"}) {
        const std::string impl = ct::impl_of(op, {&X.view, &W.view, &DY.view, &IX.view}, {});
        EXPECT_TRUE(ct::contains(impl, tiles ? "ndrt:sparse+avx512" : "ndrt:sparse ")) << op << " " << g.str() << "\n"
                                                                                       << impl;
      }
    }
  }
}

TEST(ConvPoolBpErrors, BadIndicesShapesAndDtypesSayWhatIsWrong) {
  auto expect_error = [](ndrt_status want, const char* op, const std::vector<const Tensor*>& in,
                         const std::string& msg) {
    std::vector<ndrt_handle> h, out = {0};
    for (const Tensor* t : in) h.push_back(t->get());
    EXPECT_STATUS(want, exec(op, h, out));
    EXPECT_EQ(out[0], ndrt_handle(0));
    if (!msg.empty()) {
      EXPECT_EQ(std::string(ndrt_last_error()), msg);
    }
  };
  const Shape pooled = {2, 4, 4, 5};
  Tensor x = from_values(NDRT_F32, {2, 3, 10, 12}, std::vector<double>(720, 1.0));
  Tensor w = from_values(NDRT_F32, {4, 3, 3, 3}, std::vector<double>(108, 1.0));
  Tensor dy = from_values(NDRT_F32, pooled, std::vector<double>(160, 1.0));
  std::vector<double> iv(160, 3.0);
  iv[77] = 4.0;
  Tensor idx4 = from_values(NDRT_U8, pooled, iv);
  for (const char* op : {"conv2d_max_pool2x2_bp_weights", "conv2d_max_pool2x2_bp_data"}) {
    SCOPED_TRACE(op);
    const std::string name(op);
    expect_error(NDRT_ERR_INVALID_ARGUMENT, op, {&x, &w, &dy, &idx4},
                 name + ": index holds a value above 3 (a window has 4 elements, 0..3)");
    Tensor idx = from_values(NDRT_U8, pooled, std::vector<double>(160, 2.0));
    Tensor dy_bad = create(NDRT_F32, {2, 4, 5, 5});
    expect_error(NDRT_ERR_SHAPE_MISMATCH, op, {&x, &w, &dy_bad, &idx},
                 name + ": dy [2,4,5,5] and index [2,4,4,5] must both be the pooled output's shape [2,4,4,5]");
    Tensor idx_i32 = create(NDRT_I32, pooled);
    expect_error(NDRT_ERR_DTYPE_MISMATCH, op, {&x, &w, &dy, &idx_i32},
                 name + ": index must be u8 (as conv2d_bias_max_pool2x2 writes it), got i32");
    Tensor dy64 = create(NDRT_F64, pooled);
    expect_error(NDRT_ERR_DTYPE_MISMATCH, op, {&x, &w, &dy64, &idx},
                 name + ": input 2 is f64 but input 0 is f32 (cast explicitly)");
    Tensor x_odd = create(NDRT_F32, {2, 3, 9, 12});
    expect_error(NDRT_ERR_SHAPE_MISMATCH, op, {&x_odd, &w, &dy, &idx},
                 name + ": the convolution's output is 7x10; 2x2 windows at stride 2 need both even");
    Tensor x16 = create(NDRT_F16, {2, 3, 10, 12}), w16 = create(NDRT_F16, {4, 3, 3, 3}),
           dy16 = create(NDRT_F16, pooled);
    expect_error(NDRT_ERR_NOT_SUPPORTED, op, {&x16, &w16, &dy16, &idx}, "");
  }
}

}  // namespace
