// gemm and matmul (the f16/bf16 kernels, the tiling over the pool, concurrent callers) against
// float64 references: all transposes, alpha/beta, c broadcast to the output, non-contiguous
// operands and outputs, in place on c, size-0 dims, and the errors.
#include <dlfcn.h>

#include <cctype>
#include <cstdlib>

#include <iostream>
#include <thread>

#include "linalg_test_util.hpp"

using namespace nt;
using namespace lt;

namespace {

Attrs gemm_attrs(bool ta, bool tb, double alpha, double beta) { return Attrs{{ta ? 1 : 0, tb ? 1 : 0}, {alpha, beta}}; }

// y = alpha * a@b + beta * c (c broadcast), with bounds.
Ref gemm_ref(const Operand& A, const Shape& sa, const Operand& B, const Shape& sb, const Operand& C, const Shape& sc,
             bool ta, bool tb, double alpha, double beta, ndrt_dtype d) {
  Ref r = product_ref(A.vals, sa, B.vals, sb, ta, tb, compute_eps(d));
  std::vector<double> cb = broadcast_values(C.vals, sc, r.out);
  for (size_t i = 0; i < r.v.size(); ++i) {
    const double cv = beta == 0 ? 0 : beta * cb[i];
    r.v[i] = alpha * r.v[i] + cv;
    r.bound[i] = std::fabs(alpha) * r.bound[i] + compute_eps(d) * std::fabs(cv);
  }
  return r;
}

struct GemmCase {
  Shape a, b, c;  // a, b untransposed ([.., M, K], [.., K, N])
  bool ta = false, tb = false;
  double alpha = 1, beta = 1;
  Kind ka = Kind::Contig, kb = Kind::Contig, kc = Kind::Contig;
  OutKind ok = OutKind::Fresh;
};

void check_gemm(ndrt_dtype d, GemmCase g, std::mt19937& rng) {
  Shape sa = g.ta ? flip_last(g.a) : g.a, sb = g.tb ? flip_last(g.b) : g.b;
  std::string what = std::string("gemm ") + dtype_str(d) + " " + shape_str(sa) + (g.ta ? "^T " : " ") +
                     kind_str(g.ka) + " x " + shape_str(sb) + (g.tb ? "^T " : " ") + kind_str(g.kb) + " + c " +
                     shape_str(g.c) + " " + kind_str(g.kc) + ", alpha " + std::to_string(g.alpha) + " beta " +
                     std::to_string(g.beta) + ", " + out_kind_str(g.ok);
  SCOPED_TRACE(what);
  Operand A = make_operand(d, sa, g.ka, default_gen(d), rng);
  Operand B = make_operand(d, sb, g.kb, default_gen(d), rng);
  Operand C = make_operand(d, g.c, g.kc, default_gen(d), rng);
  Ref r = gemm_ref(A, sa, B, sb, C, g.c, g.ta, g.tb, g.alpha, g.beta, d);
  std::vector<double> got =
      run_out("gemm", {&A.view, &B.view, &C.view}, gemm_attrs(g.ta, g.tb, g.alpha, g.beta), d, r.out, g.ok);
  expect_close(got, r.v, d, default_tol(d), what, &r.bound);
}

class Gemm : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(Gemm, AllTransposesAlphaBetaAndBroadcastC) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(71 + d);
  const Shape cs[] = {{17, 9}, {9}, {1, 9}, {17, 1}, {}};
  const double ab[][2] = {{1, 1}, {0.5, -2}, {-1.5, 0.25}, {2, 0}};
  int v = 0;
  for (int t = 0; t < 4; ++t)
    for (const Shape& c : cs)
      for (const auto& x : ab) {
        GemmCase g;
        g.a = {17, 33};
        g.b = {33, 9};
        g.c = c;
        g.ta = t & 1;
        g.tb = t & 2;
        g.alpha = x[0];
        g.beta = x[1];
        g.ka = kAllKinds[v % 5];
        g.kb = kAllKinds[(v + 1) % 3];
        g.kc = c.size() == 2 ? kAllKinds[(v + 2) % 5] : Kind::Contig;
        g.ok = kAllOutKinds[v % 3];
        ++v;
        check_gemm(d, g, rng);
      }
}

