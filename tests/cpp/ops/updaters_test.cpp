// Updaters (sgd, nesterovs, adagrad, rmsprop, adam, adamw): several steps in place against a float64
// reference of each documented formula (weight decay included), on odd shapes, rank 0, size 0, a
// large tensor (parallel, chunk remainders), non-contiguous views; out-of-place outputs; the
// aliasing rules and the attribute / shape / dtype errors.
#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

struct Spec {
  const char* op;
  int states;
  std::vector<double> floats;  // in attribute order (see ndrt_op_describe)
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

Attrs attrs_of(const Spec& s, int64_t step) {
  Attrs a;
  a.floats = s.floats;
  if (s.has_step) a.ints = {step};
  return a;
}

// One step of the documented formula in float64.
void ref_step(const Spec& s, int64_t t, double& p, double g, double& s1, double& s2) {
  const std::string op = s.op;
  const std::vector<double>& f = s.floats;
  if (op == "sgd") {
    p -= f[0] * (g + f[1] * p);
  } else if (op == "nesterovs") {  // DL4J: update = mu * vPrev - (1 + mu) * v'; p -= update
    const double lr = f[0], mu = f[1];
    g += f[2] * p;
    const double v_prev = s1;
    s1 = mu * s1 - lr * g;
    p -= mu * v_prev - (1 + mu) * s1;
  } else if (op == "adagrad") {
    g += f[2] * p;
    s1 += g * g;
    p -= f[0] * g / (std::sqrt(s1) + f[1]);
  } else if (op == "rmsprop") {
    g += f[3] * p;
    s1 = f[1] * s1 + (1 - f[1]) * g * g;
    p -= f[0] * g / (std::sqrt(s1) + f[2]);
  } else {
    const double lr = f[0], b1 = f[1], b2 = f[2], eps = f[3], wd = f[4];
    const bool decoupled = op == "adamw";
    if (!decoupled) g += wd * p;
    s1 = b1 * s1 + (1 - b1) * g;
    s2 = b2 * s2 + (1 - b2) * g * g;
    const double at = lr * std::sqrt(1 - std::pow(b2, double(t))) / (1 - std::pow(b1, double(t)));
    const double upd = at * s1 / (std::sqrt(s2) + eps);
    p = decoupled ? p - lr * wd * p - upd : p - upd;
  }
}

Tol tol_of(ndrt_dtype d) { return d == NDRT_F32 ? Tol{3e-5, 3e-6} : Tol{1e-12, 1e-14}; }

// Runs `steps` in-place updates on tensors of shape `s` laid out as `k` and checks each state.
void check_in_place(ndrt_dtype d, const Spec& sp, const Shape& s, Kind k, int steps, std::mt19937& rng) {
  std::string what = std::string(sp.op) + " " + dtype_str(d) + " " + shape_str(s) + " " + kind_str(k);
  SCOPED_TRACE(what);
  Operand p = make_operand(d, s, k, default_gen(d), rng);
  std::vector<Operand> st;
  for (int i = 0; i < sp.states; ++i)  // second moments and sums of squares are >= 0
    st.push_back(make_operand(d, s, k, i == 1 || !std::strcmp(sp.op, "adagrad") || !std::strcmp(sp.op, "rmsprop")
                                           ? uniform_gen(d, 0.01, 1.5)
                                           : default_gen(d),
                              rng));
  std::vector<double> pv = p.vals, s1 = sp.states > 0 ? st[0].vals : std::vector<double>(pv.size()),
                      s2 = sp.states > 1 ? st[1].vals : std::vector<double>(pv.size());
  for (int t = 1; t <= steps; ++t) {
    Operand g = make_operand(d, s, t % 2 ? Kind::Contig : k, default_gen(d), rng);
    std::vector<ndrt_handle> in = {p.view.get(), g.view.get()}, out = {p.view.get()};
    for (Operand& o : st) {
      in.push_back(o.view.get());
      out.push_back(o.view.get());
    }
    ASSERT_OK(exec(sp.op, in, out, attrs_of(sp, t)));
    EXPECT_EQ(out[0], p.view.get()) << "in place: the output handle stays the input's";
    for (size_t i = 0; i < pv.size(); ++i) ref_step(sp, t, pv[i], g.vals[i], s1[i], s2[i]);
    // Compare against the reference, then continue from what the op produced (no drift).
    std::vector<double> got = read_values(p.view);
    expect_close(got, pv, d, tol_of(d), what + ": param after step " + std::to_string(t));
    pv = got;
    if (sp.states > 0) {
      got = read_values(st[0].view);
      expect_close(got, s1, d, tol_of(d), what + ": state 1 after step " + std::to_string(t));
      s1 = got;
    }
    if (sp.states > 1) {
      got = read_values(st[1].view);
      expect_close(got, s2, d, tol_of(d), what + ": state 2 after step " + std::to_string(t));
      s2 = got;
    }
  }
}

class Updaters : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(Updaters, InPlaceStepsMatchTheFormulas) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(41 + d);
  for (const Spec& sp : kSpecs) {
    check_in_place(d, sp, {7, 13}, Kind::Contig, 4, rng);
    check_in_place(d, sp, {}, Kind::Contig, 3, rng);
    check_in_place(d, sp, {0, 3}, Kind::Contig, 2, rng);
    check_in_place(d, sp, {5, 6}, Kind::Permuted, 3, rng);
    check_in_place(d, sp, {4, 3, 5}, Kind::Strided, 3, rng);
    check_in_place(d, sp, {3, 517}, Kind::Offset, 2, rng);  // chunk remainders
  }
}

