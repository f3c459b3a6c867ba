// CUDA layout ops against the CPU: concat, stack, flip, transpose_copy, pad, pad_bp, tile,
// tile_bp, gather, gather_bp, scatter, scatter_add, one_hot; every registered dtype, strided and
// broadcast inputs, outputs given as strided views, rank 0, size 0, and one launch bigger than a
// grid. The CUDA kernels do not report out-of-range indices (no host sync), so none are tested.
#include "gpu/gpu_test.hpp"

namespace {

using Idx = std::vector<int64_t>;

const ndrt_dtype kFloats[] = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

nt::Attrs list_attr(const Idx& list) {  // one list attribute
  nt::Attrs a;
  a.ints.push_back(int64_t(list.size()));
  a.ints.insert(a.ints.end(), list.begin(), list.end());
  return a;
}
nt::Attrs axis_attr(int64_t axis) { return nt::Attrs{{axis}, {}}; }
nt::Attrs pad_attrs(const Idx& pads, int mode, double value) {
  nt::Attrs a = list_attr(pads);
  a.ints.push_back(mode);
  a.floats.push_back(value);
  return a;
}

// Runs op on the CPU (fresh output) and on cuda:0 into every other element of the last axis of a
// poisoned tensor twice as wide (a strided output view), and compares.
void expect_same_strided_out(const char* op, const std::vector<const gt::Pair*>& in, const nt::Attrs& a) {
  std::vector<const nt::Tensor*> cpu_in, gpu_in;
  for (const gt::Pair* p : in) {
    cpu_in.push_back(&p->cpu);
    gpu_in.push_back(&p->gpu);
  }
  nt::Tensor want;
  {
    gt::OnDevice on(NDRT_CPU);
    want = nt::run(op, cpu_in, a);
  }
  const ndrt_dtype d = want.dtype();
  nt::Shape wide = want.shape();
  ASSERT_FALSE(wide.empty());
  wide.back() *= 2;
  std::vector<uint8_t> poison = nt::poison_bytes(d, nt::numel_of(wide));
  nt::Tensor big = gt::to_device(nt::from_bytes(d, wide, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0);
  nt::Tensor view = nt::slice(big, int32_t(wide.size() - 1), 0, wide.back(), 2);
  {
    gt::OnDevice on(gt::kCuda0);
    nt::run_into(op, gpu_in, view, a);
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
  }
  nt::expect_close(nt::read_values(view), nt::read_values(want), d, gt::cuda_tol(d),
                   std::string(op) + " into a strided view (cuda vs cpu)");
}

// Index values in [-n, n) (gather/scatter allow negative ones), repeating.
gt::Pair index_pair(ndrt_dtype d, const nt::Shape& s, int64_t n, std::mt19937& rng, bool negative = true) {
  std::vector<double> v(size_t(nt::numel_of(s)));
  for (double& x : v) x = double(int64_t(rng() % uint64_t(n)) - (negative && rng() % 2 ? n : 0));
  return gt::values_pair(d, s, v);
}

double pad_value(ndrt_dtype d) {
  switch (d) {
    case NDRT_BOOL: return 1;
    case NDRT_U8: return 200;
    case NDRT_I8: case NDRT_I32: case NDRT_I64: return -7;
    default: return -7.5;
  }
}

TEST(CudaLayout, ConcatEveryDtypeAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(1);
  for (ndrt_dtype d : nt::kAllDtypes) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair a = gt::random_pair(d, {2, 3, 4}, rng), b = gt::random_pair(d, {2, 5, 4}, rng);
    gt::Pair e = gt::random_pair(d, {2, 0, 4}, rng);
    gt::Pair bt = gt::random_pair(d, {4, 5, 2}, rng).permute({2, 1, 0});
    gt::expect_same("concat", {&a, &b, &e, &bt}, axis_attr(1));
    gt::expect_same("concat", {&a, &a}, axis_attr(-1));
    gt::Pair wide = gt::random_pair(d, {2, 1, 4}, rng).expand({2, 6, 4});
    gt::expect_same("concat", {&wide, &a}, axis_attr(1));
  }
  std::vector<gt::Pair> many;
  for (int i = 0; i < 40; ++i) many.push_back(gt::random_pair(NDRT_F32, {3, 1 + i % 3}, rng));
  std::vector<const gt::Pair*> ptrs;
  for (const gt::Pair& p : many) ptrs.push_back(&p);
  gt::expect_same("concat", ptrs, axis_attr(1));
  gt::Pair e0 = gt::random_pair(NDRT_I64, {0}, rng);
  gt::expect_same("concat", {&e0, &e0}, axis_attr(0));
  gt::Pair a = gt::random_pair(NDRT_F32, {3, 7}, rng);
  expect_same_strided_out("concat", {&a, &a}, axis_attr(0));
}

TEST(CudaLayout, StackEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(2);
  for (ndrt_dtype d : nt::kAllDtypes) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair a = gt::random_pair(d, {3, 5}, rng), b = gt::random_pair(d, {5, 3}, rng).permute({1, 0});
    for (int64_t axis : {0, 1, 2, -1}) gt::expect_same("stack", {&a, &b, &a}, axis_attr(axis));
    gt::Pair s = gt::random_pair(d, {}, rng);
    gt::expect_same("stack", {&s, &s, &s}, axis_attr(0));  // scalars
  }
  gt::Pair e = gt::random_pair(NDRT_F32, {0, 2}, rng);
  gt::expect_same("stack", {&e, &e}, axis_attr(1));
  gt::Pair a = gt::random_pair(NDRT_F32, {4, 3}, rng);
  expect_same_strided_out("stack", {&a, &a}, axis_attr(1));
}

