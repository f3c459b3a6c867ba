// CUDA random ops against the CPU on the same (seed, offset): uniform and bernoulli bit for bit,
// normals within the per-dtype tolerance (device logf/sinf/erfc differ by ulps), dropout and its
// gradient; strided outputs, offsets that start inside a Philox block, rank 0, size 0, and one
// launch bigger than a grid.
#include "gpu/gpu_test.hpp"

namespace {

const nt::Tol kExact = {0, 0};

// The distribution's floats, then seed, offset, dtype, shape.
nt::Attrs gen_attrs(std::vector<double> floats, int64_t seed, int64_t offset, ndrt_dtype d, const nt::Shape& s) {
  nt::Attrs a;
  a.floats = std::move(floats);
  a.ints = {seed, offset, d, int64_t(s.size())};
  a.ints.insert(a.ints.end(), s.begin(), s.end());
  return a;
}

const ndrt_dtype kFloats[] = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

TEST(CudaRandom, UniformIsBitIdentical) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kFloats)
    for (int64_t offset : {0, 1, 3, 6, 1001})
      for (nt::Shape s : {nt::Shape{1037}, nt::Shape{3, 5, 7}, nt::Shape{}, nt::Shape{0, 4}}) {
        SCOPED_TRACE(std::string(nt::dtype_str(d)) + " offset " + std::to_string(offset) + " " + nt::shape_str(s));
        // low + span * u is exact for a power-of-two span, so an FMA or not cannot change a bit.
        gt::expect_same("uniform", {}, gen_attrs({-2.0, 2.0}, 42, offset, d, s), &kExact);
        // [0, 1): values that round up to 1 in f16/bf16 become the largest value below 1.
        gt::expect_same("uniform", {}, gen_attrs({0.0, 1.0}, 7, offset, d, s), &kExact);
      }
}

TEST(CudaRandom, UniformWithInexactBoundsAndHugeSeed) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kFloats)
    gt::expect_same("uniform", {}, gen_attrs({0.1, 0.7}, int64_t(0x7edcba9876543210), 12345, d, {4099}));
}

TEST(CudaRandom, NormalMatchesWithinTolerance) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : kFloats)
    for (int64_t offset : {0, 1, 2, 5})
      for (nt::Shape s : {nt::Shape{4097}, nt::Shape{2, 3, 9}, nt::Shape{}, nt::Shape{0}}) {
        SCOPED_TRACE(std::string(nt::dtype_str(d)) + " offset " + std::to_string(offset) + " " + nt::shape_str(s));
        gt::expect_same("normal", {}, gen_attrs({0.5, 2.0}, 9, offset, d, s));
      }
}

TEST(CudaRandom, TruncatedNormalMatchesWithinTolerance) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : {NDRT_F32, NDRT_F64})
    for (int64_t offset : {0, 3}) {
      gt::expect_same("truncated_normal", {}, gen_attrs({-1.0, 0.5, -1.5, 2.5}, 5, offset, d, {3001}));
      gt::expect_same("truncated_normal", {}, gen_attrs({0.0, 1.0, 1.0, 6.0}, 6, offset, d, {517}));  // mirrored tail
      gt::expect_same("truncated_normal", {}, gen_attrs({0.0, 1.0, -2.0, 2.0}, 6, offset, d, {}));
    }
}

TEST(CudaRandom, BernoulliIsBitIdenticalForEveryDtype) {
  NDRT_REQUIRE_CUDA();
  for (ndrt_dtype d : nt::kAllDtypes)
    for (double p : {0.0, 0.3, 1.0})
      for (int64_t offset : {0, 2}) {
        SCOPED_TRACE(std::string(nt::dtype_str(d)) + " p " + std::to_string(p));
        gt::expect_same("bernoulli", {}, gen_attrs({p}, 3, offset, d, {2053}), &kExact);
      }
  gt::expect_same("bernoulli", {}, gen_attrs({0.5}, 3, 0, NDRT_F32, {}), &kExact);
  gt::expect_same("bernoulli", {}, gen_attrs({0.5}, 3, 0, NDRT_F32, {0}), &kExact);
}

