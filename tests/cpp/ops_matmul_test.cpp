// matmul against a float64 reference: 2-D and batched with broadcast batch axes, all four
// transpose combinations, non-contiguous inputs (column-major, negative strides, stride 0, offset),
// odd sizes, K = 0 (zeros), M or N = 0, and the shape/dtype errors.
#include <algorithm>
#include <cmath>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

Attrs mm_attrs(bool ta, bool tb) { return Attrs{{ta ? 1 : 0, tb ? 1 : 0}, {}}; }

struct MM {
  Shape out;
  std::vector<double> want, extra;
};

MM matmul_ref(const std::vector<double>& a, const Shape& sa, const std::vector<double>& b, const Shape& sb, bool ta,
              bool tb, double eps) {
  const size_t ra = sa.size(), rb = sb.size();
  const int64_t M = ta ? sa[ra - 1] : sa[ra - 2], K = ta ? sa[ra - 2] : sa[ra - 1];
  const int64_t N = tb ? sb[rb - 2] : sb[rb - 1];
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  Shape batch = broadcast(ba, bb);
  MM r;
  r.out = batch;
  r.out.push_back(M);
  r.out.push_back(N);
  const int64_t nb = numel_of(batch);
  r.want.assign(size_t(nb * M * N), 0);
  r.extra.assign(r.want.size(), 0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    std::vector<int64_t> idx = unravel(bi, batch);
    const int64_t ia = broadcast_index(idx, batch, ba) * M * K, ib = broadcast_index(idx, batch, bb) * K * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          double x = a[size_t(ia + (ta ? k * M + m : m * K + k))];
          double y = b[size_t(ib + (tb ? n * K + k : k * N + n))];
          acc += x * y;
          mag += std::fabs(x * y);
        }
        size_t o = size_t((bi * M + m) * N + n);
        r.want[o] = acc;
        r.extra[o] = eps * std::sqrt(double(std::max<int64_t>(K, 1))) * mag;
      }
  }
  return r;
}

void check_matmul(ndrt_dtype d, Shape sa, Shape sb, bool ta, bool tb, Kind ka, Kind kb, OutKind ok,
                  std::mt19937& rng) {
  // sa/sb are given untransposed ([.., M, K] and [.., K, N]); swap the last two for the flags.
  if (ta) std::swap(sa[sa.size() - 1], sa[sa.size() - 2]);
  if (tb) std::swap(sb[sb.size() - 1], sb[sb.size() - 2]);
  std::string what = std::string("matmul ") + dtype_str(d) + " " + shape_str(sa) + (ta ? "^T " : " ") + kind_str(ka) +
                     " x " + shape_str(sb) + (tb ? "^T " : " ") + kind_str(kb) + ", " + out_kind_str(ok);
  SCOPED_TRACE(what);
  Operand A = make_operand(d, sa, ka, default_gen(d), rng);
  Operand B = make_operand(d, sb, kb, default_gen(d), rng);
  MM r = matmul_ref(A.vals, sa, B.vals, sb, ta, tb, d == NDRT_F32 ? 1e-5 : 1e-12);
  std::vector<double> got = run_out("matmul", {&A.view, &B.view}, mm_attrs(ta, tb), d, r.out, ok);
  expect_close(got, r.want, d, default_tol(d), what, &r.extra);
}

class Matmul : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(Matmul, TwoDimensionalAllTransposesLayoutsAndOutputs) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(555 + d);
  int v = 0;
  for (int t = 0; t < 4; ++t)
    for (Kind ka : kAllKinds)
      for (Kind kb : {Kind::Contig, Kind::Permuted, Kind::Strided}) {
        OutKind ok = kAllOutKinds[v++ % 3];
        check_matmul(d, {17, 33}, {33, 9}, t & 1, t & 2, ka, kb, ok, rng);
      }
  // Other odd sizes, including degenerate vectors.
  for (int t = 0; t < 4; ++t) {
    check_matmul(d, {1, 1}, {1, 1}, t & 1, t & 2, Kind::Contig, Kind::Contig, OutKind::Given, rng);
    check_matmul(d, {1, 13}, {13, 1}, t & 1, t & 2, Kind::Strided, Kind::Permuted, OutKind::GivenView, rng);
    check_matmul(d, {9, 1}, {1, 11}, t & 1, t & 2, Kind::Permuted, Kind::Offset, OutKind::Fresh, rng);
    check_matmul(d, {5, 64}, {64, 3}, t & 1, t & 2, Kind::Expanded, Kind::Expanded, OutKind::Fresh, rng);
  }
}

TEST_P(Matmul, BatchedWithBroadcastBatchAxes) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(8080 + d);
  struct C {
    Shape a, b;
  };
  const C cases[] = {
      {{4, 5, 3}, {4, 3, 6}},          // same batch
      {{2, 1, 5, 4}, {3, 4, 6}},       // batch [2,1] with [3]
      {{5, 4}, {2, 3, 4, 6}},          // rank 2 with rank 4
      {{2, 3, 5, 4}, {4, 6}},          // rank 4 with rank 2
      {{1, 3, 7, 2}, {2, 1, 2, 5}},    // both broadcast
      {{2, 0, 3, 4}, {1, 4, 2}},       // empty batch axis: [2,0] with [1]
      {{2, 1, 1, 3, 2}, {1, 2, 3, 2, 2}},  // rank 5
  };
  int v = 0;
  for (const C& c : cases)
    for (int t = 0; t < 4; ++t) {
      Kind ka = kAllKinds[v % 5], kb = kAllKinds[(v + 2) % 5];
      OutKind ok = kAllOutKinds[v % 3];
      ++v;
      check_matmul(d, c.a, c.b, t & 1, t & 2, ka, kb, ok, rng);
    }
}