TEST_P(Gemm, BatchedWithBroadcastBatchAxesAndC) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(72 + d);
  struct C {
    Shape a, b, c;
  };
  const C cases[] = {
      {{3, 5, 4}, {4, 6}, {6}},             // bias row under a batch
      {{2, 1, 5, 4}, {3, 4, 6}, {3, 1, 6}},  // batch [2,1] with [3]; c broadcasts rows
      {{5, 4}, {2, 4, 6}, {2, 5, 6}},       // c full
      {{2, 3, 5, 4}, {4, 6}, {1, 5, 1}},    // c a column, broadcast batch
  };
  int v = 0;
  for (const C& c : cases)
    for (int t = 0; t < 4; ++t) {
      GemmCase g;
      g.a = c.a;
      g.b = c.b;
      g.c = c.c;
      g.ta = t & 1;
      g.tb = t & 2;
      g.alpha = 0.75;
      g.beta = -1.25;
      g.ka = kAllKinds[v % 5];
      g.kb = kAllKinds[(v + 2) % 5];
      g.kc = kAllKinds[(v + 1) % 5];
      g.ok = kAllOutKinds[v % 3];
      ++v;
      check_gemm(d, g, rng);
    }
}

TEST_P(Gemm, DegenerateSizesAlphaZeroAndBetaZeroIgnoresNaN) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(73 + d);
  for (OutKind ok : kAllOutKinds) {
    // K = 0: y = beta * c. M or N = 0: empty. alpha = 0: y = beta * c.
    check_gemm(d, {{4, 0}, {0, 5}, {4, 5}, false, false, 1.5, -0.5, Kind::Contig, Kind::Contig, Kind::Permuted, ok}, rng);
    check_gemm(d, {{4, 0}, {0, 5}, {5}, true, true, 1, 0, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);
    check_gemm(d, {{0, 4}, {4, 5}, {5}, false, true, 1, 1, Kind::Contig, Kind::Permuted, Kind::Contig, ok}, rng);
    check_gemm(d, {{3, 4}, {4, 0}, {3, 1}, true, false, 1, 1, Kind::Strided, Kind::Contig, Kind::Contig, ok}, rng);
    check_gemm(d, {{6, 7}, {7, 5}, {6, 5}, false, false, 0, 2, Kind::Contig, Kind::Contig, Kind::Strided, ok}, rng);
    check_gemm(d, {{1, 1}, {1, 1}, {}, false, false, 3, 0.5, Kind::Contig, Kind::Contig, Kind::Contig, ok}, rng);
  }
  // beta = 0: c is not read, so NaN in c does not reach y (BLAS semantics).
  Operand A = make_operand(d, {5, 6}, Kind::Contig, default_gen(d), rng);
  Operand B = make_operand(d, {6, 4}, Kind::Contig, default_gen(d), rng);
  Tensor c = from_values(d, {5, 4}, std::vector<double>(20, NAN));
  Ref r = product_ref(A.vals, {5, 6}, B.vals, {6, 4}, false, false, compute_eps(d));
  for (double& x : r.v) x *= 2;
  for (double& x : r.bound) x *= 2;
  std::vector<double> got = read_values(run("gemm", {&A.view, &B.view, &c}, gemm_attrs(false, false, 2, 0)));
  expect_close(got, r.v, d, default_tol(d), "gemm beta = 0 with NaN in c", &r.bound);
}

TEST_P(Gemm, InPlaceOnC) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(74 + d);
  int v = 0;
  for (Kind kc : {Kind::Contig, Kind::Permuted, Kind::Strided, Kind::Offset})
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      const Shape sa = ta ? Shape{40, 19} : Shape{19, 40}, sb = tb ? Shape{23, 40} : Shape{40, 23};
      Operand A = make_operand(d, sa, kAllKinds[v % 5], default_gen(d), rng);
      Operand B = make_operand(d, sb, kAllKinds[(v + 3) % 5], default_gen(d), rng);
      Operand C = make_operand(d, {19, 23}, kc, default_gen(d), rng);
      ++v;
      Ref r = gemm_ref(A, sa, B, sb, C, {19, 23}, ta, tb, 1.25, -0.5, d);
      std::vector<ndrt_handle> out = {C.view.get()};
      ASSERT_OK(exec("gemm", {A.view.get(), B.view.get(), C.view.get()}, out, gemm_attrs(ta, tb, 1.25, -0.5)));
      EXPECT_EQ(out[0], C.view.get());
      expect_close(read_values(C.view), r.v, d, default_tol(d),
                   std::string("gemm in place on c ") + kind_str(kc) + " t" + std::to_string(t), &r.bound);
    }
}

