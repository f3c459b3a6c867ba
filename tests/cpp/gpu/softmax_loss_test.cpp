// CUDA softmax / log_softmax (forward, backward, in place) and losses against the CPU kernels on the
// same inputs: every op x registered dtype, every axis, short rows (several rows per warp), long rows
// (a block per row), non-contiguous inputs, special values, rank 0, size 0, more rows than one grid;
// the class losses with every reduction and label dtype, the class-index ones also with class
// weights and ignore_index on every dtype; the pointwise losses with every reduction and layout.
// Out-of-range labels, which the CPU rejects, give NaN rows on the GPU.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;
using nt::Gen;
using nt::Shape;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};
const std::vector<ndrt_dtype> kLossTypes = {NDRT_F32, NDRT_F64};
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Attrs axis_attr(int64_t axis) { return Attrs{{axis}, {}}; }
Attrs red_attr(int64_t reduction) { return Attrs{{reduction}, {}}; }
std::string what(const std::string& op, ndrt_dtype d) { return op + " " + nt::dtype_str(d); }

// y = op(x) on the CPU, as a pair (the backward ops take the forward output).
Pair forward_pair(const char* op, const Pair& x, int64_t axis) {
  gt::OnDevice on(NDRT_CPU);
  return gt::pair_of(nt::contiguous(nt::run(op, {&x.cpu}, axis_attr(axis))));
}

// ---- softmax -------------------------------------------------------------------------------------
TEST(CudaSoftmax, EveryOpDtypeAndAxis) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(41);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    Pair x = gt::random_pair(d, {6, 37, 5}, rng, nt::uniform_gen(d, -6, 6));
    for (int64_t axis : {-1, 0, 1, 2})
      for (const char* op : {"softmax", "log_softmax"}) {
        gt::expect_same(op, {&x}, axis_attr(axis));
        Pair y = forward_pair(op, x, axis);
        Pair dy = gt::random_pair(d, {6, 37, 5}, rng);
        gt::expect_same(op == std::string("softmax") ? "softmax_bp" : "log_softmax_bp", {&y, &dy}, axis_attr(axis));
      }
  }
}

// Rows of 1, 3 (many rows per warp), 33, 1000 (a block per row) and 5000 (a block of 1024).
TEST(CudaSoftmax, RowLengthsNonContiguousAndRankZero) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(42);
  for (ndrt_dtype d : {NDRT_F32, NDRT_F16}) {
    for (int64_t n : {1, 3, 33, 1000, 5000}) {
      SCOPED_TRACE(what("softmax", d) + " n " + std::to_string(n));
      Pair x = gt::random_pair(d, {7, n}, rng, nt::uniform_gen(d, -8, 8));
      for (const char* op : {"softmax", "log_softmax"}) {
        gt::expect_same(op, {&x}, axis_attr(-1));
        Pair y = forward_pair(op, x, -1);
        Pair dy = gt::random_pair(d, {7, n}, rng);
        gt::expect_same(std::string(op) == "softmax" ? "softmax_bp" : "log_softmax_bp", {&y, &dy}, axis_attr(1));
      }
    }
    Pair base = gt::random_pair(d, {9, 8, 6}, rng);
    Pair permuted = base.permute({2, 0, 1});
    Pair stepped = gt::random_pair(d, {11, 7}, rng).slice(0, -1, -1000000, -2);
    for (const Pair* x : {&permuted, &stepped})
      for (int64_t axis : {0, -1}) {
        gt::expect_same("softmax", {x}, axis_attr(axis));
        gt::expect_same("log_softmax", {x}, axis_attr(axis));
        gt::expect_same("softmax_bp", {x, x}, axis_attr(axis));  // y and dy: the same strided view
        gt::expect_same("log_softmax_bp", {x, x}, axis_attr(axis));
      }
    Pair scalar = gt::random_pair(d, {}, rng);
    for (const char* op : {"softmax", "log_softmax"}) gt::expect_same(op, {&scalar}, axis_attr(-1));
    gt::expect_same("softmax_bp", {&scalar, &scalar}, axis_attr(0));
    for (const Shape& s : {Shape{0, 5}, Shape{4, 0}}) {
      Pair e = gt::random_pair(d, s, rng);
      gt::expect_same("softmax", {&e}, axis_attr(-1));
      gt::expect_same("log_softmax_bp", {&e, &e}, axis_attr(-1));
    }
  }
}