TEST_P(Matmul, InnerSizeZeroGivesZerosAndEmptyOuterSizesGiveEmpty) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(31 + d);
  for (int t = 0; t < 4; ++t)
    for (OutKind ok : kAllOutKinds) {
      check_matmul(d, {4, 0}, {0, 5}, t & 1, t & 2, Kind::Contig, Kind::Contig, ok, rng);
      check_matmul(d, {2, 3, 0}, {0, 2}, t & 1, t & 2, Kind::Permuted, Kind::Strided, ok, rng);
      check_matmul(d, {0, 4}, {4, 5}, t & 1, t & 2, Kind::Contig, Kind::Permuted, ok, rng);
      check_matmul(d, {3, 4}, {4, 0}, t & 1, t & 2, Kind::Strided, Kind::Contig, ok, rng);
    }
}

TEST_P(Matmul, LargerSizes) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(2024 + d);
  check_matmul(d, {130, 257}, {257, 190}, false, false, Kind::Contig, Kind::Contig, OutKind::Fresh, rng);
  check_matmul(d, {130, 257}, {257, 190}, true, true, Kind::Strided, Kind::Permuted, OutKind::GivenView, rng);
  check_matmul(d, {3, 65, 129}, {129, 31}, false, true, Kind::Offset, Kind::Expanded, OutKind::Given, rng);
}

INSTANTIATE_TEST_SUITE_P(Core, Matmul, ::testing::Values(NDRT_F32, NDRT_F64),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

TEST(MatmulErrors, ShapesThatDoNotFitAreShapeMismatch) {
  Tensor a = create(NDRT_F32, {3, 4});
  Tensor b = create(NDRT_F32, {5, 6});
  Tensor v = create(NDRT_F32, {4});
  Tensor b3 = create(NDRT_F32, {2, 4, 6});
  Tensor a3 = create(NDRT_F32, {3, 3, 4});
  int64_t live = live_handles();
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("matmul", {&a, &b}, nullptr));
  EXPECT_NE(std::string(ndrt_last_error()).find("matmul"), std::string::npos) << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("matmul", {&a, &v}, nullptr));
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("matmul", {&v, &a}, nullptr));
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("matmul", {&a3, &b3}, nullptr));  // batch 3 vs 2
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("matmul", {&a, &a}, nullptr));
  EXPECT_STATUS(NDRT_OK, try_run("matmul", {&a, &a}, nullptr, mm_attrs(false, true)));
  EXPECT_EQ(live_handles(), live);
  Tensor out_wrong = create(NDRT_F32, {4, 3});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("matmul", {&a, &a}, &out_wrong, mm_attrs(false, true)));
}

TEST(MatmulErrors, DtypesWithoutKernelsAndMixedDtypesAreRefused) {
  Tensor d64 = create(NDRT_F64, {2, 2});
  Tensor f32 = create(NDRT_F32, {2, 2});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("matmul", {&f32, &d64}, nullptr));
  std::vector<ndrt_dtype> have = cpu_dtypes("matmul");
  EXPECT_NE(std::find(have.begin(), have.end(), NDRT_F32), have.end());
  EXPECT_NE(std::find(have.begin(), have.end(), NDRT_F64), have.end());
  for (ndrt_dtype d : kAllDtypes) {
    if (std::find(have.begin(), have.end(), d) != have.end()) continue;
    Tensor x = create(d, {2, 2});
    SCOPED_TRACE(dtype_str(d));
    EXPECT_STATUS(NDRT_ERR_NOT_SUPPORTED, try_run("matmul", {&x, &x}, nullptr));
  }
}

// matmul does not run in place: an output that is (or overlaps) an input is refused, or the result
// is as if the inputs had been read first.
TEST(MatmulErrors, OutputAliasingAnInput) {
  std::vector<double> av = {1, 2, 3, 4}, bv = {5, 6, 7, 8};
  Tensor a = from_values(NDRT_F64, {2, 2}, av);
  Tensor b = from_values(NDRT_F64, {2, 2}, bv);
  ndrt_status s = try_run("matmul", {&a, &b}, &a);
  EXPECT_TRUE(s == NDRT_ERR_INVALID_ARGUMENT || s == NDRT_OK) << describe_status(s);
  if (s == NDRT_OK) {
    EXPECT_EQ(read_values(a), (std::vector<double>{19, 22, 43, 50}));
  } else {
    EXPECT_EQ(read_values(a), av) << "a refused call must not write";
  }
}

TEST(MatmulErrors, BoolAttributesMustBeZeroOrOne) {
  Tensor a = create(NDRT_F32, {2, 2});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("matmul", {&a, &a}, nullptr, Attrs{{2}, {}}));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("matmul", {&a, &a}, nullptr, Attrs{{0, 1, 1}, {}}));
  EXPECT_STATUS(NDRT_OK, try_run("matmul", {&a, &a}, nullptr, Attrs{{1}, {}}));  // a prefix; the rest default
}

}  // namespace
