// CUDA updaters (sgd, nesterovs, adagrad, rmsprop, adam, adamw) against the CPU: out of place into
// given outputs and in place (outputs = inputs) on both sides, f32 and f64, strided and broadcast
// (stride 0) operands, rank 0, size 0, and one launch bigger than a grid.
#include "gpu/gpu_test.hpp"

namespace {

struct Spec {
  const char* op;
  int states;
  std::vector<double> floats;
  bool has_step;
};

const Spec kSpecs[] = {
    {"sgd", 0, {0.1, 0.01}, false},
    {"nesterovs", 1, {0.05, 0.9, 0.02}, false},
    {"adagrad", 1, {0.1, 1e-6, 0.01}, false},
    {"rmsprop", 1, {0.01, 0.9, 1e-8, 0.01}, false},
    {"adam", 2, {0.01, 0.9, 0.999, 1e-8, 0.01}, true},
    {"adamw", 2, {0.01, 0.9, 0.999, 1e-8, 0.1}, true},
};

nt::Attrs attrs_of(const Spec& s, int64_t step) {
  nt::Attrs a;
  a.floats = s.floats;
  if (s.has_step) a.ints = {step};
  return a;
}

// param, grad, then the states (positive: accumulators of squares must be).
std::vector<gt::Pair> operands(const Spec& s, ndrt_dtype d, const nt::Shape& shape, std::mt19937& rng) {
  std::vector<gt::Pair> v;
  v.push_back(gt::random_pair(d, shape, rng));
  v.push_back(gt::random_pair(d, shape, rng));
  for (int k = 0; k < s.states; ++k) v.push_back(gt::random_pair(d, shape, rng, nt::uniform_gen(d, 0.01, 1.0)));
  return v;
}

std::vector<const gt::Pair*> ptrs(const std::vector<gt::Pair>& v) {
  std::vector<const gt::Pair*> p;
  for (const gt::Pair& x : v) p.push_back(&x);
  return p;
}

const ndrt_dtype kDtypes[] = {NDRT_F32, NDRT_F64};

TEST(CudaUpdaters, OutOfPlaceEveryOpAndDtype) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(1);
  for (const Spec& s : kSpecs)
    for (ndrt_dtype d : kDtypes)
      for (nt::Shape shape : {nt::Shape{1031}, nt::Shape{7, 9, 5}, nt::Shape{}, nt::Shape{0, 3}}) {
        SCOPED_TRACE(std::string(s.op) + " " + nt::dtype_str(d) + " " + nt::shape_str(shape));
        std::vector<gt::Pair> in = operands(s, d, shape, rng);
        gt::expect_same(s.op, ptrs(in), attrs_of(s, 7));
      }
}

TEST(CudaUpdaters, StridedAndBroadcastOperands) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(2);
  for (const Spec& s : kSpecs)
    for (ndrt_dtype d : kDtypes) {
      SCOPED_TRACE(std::string(s.op) + " " + nt::dtype_str(d));
      std::vector<gt::Pair> in = operands(s, d, {12, 10}, rng);
      std::vector<gt::Pair> views;
      views.push_back(in[0].permute({1, 0}).permute({1, 0}));                          // dense, via views
      views.push_back(gt::random_pair(d, {10, 12}, rng).permute({1, 0}));              // column-major
      for (int k = 0; k < s.states; ++k)
        views.push_back(gt::random_pair(d, {24, 10}, rng, nt::uniform_gen(d, 0.01, 1.0)).slice(0, 23, 0, -2));
      gt::expect_same(s.op, ptrs(views), attrs_of(s, 1));
      // A broadcast gradient (stride 0 on axis 0).
      views[1] = gt::random_pair(d, {1, 10}, rng).expand({12, 10});
      gt::expect_same(s.op, ptrs(views), attrs_of(s, 2));
    }
}

// In place (outputs = inputs) on both sides: param and states agree afterwards, over three steps.
TEST(CudaUpdaters, InPlaceSteps) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(3);
  for (const Spec& s : kSpecs)
    for (ndrt_dtype d : kDtypes) {
      SCOPED_TRACE(std::string(s.op) + " " + nt::dtype_str(d));
      std::vector<gt::Pair> in = operands(s, d, {33, 17}, rng);
      for (int64_t step = 1; step <= 3; ++step) {
        std::vector<ndrt_handle> cpu_in, gpu_in, cpu_out, gpu_out;
        for (const gt::Pair& p : in) {
          cpu_in.push_back(p.cpu.get());
          gpu_in.push_back(p.gpu.get());
        }
        cpu_out.push_back(cpu_in[0]);
        gpu_out.push_back(gpu_in[0]);
        for (int k = 0; k < s.states; ++k) {
          cpu_out.push_back(cpu_in[size_t(2 + k)]);
          gpu_out.push_back(gpu_in[size_t(2 + k)]);
        }
        {
          gt::OnDevice on(NDRT_CPU);
          NT_CHECK(nt::exec(s.op, cpu_in, cpu_out, attrs_of(s, step)));
        }
        {
          gt::OnDevice on(gt::kCuda0);
          NT_CHECK(nt::exec(s.op, gpu_in, gpu_out, attrs_of(s, step)));
        }
      }
      for (size_t k = 0; k < in.size(); ++k)
        nt::expect_close(nt::read_values(in[k].gpu), nt::read_values(in[k].cpu), d, gt::cuda_tol(d),
                         std::string(s.op) + " in place, operand " + std::to_string(k));
    }
}

// More elements than one grid of the default configuration (65536 blocks of 256 threads).
TEST(CudaUpdaters, BiggerThanOneGrid) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(4);
  const int64_t n = 65536LL * 256 + 77;
  std::vector<gt::Pair> in = operands(kSpecs[0], NDRT_F32, {n}, rng);
  gt::expect_same("sgd", ptrs(in), attrs_of(kSpecs[0], 1));
}

}  // namespace