TEST(CudaSoftmax, LargeMagnitudesInfinitiesAndNaN) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    const double big = d == NDRT_F16 ? 60000 : 1000;
    Pair x = gt::values_pair(d, {5, 4}, {big, -big, 0, big,  1, -kInf, 2, -kInf,  1, kInf, 2, 3,  1, kNaN, 2, 3,
                                         -kInf, -kInf, -kInf, -kInf});
    for (const char* op : {"softmax", "log_softmax"}) gt::expect_same(op, {&x}, axis_attr(-1));
  }
}

TEST(CudaSoftmax, InPlace) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(43);
  for (int64_t axis : {0, 1}) {
    Pair x = gt::random_pair(NDRT_F32, {40, 300}, rng, nt::uniform_gen(NDRT_F32, -5, 5));
    nt::Tensor want;
    {
      gt::OnDevice on(NDRT_CPU);
      want = nt::run("log_softmax", {&x.cpu}, axis_attr(axis));
    }
    {
      gt::OnDevice on(gt::kCuda0);
      std::vector<ndrt_handle> out = {x.gpu.get()};
      NT_CHECK(nt::exec("log_softmax", {x.gpu.get()}, out, axis_attr(axis)));
      NT_CHECK(ndrt_synchronize(gt::kCuda0));
    }
    nt::expect_close(nt::read_values(x.gpu), nt::read_values(want), NDRT_F32, gt::cuda_tol(NDRT_F32), "in place");
    // Backward into dy's own view.
    Pair y = forward_pair("softmax", x, axis);
    Pair dy = gt::random_pair(NDRT_F32, {40, 300}, rng);
    {
      gt::OnDevice on(NDRT_CPU);
      want = nt::run("softmax_bp", {&y.cpu, &dy.cpu}, axis_attr(axis));
    }
    {
      gt::OnDevice on(gt::kCuda0);
      std::vector<ndrt_handle> out = {dy.gpu.get()};
      NT_CHECK(nt::exec("softmax_bp", {y.gpu.get(), dy.gpu.get()}, out, axis_attr(axis)));
      NT_CHECK(ndrt_synchronize(gt::kCuda0));
    }
    nt::expect_close(nt::read_values(dy.gpu), nt::read_values(want), NDRT_F32, gt::cuda_tol(NDRT_F32), "bp in place");
  }
}

// More rows than one grid of blocks (a block per row): > 65536 * 256 elements.
TEST(CudaSoftmax, MoreRowsThanOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(44);
  Pair x = gt::random_pair(NDRT_F32, {65600, 257}, rng);
  gt::expect_same("softmax", {&x}, axis_attr(-1));
}

// ---- class losses ----------------------------------------------------------------------------------
Pair labels_pair(ndrt_dtype d, int64_t n, int64_t classes, std::mt19937& rng) {
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_int_distribution<int64_t> u(0, classes - 1);
  for (double& x : v) x = double(u(rng));
  return gt::values_pair(d, {n}, v);
}