TEST(CudaLayout, FlipEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(3);
  for (ndrt_dtype d : nt::kAllDtypes) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair x = gt::random_pair(d, {4, 6, 5}, rng);
    for (Idx axes : {Idx{}, Idx{0}, Idx{-1}, Idx{0, 2}}) gt::expect_same("flip", {&x}, list_attr(axes));
    gt::Pair stepped = x.slice(1, 5, 0, -2);
    gt::expect_same("flip", {&stepped}, list_attr({1}));
    gt::Pair s = gt::random_pair(d, {}, rng);
    gt::expect_same("flip", {&s}, list_attr({}));
  }
  gt::Pair e = gt::random_pair(NDRT_F32, {3, 0}, rng);
  gt::expect_same("flip", {&e}, list_attr({}));
  gt::Pair x = gt::random_pair(NDRT_F32, {5, 7}, rng);
  expect_same_strided_out("flip", {&x}, list_attr({0}));
}

TEST(CudaLayout, TransposeCopyTiledAndStrided) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(4);
  for (ndrt_dtype d : nt::kAllDtypes) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair m = gt::random_pair(d, {67, 45}, rng);  // tiled, partial tiles on both axes
    gt::expect_same("transpose_copy", {&m}, list_attr({}));
    gt::Pair x = gt::random_pair(d, {9, 33, 17}, rng);
    for (Idx perm : {Idx{2, 0, 1}, Idx{0, 2, 1}, Idx{1, 0, 2}, Idx{}, Idx{-1, 1, 0}})
      gt::expect_same("transpose_copy", {&x}, list_attr(perm));
    gt::Pair stepped = x.slice(1, 0, 33, 2);
    gt::expect_same("transpose_copy", {&stepped}, list_attr({2, 1, 0}));
    gt::Pair small = gt::random_pair(d, {3, 5}, rng);
    gt::expect_same("transpose_copy", {&small}, list_attr({}));
  }
  gt::Pair s = gt::random_pair(NDRT_F32, {}, rng);
  gt::expect_same("transpose_copy", {&s}, list_attr({}));
  gt::Pair e = gt::random_pair(NDRT_F32, {0, 4}, rng);
  gt::expect_same("transpose_copy", {&e}, list_attr({}));
  gt::Pair x = gt::random_pair(NDRT_F32, {40, 24}, rng);
  expect_same_strided_out("transpose_copy", {&x}, list_attr({}));
}

