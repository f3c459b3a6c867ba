// CUDA norm family against the CPU on the same inputs: batch_norm (training: y, mean, invstd and the
// running statistics, also updated in place), batch_norm_inference, batch_norm_bp, layer_norm,
// layer_norm_bp in f32 and f64; channel axes with long runs (NCHW planes), short runs (NC, NHWC)
// and in between; non-contiguous inputs; size-0 tensors (D = 0: NaN statistics); a tensor past
// one grid.
#include <algorithm>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;
using nt::Shape;

const std::vector<ndrt_dtype> kNormTypes = {NDRT_F32, NDRT_F64};

Attrs bn_attrs(int64_t axis, double momentum = 0.1, double eps = 1e-5) { return Attrs{{axis}, {momentum, eps}}; }
Attrs bn_inf_attrs(int64_t axis, double eps = 1e-5) { return Attrs{{axis}, {eps}}; }
Attrs ln_attrs(int64_t axis, double eps = 1e-5) { return Attrs{{axis}, {eps}}; }
Attrs axis_only(int64_t axis) { return Attrs{{axis}, {}}; }

// The CPU accumulates layer-norm parameter gradients in T over blocks of rows (f64 beyond); the
// GPU in f64 throughout.
nt::Tol ln_bp_tol(ndrt_dtype d) { return d == NDRT_F32 ? nt::Tol{5e-5, 1e-5} : gt::cuda_tol(d); }

int64_t channels(const Shape& s, int64_t axis) { return s[size_t(axis < 0 ? axis + int64_t(s.size()) : axis)]; }

std::string what(const std::string& op, ndrt_dtype d, const Shape& s, int64_t axis) {
  return op + " " + nt::dtype_str(d) + " " + nt::shape_str(s) + " axis " + std::to_string(axis);
}

// batch_norm's outputs computed on the CPU, as the GPU side's batch_norm_bp inputs.
struct BnSaved {
  Pair mean, invstd;
};
BnSaved batch_norm_saved(const Pair& x, const Pair& g, const Pair& b, const Pair& rm, const Pair& rv, int64_t axis) {
  gt::OnDevice on(NDRT_CPU);
  std::vector<ndrt_handle> out(5, 0);
  NT_CHECK(nt::exec("batch_norm", {x.cpu.get(), g.cpu.get(), b.cpu.get(), rm.cpu.get(), rv.cpu.get()}, out,
                    bn_attrs(axis)));
  std::vector<nt::Tensor> t;
  for (ndrt_handle h : out) t.emplace_back(h);
  return {gt::pair_of(std::move(t[1])), gt::pair_of(std::move(t[2]))};
}

void check_batch_norm(ndrt_dtype d, const Pair& x, const Shape& shape, int64_t axis, std::mt19937& rng) {
  SCOPED_TRACE(what("batch_norm", d, shape, axis));
  const int64_t C = channels(shape, axis);
  Pair g = gt::random_pair(d, {C}, rng), b = gt::random_pair(d, {C}, rng), rm = gt::random_pair(d, {C}, rng);
  Pair rv = gt::random_pair(d, {C}, rng, nt::uniform_gen(d, 0.5, 2.0));
  gt::expect_same("batch_norm", {&x, &g, &b, &rm, &rv}, bn_attrs(axis, 0.3, 1e-3));
  gt::expect_same("batch_norm_inference", {&x, &g, &b, &rm, &rv}, bn_inf_attrs(axis, 1e-3));
  const BnSaved s = batch_norm_saved(x, g, b, rm, rv, axis);
  Pair dy = gt::random_pair(d, shape, rng);
  gt::expect_same("batch_norm_bp", {&x, &g, &s.mean, &s.invstd, &dy}, axis_only(axis));
}

