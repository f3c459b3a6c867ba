// Helpers for the CUDA tests (ctest label `gpu`): every CUDA result is checked against the CPU
// result of the same op on the same random inputs. Tests call NDRT_REQUIRE_CUDA() first, which
// skips them cleanly on machines without a GPU.
//
//   gt::Pair x = gt::random_pair(NDRT_F32, {5, 7}, rng);        // one tensor on cpu:0, a copy on cuda:0
//   gt::Pair y = x.permute({1, 0});                               // the same view on both
//   gt::expect_same("exp", {&y}, {});                            // runs on both, compares all outputs
#pragma once
#include "common/ndrt_test.hpp"

namespace gt {

constexpr ndrt_device kCuda0 = NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 0);

int32_t cuda_devices();
#define NDRT_REQUIRE_CUDA()                                                              \
  do {                                                                                   \
    if (::gt::cuda_devices() == 0) GTEST_SKIP() << "no cuda device on this machine";     \
  } while (0)

// Attaches the calling thread to `dev` for the scope, then back to what it had.
struct OnDevice {
  explicit OnDevice(ndrt_device dev);
  ~OnDevice();
  ndrt_device before;
};

nt::Tensor to_device(const nt::Tensor& t, ndrt_device dev);

// The same logical tensor on the CPU and on cuda:0; views are taken on both sides alike, so
// non-contiguous and broadcast inputs reach the CUDA kernels as views too.
struct Pair {
  nt::Tensor cpu, gpu;
  Pair permute(const std::vector<int32_t>& perm) const;
  Pair slice(int32_t axis, int64_t start, int64_t stop, int64_t step) const;
  Pair expand(const nt::Shape& s) const;
  Pair reshape(const nt::Shape& s) const;
};
Pair pair_of(nt::Tensor cpu);  // copies cpu to cuda:0
Pair random_pair(ndrt_dtype d, const nt::Shape& s, std::mt19937& rng, const nt::Gen& gen = {});
Pair values_pair(ndrt_dtype d, const nt::Shape& s, const std::vector<double>& v);

// Tolerance for a CUDA result against the CPU one: float orderings differ (reductions, fused
// multiply-add, tensor-core accumulation), integers and bools must match exactly.
nt::Tol cuda_tol(ndrt_dtype d);

// Runs `op` on the CPU (fresh outputs) and on cuda:0 (outputs given, poisoned first, so an element
// the kernel does not write fails), and compares every output. tol: per dtype by default.
// Returns the CUDA outputs' values.
std::vector<std::vector<double>> expect_same(const char* op, const std::vector<const Pair*>& in,
                                             const nt::Attrs& a = {}, const nt::Tol* tol = nullptr);

}  // namespace gt