TEST(CudaLayout, PadEveryDtypeAndMode) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(5);
  for (ndrt_dtype d : nt::kAllDtypes) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair x = gt::random_pair(d, {4, 5, 6}, rng);
    for (int mode : {0, 1, 2}) {
      gt::expect_same("pad", {&x}, pad_attrs({1, 2, 0, 3, 2, 1}, mode, pad_value(d)));
      gt::Pair t = x.permute({2, 0, 1});
      gt::expect_same("pad", {&t}, pad_attrs({3, 0, 1, 1, 0, 4}, mode, pad_value(d)));
    }
    gt::expect_same("pad", {&x}, pad_attrs({}, 0, 0));
    gt::Pair s = gt::random_pair(d, {}, rng);
    gt::expect_same("pad", {&s}, pad_attrs({}, 0, 0));
  }
  gt::Pair e = gt::random_pair(NDRT_F32, {0, 3}, rng);
  gt::expect_same("pad", {&e}, pad_attrs({1, 1, 0, 2}, 0, 2.0));  // only the constant
  gt::Pair x = gt::random_pair(NDRT_F32, {5, 6}, rng);
  expect_same_strided_out("pad", {&x}, pad_attrs({2, 1, 1, 3}, 1, 0));
}

TEST(CudaLayout, PadBpFloatDtypes) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(6);
  for (ndrt_dtype d : kFloats)
    for (int mode : {0, 1, 2}) {
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + " mode " + std::to_string(mode));
      gt::Pair x = gt::random_pair(d, {4, 5, 3}, rng);
      gt::Pair dy = gt::random_pair(d, {4 + 3, 5 + 4, 3 + 2}, rng);
      gt::expect_same("pad_bp", {&x, &dy}, pad_attrs({1, 2, 4, 0, 1, 1}, mode, 0));
      gt::Pair dyt = gt::random_pair(d, {5, 9, 7}, rng).permute({2, 1, 0});  // (7, 9, 5)
      gt::expect_same("pad_bp", {&x, &dyt}, pad_attrs({1, 2, 4, 0, 1, 1}, mode, 0));
      gt::Pair edge = gt::random_pair(d, {1, 3}, rng), dye = gt::random_pair(d, {4, 6}, rng);
      if (mode != 1) gt::expect_same("pad_bp", {&edge, &dye}, pad_attrs({2, 1, 1, 2}, mode, 0));
    }
  gt::Pair s = gt::random_pair(NDRT_F32, {}, rng);
  gt::expect_same("pad_bp", {&s, &s}, pad_attrs({}, 0, 0));
}

TEST(CudaLayout, TileAndTileBp) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(7);
  for (ndrt_dtype d : nt::kAllDtypes) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair x = gt::random_pair(d, {3, 4}, rng);
    for (Idx reps : {Idx{2, 3}, Idx{2, 1, 3}, Idx{3}, Idx{0, 2}, Idx{}})
      gt::expect_same("tile", {&x}, list_attr(reps));
    gt::Pair t = x.permute({1, 0});
    gt::expect_same("tile", {&t}, list_attr({2, 2}));
    gt::Pair s = gt::random_pair(d, {}, rng);
    gt::expect_same("tile", {&s}, list_attr({3}));
  }
  gt::Pair x = gt::random_pair(NDRT_F32, {3, 4}, rng);
  expect_same_strided_out("tile", {&x}, list_attr({2, 3}));
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair xb = gt::random_pair(d, {3, 4}, rng);
    gt::Pair dy = gt::random_pair(d, {2, 6, 12}, rng);
    gt::expect_same("tile_bp", {&xb, &dy}, list_attr({2, 2, 3}));
    gt::Pair dyt = gt::random_pair(d, {12, 6}, rng).permute({1, 0});
    gt::expect_same("tile_bp", {&xb, &dyt}, list_attr({2, 3}));
  }
}