TEST(CudaNorm, BatchNormEveryDtypeAndAxis) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(301);
  const std::vector<std::pair<Shape, int64_t>> cases = {
      {{4, 6, 5, 7}, 1},   // NCHW, runs of 35 (one block per channel and chunk)
      {{37, 10}, 1},       // NC: columns
      {{3, 5, 6, 8}, -1},  // NHWC: columns
      {{2, 5, 4, 4}, 1},   // runs of 16: columns folded per channel
      {{7, 3}, 0},         // channel axis first
      {{300, 70, 3}, 1},   // many rows: several partial sums per column
  };
  for (ndrt_dtype d : kNormTypes)
    for (const auto& [shape, axis] : cases) check_batch_norm(d, gt::random_pair(d, shape, rng), shape, axis, rng);
}

TEST(CudaNorm, BatchNormViewsEmptyAndInPlace) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(302);
  for (ndrt_dtype d : kNormTypes) {
    // NCHW view of an NHWC buffer; a reversed, step-2 view.
    check_batch_norm(d, gt::random_pair(d, {3, 6, 7, 4}, rng).permute({0, 3, 1, 2}), {3, 4, 6, 7}, 1, rng);
    check_batch_norm(d, gt::random_pair(d, {10, 9}, rng).slice(0, -1, -1000000, -2), {5, 9}, 1, rng);
    // No channels; inference over an empty batch.
    Pair x0 = gt::random_pair(d, {4, 0, 3}, rng), v0 = gt::random_pair(d, {0}, rng);
    gt::expect_same("batch_norm", {&x0, &v0, &v0, &v0, &v0}, bn_attrs(1));
    gt::expect_same("batch_norm_bp", {&x0, &v0, &v0, &v0, &x0}, axis_only(1));
    Pair xe = gt::random_pair(d, {0, 3}, rng), v3 = gt::random_pair(d, {3}, rng, nt::uniform_gen(d, 0.5, 2.0));
    gt::expect_same("batch_norm_inference", {&xe, &v3, &v3, &v3, &v3}, bn_inf_attrs(1));
    // Gradient over channels with no elements (a size-0 axis after the channel): dgamma = dbeta = 0.
    Pair xz = gt::random_pair(d, {2, 3, 0}, rng);
    gt::expect_same("batch_norm_bp", {&xz, &v3, &v3, &v3, &xz}, axis_only(1));
    gt::expect_same("batch_norm_bp", {&xe, &v3, &v3, &v3, &xe}, axis_only(1));
  }
  // Running statistics updated in place (outputs 3 and 4 are the inputs' handles).
  const Shape shape = {6, 5, 9};
  Pair x = gt::random_pair(NDRT_F32, shape, rng), g = gt::random_pair(NDRT_F32, {5}, rng);
  Pair b = gt::random_pair(NDRT_F32, {5}, rng), rm = gt::random_pair(NDRT_F32, {5}, rng);
  Pair rv = gt::random_pair(NDRT_F32, {5}, rng, nt::uniform_gen(NDRT_F32, 0.5, 2.0));
  std::vector<nt::Tensor> cpu_res;
  {
    gt::OnDevice on(NDRT_CPU);
    std::vector<ndrt_handle> out = {0, 0, 0, rm.cpu.get(), rv.cpu.get()};
    NT_CHECK(nt::exec("batch_norm", {x.cpu.get(), g.cpu.get(), b.cpu.get(), rm.cpu.get(), rv.cpu.get()}, out,
                      bn_attrs(1)));
    for (int i = 0; i < 3; ++i) cpu_res.emplace_back(out[size_t(i)]);
  }
  {
    gt::OnDevice on(gt::kCuda0);
    std::vector<ndrt_handle> out = {0, 0, 0, rm.gpu.get(), rv.gpu.get()};
    NT_CHECK(nt::exec("batch_norm", {x.gpu.get(), g.gpu.get(), b.gpu.get(), rm.gpu.get(), rv.gpu.get()}, out,
                      bn_attrs(1)));
    NT_CHECK(ndrt_synchronize(gt::kCuda0));
    for (int i = 0; i < 3; ++i) nt::Tensor own(out[size_t(i)]);  // release the fresh outputs
  }
  const nt::Tol tol = gt::cuda_tol(NDRT_F32);
  nt::expect_close(nt::read_values(rm.gpu), nt::read_values(rm.cpu), NDRT_F32, tol, "running_mean in place");
  nt::expect_close(nt::read_values(rv.gpu), nt::read_values(rv.cpu), NDRT_F32, tol, "running_var in place");
}