// Runs every class loss (forward and backward) for logits x and the given labels / targets.
void expect_class_losses(const Pair& x, const Pair& labels, const Pair& targets, std::mt19937& rng) {
  const ndrt_dtype d = x.cpu.dtype();
  const int64_t n = x.cpu.shape()[0];
  for (int64_t red : {0, 1, 2}) {
    SCOPED_TRACE("reduction " + std::to_string(red));
    Pair dy = gt::random_pair(d, red == 0 ? Shape{n} : Shape{}, rng);
    gt::expect_same("softmax_cross_entropy", {&x, &labels}, red_attr(red));
    gt::expect_same("softmax_cross_entropy_bp", {&x, &labels, &dy}, red_attr(red));
    gt::expect_same("nll_loss", {&x, &labels}, red_attr(red));
    gt::expect_same("nll_loss_bp", {&x, &labels, &dy}, red_attr(red));
    gt::expect_same("softmax_cross_entropy_soft", {&x, &targets}, red_attr(red));
    gt::expect_same("softmax_cross_entropy_soft_bp", {&x, &targets, &dy}, red_attr(red));
  }
}

TEST(CudaLoss, ClassLossesEveryDtypeReductionAndLabelType) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(51);
  for (ndrt_dtype d : kLossTypes)
    for (ndrt_dtype ld : {NDRT_I32, NDRT_I64})
      for (const Shape& s : {Shape{7, 10}, Shape{33, 3}, Shape{3, 1000}, Shape{2, 5000}, Shape{1, 1}}) {
        SCOPED_TRACE(what("class losses", d) + " labels " + nt::dtype_str(ld) + " " + nt::shape_str(s));
        Pair x = gt::random_pair(d, s, rng, nt::uniform_gen(d, -6, 6));
        Pair labels = labels_pair(ld, s[0], s[1], rng);
        Pair targets = gt::random_pair(d, s, rng, nt::uniform_gen(d, 0, 1));
        expect_class_losses(x, labels, targets, rng);
      }
}

TEST(CudaLoss, ClassLossesNonContiguousAndEmptyBatch) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(52);
  Pair xt = gt::random_pair(NDRT_F32, {11, 6}, rng).permute({1, 0});                      // [6, 11] column-major
  Pair labels = labels_pair(NDRT_I64, 12, 11, rng).slice(0, -1, -1000000, -2);            // [6], step -2
  Pair targets = gt::random_pair(NDRT_F32, {12, 11}, rng, nt::uniform_gen(NDRT_F32, 0, 1)).slice(0, 0, 12, 2);
  expect_class_losses(xt, labels, targets, rng);
  Pair empty = gt::random_pair(NDRT_F64, {0, 4}, rng);
  Pair no_labels = gt::values_pair(NDRT_I32, {0}, {});
  Pair no_targets = gt::random_pair(NDRT_F64, {0, 4}, rng);
  expect_class_losses(empty, no_labels, no_targets, rng);  // mean 0 (class indices) or NaN (soft), sum 0
}

TEST(CudaLoss, ClassLossesWithLargeLogits) {
  NDRT_REQUIRE_CUDA();
  Pair x = gt::values_pair(NDRT_F32, {3, 3}, {1000, -1000, 0, -kInf, 5, 1, 80, 90, 100});
  Pair labels = gt::values_pair(NDRT_I32, {3}, {1, 1, 0});
  Pair targets = gt::values_pair(NDRT_F32, {3, 3}, {0, 1, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5});
  std::mt19937 rng(53);
  expect_class_losses(x, labels, targets, rng);
}

// The CPU rejects out-of-range labels; a CUDA kernel cannot fail, so those rows become NaN.
TEST(CudaLoss, OutOfRangeLabelsGiveNaNRows) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(54);
  Pair x = gt::random_pair(NDRT_F32, {3, 5}, rng);
  Pair labels = gt::values_pair(NDRT_I64, {3}, {2, 5, -1});
  gt::OnDevice on(gt::kCuda0);
  for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
    nt::Tensor loss = nt::run(op, {&x.gpu, &labels.gpu}, red_attr(0));
    const std::vector<double> v = nt::read_values(loss);
    ASSERT_EQ(v.size(), 3u);
    EXPECT_TRUE(std::isfinite(v[0])) << op;
    EXPECT_TRUE(std::isnan(v[1]) && std::isnan(v[2])) << op;
  }
}