TEST(CudaLayout, GatherEveryDtypeAndIndexType) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(8);
  for (ndrt_dtype d : nt::kAllDtypes)
    for (ndrt_dtype id : {NDRT_I32, NDRT_I64}) {
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + " " + nt::dtype_str(id));
      gt::Pair x = gt::random_pair(d, {5, 7, 3}, rng);
      gt::Pair idx = index_pair(id, {2, 4}, 7, rng);
      gt::expect_same("gather", {&x, &idx}, axis_attr(1));
      gt::Pair idx0 = index_pair(id, {6}, 5, rng);
      gt::expect_same("gather", {&x, &idx0}, axis_attr(0));
      gt::Pair idxl = index_pair(id, {3, 1, 2}, 3, rng);
      gt::expect_same("gather", {&x, &idxl}, axis_attr(-1));
      gt::Pair scalar = index_pair(id, {}, 7, rng);
      gt::expect_same("gather", {&x, &scalar}, axis_attr(1));
      gt::Pair xt = x.permute({2, 0, 1});
      gt::Pair it = index_pair(id, {4, 5}, 5, rng).permute({1, 0});
      gt::expect_same("gather", {&xt, &it}, axis_attr(1));
    }
  gt::Pair x = gt::random_pair(NDRT_F32, {6, 4}, rng);
  gt::Pair idx = index_pair(NDRT_I64, {5}, 6, rng);
  expect_same_strided_out("gather", {&x, &idx}, axis_attr(0));
  gt::Pair none = index_pair(NDRT_I64, {0}, 6, rng);
  gt::expect_same("gather", {&x, &none}, axis_attr(0));
}

TEST(CudaLayout, ScatterLastWinsEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(9);
  for (ndrt_dtype d : nt::kAllDtypes)
    for (ndrt_dtype id : {NDRT_I32, NDRT_I64}) {
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + " " + nt::dtype_str(id));
      gt::Pair x = gt::random_pair(d, {5, 7, 3}, rng);
      gt::Pair idx = index_pair(id, {3, 4}, 7, rng);  // 12 positions into 7: repeats
      gt::Pair upd = gt::random_pair(d, {5, 3, 4, 3}, rng);
      gt::expect_same("scatter", {&x, &idx, &upd}, axis_attr(1));
      gt::Pair idx0 = index_pair(id, {}, 5, rng);
      gt::Pair upd0 = gt::random_pair(d, {7, 3}, rng);
      gt::expect_same("scatter", {&x, &idx0, &upd0}, axis_attr(0));
      gt::Pair xt = x.permute({2, 1, 0});  // (3, 7, 5)
      gt::Pair updt = gt::random_pair(d, {5, 3, 4, 3}, rng).permute({3, 1, 2, 0});  // (3, 3, 4, 5)
      gt::expect_same("scatter", {&xt, &idx, &updt}, axis_attr(1));
    }
  gt::Pair x = gt::random_pair(NDRT_F32, {6, 4}, rng);
  gt::Pair none = index_pair(NDRT_I64, {0}, 6, rng);
  gt::Pair upd_none = gt::random_pair(NDRT_F32, {0, 4}, rng);
  gt::expect_same("scatter", {&x, &none, &upd_none}, axis_attr(0));
}