TEST(CudaRandom, DropoutOnStridedInputs) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(1);
  for (ndrt_dtype d : kFloats) {
    SCOPED_TRACE(nt::dtype_str(d));
    gt::Pair x = gt::random_pair(d, {33, 65}, rng);
    for (double p : {0.0, 0.25, 1.0}) gt::expect_same("dropout", {&x}, nt::Attrs{{11, 5}, {p}});
    gt::Pair permuted = x.permute({1, 0});
    gt::expect_same("dropout", {&permuted}, nt::Attrs{{11, 0}, {0.5}});
    gt::Pair stepped = x.slice(0, 32, 0, -3);
    gt::expect_same("dropout", {&stepped}, nt::Attrs{{12, 7}, {0.5}});
    gt::Pair expanded = gt::random_pair(d, {1, 65}, rng).expand({9, 65});
    gt::expect_same("dropout", {&expanded}, nt::Attrs{{13, 1}, {0.5}});
  }
  gt::Pair scalar = gt::random_pair(NDRT_F32, {}, rng);
  gt::expect_same("dropout", {&scalar}, nt::Attrs{{1, 0}, {0.5}});
  gt::Pair empty = gt::random_pair(NDRT_F32, {0, 3}, rng);
  gt::expect_same("dropout", {&empty}, nt::Attrs{{1, 0}, {0.5}});
}

// In place (y = x) on both sides: the same values and masks.
TEST(CudaRandom, DropoutInPlace) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(2);
  gt::Pair x = gt::random_pair(NDRT_F32, {1000}, rng);
  std::vector<ndrt_handle> cpu_out = {x.cpu.get(), 0}, gpu_out = {x.gpu.get(), 0};
  {
    gt::OnDevice on(NDRT_CPU);
    NT_CHECK(nt::exec("dropout", {x.cpu.get()}, cpu_out, nt::Attrs{{21, 4}, {0.4}}));
  }
  {
    gt::OnDevice on(gt::kCuda0);
    NT_CHECK(nt::exec("dropout", {x.gpu.get()}, gpu_out, nt::Attrs{{21, 4}, {0.4}}));
  }
  nt::Tensor cpu_mask(cpu_out[1]), gpu_mask(gpu_out[1]);
  EXPECT_EQ(nt::read_values(x.gpu), nt::read_values(x.cpu));
  EXPECT_EQ(nt::read_values(gpu_mask), nt::read_values(cpu_mask));
}

TEST(CudaRandom, DropoutBpWithBoolAndU8Masks) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(3);
  for (ndrt_dtype d : kFloats)
    for (ndrt_dtype md : {NDRT_BOOL, NDRT_U8}) {
      SCOPED_TRACE(std::string(nt::dtype_str(d)) + " mask " + nt::dtype_str(md));
      gt::Pair dy = gt::random_pair(d, {17, 31}, rng);
      std::vector<double> m(17 * 31);
      for (double& v : m) v = double(rng() % 2);
      gt::Pair mask = gt::values_pair(md, {17, 31}, m);
      for (double p : {0.0, 0.5, 1.0}) gt::expect_same("dropout_bp", {&dy, &mask}, nt::Attrs{{}, {p}});
      gt::Pair dyt = dy.permute({1, 0}), maskt = mask.permute({1, 0});
      gt::expect_same("dropout_bp", {&dyt, &maskt}, nt::Attrs{{}, {0.3}});
    }
}

// dropout_bp over more elements than one grid of the default configuration (65536 blocks of 256
// threads); uniform over as many (one thread per Philox block: a quarter of that).
TEST(CudaRandom, BiggerThanOneGrid) {
  NDRT_REQUIRE_CUDA();
  const int64_t n = 65536LL * 256 + 4099;
  gt::expect_same("uniform", {}, gen_attrs({-2.0, 2.0}, 77, 1, NDRT_F32, {n}), &kExact);
  std::mt19937 rng(4);
  gt::Pair dy = gt::random_pair(NDRT_F32, {n}, rng);
  nt::Tensor cpu_mask;
  {
    gt::OnDevice on(NDRT_CPU);
    cpu_mask = nt::run("bernoulli", {}, gen_attrs({0.5}, 1, 0, NDRT_BOOL, {n}));
  }
  gt::Pair mask = gt::pair_of(std::move(cpu_mask));
  gt::expect_same("dropout_bp", {&dy, &mask}, nt::Attrs{{}, {0.5}});
}

}  // namespace