// Class weights (the optional last input) and ignore_index (attribute 1) on every dtype of the
// class-index losses: a quarter of the rows labelled ignore_index (-100, or a class in range),
// weights contiguous and strided, every reduction, short and long rows, against the CPU.
TEST(CudaLoss, ClassIndexLossesWithWeightsAndIgnoreIndex) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(55);
  for (ndrt_dtype d : kFloats)
    for (const Shape& s : {Shape{7, 10}, Shape{33, 3}, Shape{3, 1000}, Shape{2, 5000}, Shape{0, 4}, Shape{300, 17}})
      for (int64_t ignore : {int64_t(-100), int64_t(1)}) {
        SCOPED_TRACE(what("class-index losses", d) + " " + nt::shape_str(s) + " ignore_index " + std::to_string(ignore));
        const int64_t n = s[0], c = s[1];
        Pair x = gt::random_pair(d, s, rng, nt::uniform_gen(d, -6, 6));
        std::vector<double> lv(static_cast<size_t>(n));
        for (double& v : lv)
          v = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? double(ignore)
                                                                   : double(std::uniform_int_distribution<int64_t>(0, c - 1)(rng));
        Pair labels = gt::values_pair(n % 2 ? NDRT_I32 : NDRT_I64, {n}, lv);
        Pair w = gt::random_pair(d, {c}, rng, nt::uniform_gen(d, 0.25, 2));
        Pair ws = gt::random_pair(d, {2 * c}, rng, nt::uniform_gen(d, 0.25, 2)).slice(0, 0, 2 * c, 2);
        for (int64_t red : {0, 1, 2}) {
          SCOPED_TRACE("reduction " + std::to_string(red));
          const Attrs a{{red, ignore}, {}};
          Pair dy = gt::random_pair(d, red == 0 ? Shape{n} : Shape{}, rng);
          for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
            const std::string bp = std::string(op) + "_bp";
            gt::expect_same(op, {&x, &labels}, a);
            gt::expect_same(op, {&x, &labels, &w}, a);
            gt::expect_same(op, {&x, &labels, &ws}, a);
            gt::expect_same(bp.c_str(), {&x, &labels, &dy}, a);
            gt::expect_same(bp.c_str(), {&x, &labels, &dy, &w}, a);
            gt::expect_same(bp.c_str(), {&x, &labels, &dy, &ws}, a);
          }
        }
      }
}

// Nothing counted (every row ignored, or every counted row of weight 0): mean 0 and zero gradients
// on the GPU as on the CPU. Out-of-range labels next to ignored rows: NaN rows, ignored rows 0.
TEST(CudaLoss, ClassIndexLossesNothingCountedAndOutOfRange) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(56);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    Pair x = gt::random_pair(d, {4, 5}, rng);
    Pair ignored = gt::values_pair(NDRT_I64, {4}, {-100, -100, -100, -100});
    Pair twos = gt::values_pair(NDRT_I32, {4}, {2, 2, 2, 2});
    Pair w = gt::values_pair(d, {5}, {1, 1, 0, 1, 1});
    Pair one = gt::values_pair(d, {}, {1});
    gt::OnDevice on(gt::kCuda0);
    for (const Pair* l : {&ignored, &twos}) {
      EXPECT_EQ(nt::read_values(nt::run("softmax_cross_entropy", {&x.gpu, &l->gpu, &w.gpu})), std::vector<double>{0});
      EXPECT_EQ(nt::read_values(nt::run("nll_loss", {&x.gpu, &l->gpu, &w.gpu})), std::vector<double>{0});
      EXPECT_EQ(nt::read_values(nt::run("softmax_cross_entropy_bp", {&x.gpu, &l->gpu, &one.gpu, &w.gpu})),
                std::vector<double>(20, 0.0));
      EXPECT_EQ(nt::read_values(nt::run("nll_loss_bp", {&x.gpu, &l->gpu, &one.gpu, &w.gpu})),
                std::vector<double>(20, 0.0));
    }
    Pair bad = gt::values_pair(NDRT_I64, {4}, {2, 5, -100, -1});
    for (const char* op : {"softmax_cross_entropy", "nll_loss"}) {
      const std::vector<double> v = nt::read_values(nt::run(op, {&x.gpu, &bad.gpu, &w.gpu}, Attrs{{0, -100}, {}}));
      ASSERT_EQ(v.size(), 4u);
      EXPECT_EQ(v[0], 0.0) << op;  // class 2 has weight 0
      EXPECT_TRUE(std::isnan(v[1]) && std::isnan(v[3])) << op;
      EXPECT_EQ(v[2], 0.0) << op;
    }
  }
}