TEST(CudaLayout, ScatterAddAndGatherBpAccumulateInOrder) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(10);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I32, NDRT_I64})
    for (ndrt_dtype id : {NDRT_I32, NDRT_I64}) {
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + " " + nt::dtype_str(id));
      gt::Pair x = gt::random_pair(d, {4, 6, 5}, rng);
      gt::Pair idx = index_pair(id, {5, 7}, 6, rng);  // 35 positions into 6
      gt::Pair upd = gt::random_pair(d, {4, 5, 7, 5}, rng);
      gt::expect_same("scatter_add", {&x, &idx, &upd}, axis_attr(1));
      gt::Pair xt = gt::random_pair(d, {5, 6, 4}, rng).permute({2, 1, 0});
      gt::expect_same("scatter_add", {&xt, &idx, &upd}, axis_attr(-2));
      if (d == NDRT_I32 || d == NDRT_I64) continue;
      gt::expect_same("gather_bp", {&x, &idx, &upd}, axis_attr(1));
      gt::Pair emb = gt::random_pair(d, {50, 16}, rng);  // an embedding gradient
      gt::Pair tokens = index_pair(id, {8, 40}, 50, rng, false);
      gt::Pair dy = gt::random_pair(d, {8, 40, 16}, rng);
      gt::expect_same("gather_bp", {&emb, &tokens, &dy}, axis_attr(0));
    }
}

// scatter in place (y = x) on both sides.
TEST(CudaLayout, ScatterInPlace) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(11);
  for (const char* op : {"scatter", "scatter_add"}) {
    gt::Pair x = gt::random_pair(NDRT_F32, {8, 6}, rng);
    gt::Pair idx = index_pair(NDRT_I32, {5}, 8, rng);
    gt::Pair upd = gt::random_pair(NDRT_F32, {5, 6}, rng);
    std::vector<ndrt_handle> cpu_out = {x.cpu.get()}, gpu_out = {x.gpu.get()};
    {
      gt::OnDevice on(NDRT_CPU);
      NT_CHECK(nt::exec(op, {x.cpu.get(), idx.cpu.get(), upd.cpu.get()}, cpu_out, axis_attr(0)));
    }
    {
      gt::OnDevice on(gt::kCuda0);
      NT_CHECK(nt::exec(op, {x.gpu.get(), idx.gpu.get(), upd.gpu.get()}, gpu_out, axis_attr(0)));
    }
    nt::expect_close(nt::read_values(x.gpu), nt::read_values(x.cpu), NDRT_F32, gt::cuda_tol(NDRT_F32), op);
  }
}

TEST(CudaLayout, OneHotEveryDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(12);
  for (ndrt_dtype d : nt::kAllDtypes)
    for (ndrt_dtype id : {NDRT_I32, NDRT_I64}) {
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + " " + nt::dtype_str(id));
      gt::Pair idx = index_pair(id, {3, 5}, 7, rng, false);
      const double on = d == NDRT_BOOL ? 1 : 3, off = d == NDRT_U8 ? 2 : 0;
      for (int64_t axis : {-1, 0, 1})
        gt::expect_same("one_hot", {&idx}, nt::Attrs{{7, d, axis}, {on, off}});
      gt::Pair it = idx.permute({1, 0});
      gt::expect_same("one_hot", {&it}, nt::Attrs{{7, d, -1}, {on, off}});
    }
  gt::Pair s = index_pair(NDRT_I64, {}, 4, rng, false);
  gt::expect_same("one_hot", {&s}, nt::Attrs{{4, NDRT_F32, -1}, {1.0, 0.0}});
  // Depth 0: no index is in range (the cpu rejects any), so only no indices give the empty [0, 0].
  gt::Pair none = index_pair(NDRT_I64, {0}, 4, rng, false);
  gt::expect_same("one_hot", {&none}, nt::Attrs{{0, NDRT_F32, -1}, {1.0, 0.0}});
  gt::Pair idx = index_pair(NDRT_I64, {6}, 4, rng, false);
  expect_same_strided_out("one_hot", {&idx}, nt::Attrs{{4, NDRT_F32, 0}, {1.0, -1.0}});
}

// More elements than one grid of the default configuration (65536 blocks of 256 threads).
TEST(CudaLayout, BiggerThanOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(13);
  const int64_t n = 65536LL * 256 + 1001;
  gt::Pair x = gt::random_pair(NDRT_F32, {n}, rng);
  gt::expect_same("flip", {&x}, list_attr({}));
}

}  // namespace