TEST_P(Gemm, LargerSizesAcrossThreadCounts) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(75 + d);
  for (int threads : {1, 2, 3, 4, 7}) {
    Threads scope(threads);
    SCOPED_TRACE("cpu.threads " + std::to_string(threads));
    check_gemm(d, {{130, 257}, {257, 190}, {190}, false, false, 1, 1, Kind::Contig, Kind::Contig, Kind::Contig,
                   OutKind::Given}, rng);
    check_gemm(d, {{97, 129}, {129, 301}, {97, 301}, true, true, -0.5, 2, Kind::Permuted, Kind::Strided,
                   Kind::Offset, OutKind::GivenView}, rng);
    check_gemm(d, {{3, 65, 129}, {129, 70}, {65, 1}, false, true, 1, 1, Kind::Offset, Kind::Expanded, Kind::Contig,
                   OutKind::Fresh}, rng);
    check_gemm(d, {{9, 20, 30}, {9, 30, 25}, {25}, true, false, 1, 0.5, Kind::Contig, Kind::Contig, Kind::Contig,
                   OutKind::Given}, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, Gemm, ::testing::Values(NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

TEST(GemmErrors, ShapesDtypesAttributesAndAliasing) {
  Tensor a = create(NDRT_F32, {3, 4}), b = create(NDRT_F32, {4, 5}), c = create(NDRT_F32, {3, 5});
  Tensor c_bad = create(NDRT_F32, {2, 5}), c_big = create(NDRT_F32, {2, 3, 5}), b_bad = create(NDRT_F32, {3, 5});
  Tensor b64 = create(NDRT_F64, {4, 5}), ai = create(NDRT_I32, {3, 4}), bi = create(NDRT_I32, {4, 5}),
         ci = create(NDRT_I32, {3, 5});
  auto msg = [] { return std::string(ndrt_last_error()); };
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("gemm", {&a, &b, &c_bad}, nullptr));
  EXPECT_EQ(msg(), "gemm: c of shape [2,5] does not broadcast to the output shape [3,5]");
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("gemm", {&a, &b, &c_big}, nullptr));
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("gemm", {&a, &b_bad, &c}, nullptr));
  EXPECT_EQ(msg(), "gemm: inner sizes differ: [3,4] x [3,5]");
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("gemm", {&a, &b64, &c}, nullptr));
  EXPECT_EQ(msg(), "gemm: input 1 is f64 but input 0 is f32 (cast explicitly)");
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("gemm", {&ai, &bi, &ci}, nullptr));
  EXPECT_EQ(msg(), "gemm: needs a floating-point dtype, got i32");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("gemm", {&a, &b, &c}, nullptr, gemm_attrs(false, false, NAN, 1)));
  EXPECT_EQ(msg(), "gemm: alpha must be finite, got nan");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                try_run("gemm", {&a, &b, &c}, nullptr, gemm_attrs(false, false, 1, INFINITY)));
  EXPECT_EQ(msg(), "gemm: beta must be finite, got inf");
  // y may be c itself, but not a or b, and not another view of c.
  Tensor sq = create(NDRT_F32, {4, 4}), sq2 = create(NDRT_F32, {4, 4}), cq = create(NDRT_F32, {4, 4});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("gemm", {&sq, &sq2, &cq}, &sq));
  EXPECT_EQ(msg(), "gemm: output y shares memory with input a; only c may be updated in place");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("gemm", {&sq, &sq2, &cq}, &sq2));
  EXPECT_EQ(msg(), "gemm: output y shares memory with input b; only c may be updated in place");
  Tensor cq_t = transpose(cq, 0, 1);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("gemm", {&sq, &sq2, &cq}, &cq_t));
  EXPECT_EQ(msg(), "gemm: output 0 shares memory with input 2 but is not the same view");
  // Arity and attribute count.
  std::vector<ndrt_handle> out = {0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("gemm", {a.get(), b.get()}, out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("gemm", {a.get(), b.get(), c.get()}, out, Attrs{{}, {1, 1, 1}}));
}