// ---- pointwise losses --------------------------------------------------------------------------------
struct PointCase {
  const char* op;
  double plo, phi;  // pred / logits range (targets in [0, 1])
};
const std::vector<PointCase> kPointCases = {
    {"mse_loss", -3, 3}, {"l1_loss", -3, 3}, {"binary_cross_entropy", 0.01, 0.99}, {"bce_with_logits", -30, 30}};

void expect_pointwise(const PointCase& k, const Pair& p, const Pair& t, std::mt19937& rng) {
  const ndrt_dtype d = p.cpu.dtype();
  const std::string bp = std::string(k.op) + "_bp";
  for (int64_t red : {0, 1, 2}) {
    SCOPED_TRACE(std::string(k.op) + " reduction " + std::to_string(red));
    Pair dy = gt::random_pair(d, red == 0 ? p.cpu.shape() : Shape{}, rng);
    gt::expect_same(k.op, {&p, &t}, red_attr(red));
    gt::expect_same(bp.c_str(), {&p, &t, &dy}, red_attr(red));
  }
}

TEST(CudaLoss, PointwiseEveryOpDtypeReductionAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(61);
  for (const PointCase& k : kPointCases)
    for (ndrt_dtype d : kLossTypes) {
      SCOPED_TRACE(what(k.op, d));
      const Gen pg = nt::uniform_gen(d, k.plo, k.phi), tg = nt::uniform_gen(d, 0, 1);
      for (const Shape& s : {Shape{7, 13}, Shape{1000}, Shape{}, Shape{0, 3}}) {
        Pair p = gt::random_pair(d, s, rng, pg), t = gt::random_pair(d, s, rng, tg);
        expect_pointwise(k, p, t, rng);
      }
      Pair pt = gt::random_pair(d, {9, 6}, rng, pg).permute({1, 0});
      Pair ts = gt::random_pair(d, {12, 9}, rng, tg).slice(0, -1, -1000000, -2);  // [6, 9]
      Pair te = gt::random_pair(d, {1, 9}, rng, tg).expand({6, 9});
      expect_pointwise(k, pt, ts, rng);
      expect_pointwise(k, ts, te, rng);
    }
}

TEST(CudaLoss, PointwiseExtremesAndMoreThanOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(62);
  // Probabilities 0 and 1 (the clamped logs), equal pred and target (l1's zero gradient).
  Pair p = gt::values_pair(NDRT_F32, {6}, {0, 1, 0.5, 1e-30, 1 - 1e-7, 0.25});
  Pair t = gt::values_pair(NDRT_F32, {6}, {1, 0, 0.5, 1, 0, 0.25});
  for (const PointCase& k : kPointCases) expect_pointwise(k, p, t, rng);
  Pair big_p = gt::random_pair(NDRT_F32, {65536 * 256 + 1001}, rng);
  Pair big_t = gt::random_pair(NDRT_F32, {65536 * 256 + 1001}, rng);
  for (int64_t red : {0, 1}) gt::expect_same("mse_loss", {&big_p, &big_t}, red_attr(red));
  Pair g = gt::random_pair(NDRT_F32, {}, rng);
  gt::expect_same("bce_with_logits_bp", {&big_p, &big_t, &g}, red_attr(1));
}

}  // namespace