TEST_P(Updaters, LargeTensorsRunInParallel) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(42 + d);
  for (const Spec& sp : kSpecs) check_in_place(d, sp, {200003}, Kind::Contig, 2, rng);
}

// Outputs given as 0 or as other tensors receive the new values; the inputs stay as they were.
TEST_P(Updaters, OutOfPlaceLeavesInputsUnchanged) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(43 + d);
  for (const Spec& sp : kSpecs)
    for (bool fresh : {true, false}) {
      SCOPED_TRACE(std::string(sp.op) + (fresh ? " fresh outputs" : " given outputs"));
      const Shape s{6, 5};
      Operand p = make_operand(d, s, Kind::Contig, default_gen(d), rng);
      Operand g = make_operand(d, s, Kind::Strided, default_gen(d), rng);
      std::vector<Operand> st;
      for (int i = 0; i < sp.states; ++i) st.push_back(make_operand(d, s, Kind::Contig, uniform_gen(d, 0.01, 1), rng));
      std::vector<ndrt_handle> in = {p.view.get(), g.view.get()};
      for (Operand& o : st) in.push_back(o.view.get());
      std::vector<Tensor> given;
      std::vector<ndrt_handle> out;
      for (int i = 0; i < 1 + sp.states; ++i) {
        if (fresh) {
          out.push_back(0);
          continue;
        }
        Tensor t = create(d, s);
        write_bytes(t, poison_bytes(d, numel_of(s)));
        out.push_back(t.get());
        given.push_back(std::move(t));
      }
      ASSERT_OK(exec(sp.op, in, out, attrs_of(sp, 3)));
      std::vector<Tensor> owned;
      if (fresh)
        for (ndrt_handle h : out) owned.emplace_back(h);
      std::vector<double> pv = p.vals, s1 = sp.states > 0 ? st[0].vals : std::vector<double>(pv.size()),
                          s2 = sp.states > 1 ? st[1].vals : std::vector<double>(pv.size());
      for (size_t i = 0; i < pv.size(); ++i) ref_step(sp, 3, pv[i], g.vals[i], s1[i], s2[i]);
      const std::vector<Tensor>& res = fresh ? owned : given;
      expect_close(read_values(res[0]), pv, d, tol_of(d), "param_out");
      if (sp.states > 0) expect_close(read_values(res[1]), s1, d, tol_of(d), "state 1 out");
      if (sp.states > 1) expect_close(read_values(res[2]), s2, d, tol_of(d), "state 2 out");
      EXPECT_EQ(read_values(p.view), p.vals) << "param input changed";
      for (Operand& o : st) EXPECT_EQ(read_values(o.view), o.vals) << "state input changed";
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, Updaters, ::testing::Values(NDRT_F32, NDRT_F64),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

TEST(UpdatersErrors, AliasingRules) {
  auto msg = [] { return std::string(ndrt_last_error()); };
  Tensor p = create(NDRT_F32, {4, 6}), g = create(NDRT_F32, {4, 6}), m = create(NDRT_F32, {4, 6}),
         v = create(NDRT_F32, {4, 6}), other = create(NDRT_F32, {4, 6});
  write_values(p, std::vector<double>(24, 1.0));
  write_values(g, std::vector<double>(24, 0.5));
  std::vector<ndrt_handle> out = {g.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("sgd", {p.get(), g.get()}, out));
  EXPECT_EQ(msg(), "sgd: output param_out shares memory with input grad; an output may only be its own input's view "
                   "(param_out = param)");
  // Another view of param's memory (not the very same view): dispatch refuses it.
  Tensor p_t = transpose(reshape(p, {6, 4}), 0, 1);
  out = {p_t.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("sgd", {p.get(), g.get()}, out));
  EXPECT_EQ(msg(), "sgd: output 0 shares memory with input 0 but is not the same view");
  // A state output on the param.
  out = {p.get(), p.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("nesterovs", {p.get(), g.get(), m.get()}, out));
  EXPECT_EQ(msg(), "nesterovs: output velocity_out shares memory with input param; an output may only be its own "
                   "input's view (velocity_out = velocity)");
  // Two outputs on one tensor.
  out = {p.get(), other.get(), other.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("adam", {p.get(), g.get(), m.get(), v.get()}, out));
  EXPECT_EQ(msg(), "adam: outputs m_out and v_out share memory");
  // Nothing was written by the refused calls.
  EXPECT_EQ(read_values(p), std::vector<double>(24, 1.0));
  EXPECT_EQ(read_values(g), std::vector<double>(24, 0.5));
}

TEST(UpdatersErrors, ShapesDtypesAndAttributes) {
  auto msg = [] { return std::string(ndrt_last_error()); };
  Tensor p = create(NDRT_F32, {4}), g = create(NDRT_F32, {4}), m = create(NDRT_F32, {4}), v = create(NDRT_F32, {4});
  Tensor g3 = create(NDRT_F32, {3}), g1 = create(NDRT_F32, {1}), g64 = create(NDRT_F64, {4});
  std::vector<ndrt_handle> out1 = {0}, out3 = {0, 0, 0}, out2 = {0, 0};
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("adam", {p.get(), g3.get(), m.get(), v.get()}, out3));
  EXPECT_EQ(msg(), "adam: grad has shape [3] but param has [4] (no broadcasting)");
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("sgd", {p.get(), g1.get()}, out1));
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, exec("adagrad", {p.get(), g.get(), g3.get()}, out2));
  EXPECT_EQ(msg(), "adagrad: accum has shape [3] but param has [4] (no broadcasting)");
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, exec("sgd", {p.get(), g64.get()}, out1));
  EXPECT_EQ(msg(), "sgd: input 1 is f64 but input 0 is f32 (cast explicitly)");
  Tensor pi = create(NDRT_I32, {4}), gi = create(NDRT_I32, {4});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, exec("sgd", {pi.get(), gi.get()}, out1));
  EXPECT_EQ(msg(), "sgd: needs a floating-point dtype, got i32");
  Tensor ph = create(NDRT_F16, {4}), gh = create(NDRT_F16, {4});
  EXPECT_STATUS(NDRT_ERR_NOT_SUPPORTED, exec("sgd", {ph.get(), gh.get()}, out1));

  const std::vector<ndrt_handle> adam_in = {p.get(), g.get(), m.get(), v.get()};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("adam", adam_in, out3, Attrs{{}, {0.001, 1.0}}));
  EXPECT_EQ(msg(), "adam: beta1 must be in [0, 1), got 1");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("adamw", adam_in, out3, Attrs{{}, {0.001, 0.9, -0.1}}));
  EXPECT_EQ(msg(), "adamw: beta2 must be in [0, 1), got -0.1");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("adam", adam_in, out3, Attrs{{0}, {}}));
  EXPECT_EQ(msg(), "adam: step counts updates from 1, got 0");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("adagrad", {p.get(), g.get(), m.get()}, out2, Attrs{{}, {0.1, -1}}));
  EXPECT_EQ(msg(), "adagrad: eps must be >= 0, got -1");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("rmsprop", {p.get(), g.get(), m.get()}, out2, Attrs{{}, {0.1, 1.5}}));
  EXPECT_EQ(msg(), "rmsprop: rho must be in [0, 1], got 1.5");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, exec("sgd", {p.get(), g.get()}, out1, Attrs{{}, {NAN}}));
  EXPECT_EQ(msg(), "sgd: lr must be finite, got nan");
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                exec("nesterovs", {p.get(), g.get(), m.get()}, out2, Attrs{{}, {0.1, INFINITY}}));
  EXPECT_EQ(msg(), "nesterovs: momentum must be finite, got inf");
}