// ------------------------------------------------------------------------------------------------
// matmul in f16 / bf16 (f32 accumulation, one rounding) and under concurrency
// ------------------------------------------------------------------------------------------------

class MatmulHalf : public ::testing::TestWithParam<ndrt_dtype> {};

void check_matmul(ndrt_dtype d, Shape sa, Shape sb, bool ta, bool tb, Kind ka, Kind kb, OutKind ok, std::mt19937& rng) {
  if (ta) sa = flip_last(sa);
  if (tb) sb = flip_last(sb);
  std::string what = std::string("matmul ") + dtype_str(d) + " " + shape_str(sa) + (ta ? "^T " : " ") + kind_str(ka) +
                     " x " + shape_str(sb) + (tb ? "^T " : " ") + kind_str(kb) + ", " + out_kind_str(ok);
  SCOPED_TRACE(what);
  Operand A = make_operand(d, sa, ka, default_gen(d), rng);
  Operand B = make_operand(d, sb, kb, default_gen(d), rng);
  Ref r = product_ref(A.vals, sa, B.vals, sb, ta, tb, compute_eps(d));
  std::vector<double> got = run_out("matmul", {&A.view, &B.view}, Attrs{{ta ? 1 : 0, tb ? 1 : 0}, {}}, d, r.out, ok);
  expect_close(got, r.v, d, default_tol(d), what, &r.bound);
}

TEST_P(MatmulHalf, LayoutsTransposesBatchesAndEmpty) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(81 + d);
  int v = 0;
  for (int t = 0; t < 4; ++t)
    for (Kind ka : kAllKinds) {
      check_matmul(d, {17, 33}, {33, 9}, t & 1, t & 2, ka, kAllKinds[(v + 1) % 5], kAllOutKinds[v % 3], rng);
      ++v;
    }
  for (int t = 0; t < 4; ++t) {
    check_matmul(d, {2, 1, 5, 4}, {3, 4, 6}, t & 1, t & 2, Kind::Permuted, Kind::Strided, kAllOutKinds[t % 3], rng);
    check_matmul(d, {4, 0}, {0, 5}, t & 1, t & 2, Kind::Contig, Kind::Contig, kAllOutKinds[t % 3], rng);
    check_matmul(d, {0, 4}, {4, 5}, t & 1, t & 2, Kind::Contig, Kind::Contig, kAllOutKinds[t % 3], rng);
    check_matmul(d, {64, 96}, {96, 80}, t & 1, t & 2, Kind::Contig, Kind::Offset, kAllOutKinds[t % 3], rng);
  }
  check_matmul(d, {2, 130, 257}, {257, 190}, false, false, Kind::Contig, Kind::Contig, OutKind::Given, rng);
}

TEST_P(MatmulHalf, ImplementationIsNamed) {
  const ndrt_dtype d = GetParam();
  Tensor a = from_values(d, {2, 2}, {1, 2, 3, 4}), b = from_values(d, {2, 2}, {1, 0, 0, 1});
  NT_CHECK(ndrt_profiler_enable(1));
  Tensor y = run("matmul", {&a, &b});
  char buf[8192];
  size_t need = 0;
  NT_CHECK(ndrt_profiler_summary(buf, sizeof buf, &need));
  NT_CHECK(ndrt_profiler_enable(0));
  std::string s(buf);
  // f16: always through f32; bf16: oneDNN where the build has it and the CPU has native bf16.
  const bool named = d == NDRT_F16 ? s.find("ndrt:f16-via-sgemm") != std::string::npos
                                   : s.find("onednn:matmul-bf16") != std::string::npos ||
                                         s.find("ndrt:bf16-via-sgemm") != std::string::npos;
  EXPECT_TRUE(named) << s;
  std::cout << "matmul " << dtype_str(d) << " ran as: "
            << (s.find("onednn") != std::string::npos ? "onednn:matmul-bf16" : "via sgemm") << "\n";
  EXPECT_EQ(read_values(y), (std::vector<double>{1, 2, 3, 4}));
}

