// CUDA sequence ops against the CPU on the same inputs: conv1d and its gradients (the conv1d
// lowering onto cuDNN's conv2d) in both layouts and every dtype with stride, asymmetric padding,
// dilation and groups; sequence_pool / sequence_pool_bp in every mode with masks that have
// all-valid, all-masked and scattered rows, on a permuted view too.
#include <algorithm>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

// cuda_tol widened by the reduction length R (cuDNN sums in other orders).
nt::Tol sum_tol(ndrt_dtype d, int64_t R) {
  nt::Tol t = gt::cuda_tol(d);
  t.atol = std::max(t.atol, (d == NDRT_F32 ? 1e-6 : d == NDRT_F64 ? 1e-15 : d == NDRT_F16 ? 1e-4 : 5e-4) * double(R));
  return t;
}

TEST(CudaSequence, Conv1dEveryPassDtypeAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(3);
  for (ndrt_dtype d : kFloats)
    for (int nwc : {0, 1}) {
      // x [3, 6, 20] (NCW), w [8, 3, 3] with groups 2, stride 2, padding [2, 1], dilation 2 -> width
      // (20 + 3 - 5) / 2 + 1 = 10.
      const int64_t N = 3, C = 6, W = 20, K = 8, kw = 3, OW = 10;
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + (nwc ? " NWC" : " NCW"));
      Attrs a{{2, 2, 2, 1, 0, 2, 2, nwc, 0}, {}};
      Pair x = gt::random_pair(d, nwc ? nt::Shape{N, W, C} : nt::Shape{N, C, W}, rng);
      Pair w = gt::random_pair(d, nwc ? nt::Shape{K, kw, C / 2} : nt::Shape{K, C / 2, kw}, rng);
      Pair b = gt::random_pair(d, {K}, rng);
      Pair dy = gt::random_pair(d, nwc ? nt::Shape{N, OW, K} : nt::Shape{N, K, OW}, rng);
      const nt::Tol tf = sum_tol(d, C / 2 * kw + 1), tw = sum_tol(d, N * OW);
      gt::expect_same("conv1d", {&x, &w}, a, &tf);
      gt::expect_same("conv1d_bias", {&x, &w, &b}, a, &tf);
      gt::expect_same("conv1d_bp_data", {&x, &w, &dy}, a, &tf);
      gt::expect_same("conv1d_bp_weights", {&x, &w, &dy}, a, &tw);
      gt::expect_same("conv1d_bp_bias", {&dy}, Attrs{{nwc}, {}}, &tw);
    }
}

TEST(CudaSequence, SequencePoolEveryModeDtypeAndLayout) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(4);
  const int64_t N = 5, C = 7, T = 300;  // T long enough that sums differ in order from a tree
  std::vector<double> mask(size_t(N * T), 1.0);
  std::bernoulli_distribution valid(0.5);
  for (int64_t t = 0; t < T; ++t) mask[size_t(T + t)] = 0.0;  // row 1: nothing valid
  for (int64_t i = 2 * T; i < N * T; ++i) mask[size_t(i)] = valid(rng) ? 1.0 : 0.0;
  for (ndrt_dtype d : kFloats)
    for (int nwc : {0, 1})
      for (int mode : {0, 1, 2}) {
        SCOPED_TRACE(std::string(nt::dtype_str(d)) + (nwc ? " NWC" : " NCW") + " mode " + std::to_string(mode));
        Pair x = gt::random_pair(d, nwc ? nt::Shape{N, T, C} : nt::Shape{N, C, T}, rng);
        Pair xt = gt::random_pair(d, nwc ? nt::Shape{N, C, T} : nt::Shape{N, T, C}, rng).permute({0, 2, 1});
        Pair m = gt::values_pair(d, {N, T}, mask);
        Pair dy = gt::random_pair(d, {N, C}, rng);
        const Attrs a{{mode, nwc}, {}};
        const nt::Tol t = sum_tol(d, T);
        gt::expect_same("sequence_pool", {&x, &m}, a, &t);
        gt::expect_same("sequence_pool", {&xt, &m}, a, &t);
        gt::expect_same("sequence_pool_bp", {&x, &m, &dy}, a, &t);
        gt::expect_same("sequence_pool_bp", {&xt, &m, &dy}, a, &t);
      }
}

}  // namespace