// Defaults are the documented ones (DL4J's, torch's for adamw's decay): a call with no attributes
// equals one with them spelled out.
TEST(UpdatersDefaults, MatchTheDocumentation) {
  const std::map<std::string, std::vector<double>> defaults = {
      {"sgd", {0.001, 0}},          {"nesterovs", {0.1, 0.9, 0}},           {"adagrad", {0.1, 1e-6, 0}},
      {"rmsprop", {0.1, 0.95, 1e-8, 0}}, {"adam", {0.001, 0.9, 0.999, 1e-8, 0}}, {"adamw", {0.001, 0.9, 0.999, 1e-8, 0.01}},
  };
  std::mt19937 rng(44);
  for (const Spec& sp : kSpecs) {
    SCOPED_TRACE(sp.op);
    Operand p = make_operand(NDRT_F64, {9}, Kind::Contig, default_gen(NDRT_F64), rng);
    Operand g = make_operand(NDRT_F64, {9}, Kind::Contig, default_gen(NDRT_F64), rng);
    std::vector<Tensor> st;
    for (int i = 0; i < sp.states; ++i) st.push_back(from_values(NDRT_F64, {9}, std::vector<double>(9, 0.25)));
    auto run_with = [&](const Attrs& a) {
      std::vector<ndrt_handle> in = {p.view.get(), g.view.get()}, out(size_t(1 + sp.states), 0);
      for (Tensor& t : st) in.push_back(t.get());
      NT_CHECK(exec(sp.op, in, out, a));
      Tensor r(out[0]);
      for (size_t i = 1; i < out.size(); ++i) Tensor(out[i]).reset();
      return read_values(r);
    };
    Spec explicit_spec = sp;
    explicit_spec.floats = defaults.at(sp.op);
    EXPECT_EQ(run_with(Attrs{}), run_with(attrs_of(explicit_spec, 1)));
  }
}

}  // namespace