INSTANTIATE_TEST_SUITE_P(Ops, MatmulHalf, ::testing::Values(NDRT_F16, NDRT_BF16),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

// Many host threads at once: whoever finds the pool busy runs its GEMM alone, inline; all results
// must still be exact to the reference.
TEST(MatmulConcurrency, ManyHostThreadsGetCorrectResults) {
  constexpr int kThreads = 6, kRounds = 8;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([t, &errors] {
      try {
        NT_CHECK(ndrt_thread_attach(NDRT_CPU));
        std::mt19937 rng(900 + t);
        for (int i = 0; i < kRounds; ++i) {
          const ndrt_dtype d = (i + t) % 2 ? NDRT_F32 : NDRT_F64;
          const int64_t M = 60 + 7 * t, K = 90 + i, N = 70;
          Operand A = make_operand(d, {M, K}, Kind::Contig, default_gen(d), rng);
          Operand B = make_operand(d, {K, N}, i % 2 ? Kind::Permuted : Kind::Contig, default_gen(d), rng);
          Ref r = product_ref(A.vals, {M, K}, B.vals, {K, N}, false, false, compute_eps(d));
          std::vector<double> got = read_values(run("matmul", {&A.view, &B.view}));
          for (size_t e = 0; e < got.size(); ++e)
            if (!(std::fabs(got[e] - r.v[e]) <= 1e-6 * std::fabs(r.v[e]) + r.bound[e] + 1e-9)) {
              errors[size_t(t)] = "thread " + std::to_string(t) + " round " + std::to_string(i) + " element " +
                                  std::to_string(e) + ": got " + std::to_string(got[e]) + ", want " +
                                  std::to_string(r.v[e]);
              return;
            }
        }
      } catch (const std::exception& e) {
        errors[size_t(t)] = e.what();
      }
    });
  for (auto& th : ts) th.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

// OpenBLAS runs single-threaded inside ndrt's GEMMs (the pool threads them) and is set back to
// cpu.threads afterwards, for code that calls cblas directly.
TEST(MatmulThreads, OpenBlasFollowsCpuThreadsBetweenCalls) {
  std::mt19937 rng(5);
  Operand A = make_operand(NDRT_F32, {200, 150}, Kind::Contig, default_gen(NDRT_F32), rng);
  Operand B = make_operand(NDRT_F32, {150, 170}, Kind::Contig, default_gen(NDRT_F32), rng);
  run("matmul", {&A.view, &B.view});  // ndrt loads OpenBLAS (global symbols) at its first product
  auto get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  ASSERT_NE(get, nullptr) << "OpenBLAS's symbols are not visible after a matmul";
  for (int t : {3, 1, 2}) {
    Threads scope(t);
    Tensor y = run("matmul", {&A.view, &B.view});
    EXPECT_EQ(get(), t) << "after a matmul with cpu.threads = " << t;
  }
}

// OpenBLAS loads at the first product with the kernel set cpu.blas_core asks for (runtime/blas.hpp).
std::string blas_corename() {
  auto name = reinterpret_cast<char* (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return name ? name() : "";
}
bool same_name(std::string a, std::string b) {
  for (char& ch : a) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  for (char& ch : b) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return a == b;
}
void one_matmul() {
  std::mt19937 rng(6);
  Operand A = make_operand(NDRT_F32, {40, 30}, Kind::Contig, default_gen(NDRT_F32), rng);
  Operand B = make_operand(NDRT_F32, {30, 20}, Kind::Contig, default_gen(NDRT_F32), rng);
  run("matmul", {&A.view, &B.view});
}

TEST(BlasCore, AutoFollowsTheEnvironmentOrTheCpu) {
  if (std::getenv("NDRT_CPU_BLAS_CORE")) GTEST_SKIP() << "NDRT_CPU_BLAS_CORE is set";
  char value[64];
  EXPECT_OK(ndrt_config_get("cpu.blas_core", value, sizeof value, nullptr));
  EXPECT_STREQ(value, "auto");
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  const std::string before = env ? env : "";
  one_matmul();
  const std::string core = blas_corename();
  ASSERT_NE(core, "") << "OpenBLAS is not loaded after a matmul";
  if (env) {
    EXPECT_TRUE(same_name(core, before)) << "OPENBLAS_CORETYPE=" << before << " but OpenBLAS runs " << core;
  } else {
    // From the features, whatever the vendor or model name.
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl");
    if (avx512) {
      EXPECT_TRUE(same_name(core, "SkylakeX")) << "OpenBLAS runs " << core;
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      EXPECT_TRUE(same_name(core, "Haswell")) << "OpenBLAS runs " << core;
    }
  }
  // Once loaded, the key says which kernel set runs.
  EXPECT_OK(ndrt_config_get("cpu.blas_core", value, sizeof value, nullptr));
  EXPECT_EQ(std::string(value), core);
  const char* after = std::getenv("OPENBLAS_CORETYPE");
  EXPECT_EQ(after ? std::string(after) : std::string(), before) << "the environment was not put back";
  EXPECT_EQ(env != nullptr, after != nullptr);
}

TEST(BlasCore, AnExplicitNameWinsOverTheEnvironment) {
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  const std::string before = env ? env : "";
  EXPECT_OK(ndrt_config_set("cpu.blas_core", "Haswell"));  // AVX2: runs on every CPU CI has
  one_matmul();
  EXPECT_TRUE(same_name(blas_corename(), "Haswell")) << "OpenBLAS runs " << blas_corename();
  const char* after = std::getenv("OPENBLAS_CORETYPE");
  EXPECT_EQ(after ? std::string(after) : std::string(), before);
  EXPECT_EQ(env != nullptr, after != nullptr);
}

TEST(BlasCore, BadOrLateValuesAreRefused) {
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.blas_core", "Sky lake"));
  EXPECT_NE(std::string(ndrt_last_error()).find("not auto, native or an OpenBLAS core name"), std::string::npos)
      << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.blas_core", ""));
  one_matmul();
  char value[64];
  EXPECT_OK(ndrt_config_get("cpu.blas_core", value, sizeof value, nullptr));
  EXPECT_OK(ndrt_config_set("cpu.blas_core", value));  // unchanged: fine
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_config_set("cpu.blas_core", std::string(value) == "native" ? "Haswell" : "native"));
  EXPECT_NE(std::string(ndrt_last_error()).find("OpenBLAS is already loaded"), std::string::npos) << ndrt_last_error();
}

// cpu.blas_library: a library that cannot be loaded, or is not OpenBLAS, fails the product with a
// clear message and loads nothing; the right one then loads, and the key is fixed from there on.
TEST(BlasCore, ALibraryThatCannotLoadIsAClearErrorAndCanBeCorrected) {
  char dflt[256];
  EXPECT_OK(ndrt_config_get("cpu.blas_library", dflt, sizeof dflt, nullptr));
  std::mt19937 rng(7);
  Operand A = make_operand(NDRT_F32, {40, 30}, Kind::Contig, default_gen(NDRT_F32), rng);
  Operand B = make_operand(NDRT_F32, {30, 20}, Kind::Contig, default_gen(NDRT_F32), rng);
  Tensor y;
  EXPECT_OK(ndrt_config_set("cpu.blas_library", "/nonexistent/libopenblas.so.0"));
  EXPECT_STATUS(NDRT_ERR_BACKEND, try_run("matmul", {&A.view, &B.view}, &y));
  EXPECT_NE(std::string(ndrt_last_error()).find("OpenBLAS could not be loaded"), std::string::npos) << ndrt_last_error();
  EXPECT_OK(ndrt_config_set("cpu.blas_library", "libm.so.6"));
  EXPECT_STATUS(NDRT_ERR_BACKEND, try_run("matmul", {&A.view, &B.view}, &y));
  EXPECT_NE(std::string(ndrt_last_error()).find("libm.so.6 has no symbol cblas_sgemm"), std::string::npos)
      << ndrt_last_error();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.blas_library", ""));
  EXPECT_OK(ndrt_config_set("cpu.blas_library", dflt));
  EXPECT_OK(try_run("matmul", {&A.view, &B.view}, &y));
  EXPECT_NE(blas_corename(), "");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_config_set("cpu.blas_library", "libm.so.6"));
  EXPECT_NE(std::string(ndrt_last_error()).find("OpenBLAS is already loaded"), std::string::npos) << ndrt_last_error();
}

}  // namespace