TEST(CudaNorm, BatchNormPastOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(303);
  const Shape shape = {2, 8, 1030, 1030};  // 17M elements
  Pair x = gt::random_pair(NDRT_F32, shape, rng), g = gt::random_pair(NDRT_F32, {8}, rng);
  Pair b = gt::random_pair(NDRT_F32, {8}, rng), rm = gt::random_pair(NDRT_F32, {8}, rng);
  Pair rv = gt::random_pair(NDRT_F32, {8}, rng, nt::uniform_gen(NDRT_F32, 0.5, 2.0));
  gt::expect_same("batch_norm", {&x, &g, &b, &rm, &rv}, bn_attrs(1));
}

// ---- layer norm ---------------------------------------------------------------------------------

void check_layer_norm(ndrt_dtype d, const Pair& x, const Shape& shape, int64_t axis, std::mt19937& rng) {
  SCOPED_TRACE(what("layer_norm", d, shape, axis));
  const size_t first = size_t(axis < 0 ? axis + int64_t(shape.size()) : axis);
  const Shape tail(shape.begin() + long(first), shape.end());
  Pair g = gt::random_pair(d, tail, rng), b = gt::random_pair(d, tail, rng), dy = gt::random_pair(d, shape, rng);
  gt::expect_same("layer_norm", {&x, &g, &b}, ln_attrs(axis, 1e-4));
  Pair mean, invstd;
  {
    gt::OnDevice on(NDRT_CPU);
    std::vector<ndrt_handle> out(3, 0);
    NT_CHECK(nt::exec("layer_norm", {x.cpu.get(), g.cpu.get(), b.cpu.get()}, out, ln_attrs(axis, 1e-4)));
    nt::Tensor y(out[0]);
    mean = gt::pair_of(nt::Tensor(out[1]));
    invstd = gt::pair_of(nt::Tensor(out[2]));
  }
  const nt::Tol tol = ln_bp_tol(d);
  gt::expect_same("layer_norm_bp", {&x, &g, &mean, &invstd, &dy}, axis_only(axis), &tol);
}

TEST(CudaNorm, LayerNormEveryDtypeAndAxis) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(304);
  const std::vector<std::pair<Shape, int64_t>> cases = {
      {{30, 50}, -1}, {{4, 6, 9}, 1}, {{3, 1000}, -1}, {{65, 7}, -1}, {{5, 1}, -1}, {{2, 3, 4}, 0},
  };
  for (ndrt_dtype d : kNormTypes)
    for (const auto& [shape, axis] : cases) check_layer_norm(d, gt::random_pair(d, shape, rng), shape, axis, rng);
}

TEST(CudaNorm, LayerNormViewsAndEmpty) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(305);
  for (ndrt_dtype d : kNormTypes) {
    check_layer_norm(d, gt::random_pair(d, {12, 5}, rng).permute({1, 0}), {5, 12}, -1, rng);
    check_layer_norm(d, gt::random_pair(d, {4, 14, 3}, rng).slice(1, 0, 14, 2), {4, 7, 3}, 1, rng);
    // No rows (dgamma = dbeta = 0); empty rows (NaN mean / invstd).
    check_layer_norm(d, gt::random_pair(d, {0, 5}, rng), {0, 5}, -1, rng);
    check_layer_norm(d, gt::random_pair(d, {3, 0}, rng), {3, 0}, -1, rng);
  }
}

}  // namespace
