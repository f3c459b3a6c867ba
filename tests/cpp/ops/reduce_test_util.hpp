// Helpers shared by the reduce, softmax_loss and norm family tests: multi-output runs on plain
// values, error checks with the exact message, and the finite-difference gradient check.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "common/ndrt_test.hpp"

namespace rt {

using nt::Shape;

// An input given by values (row-major) or by an existing tensor view.
struct In {
  ndrt_dtype d = NDRT_F64;
  Shape s;
  std::vector<double> v;
};

struct Out {
  ndrt_dtype d = 0;
  Shape s;
  std::vector<double> v;
};

inline std::vector<nt::Tensor> make_inputs(const std::vector<In>& ins) {
  std::vector<nt::Tensor> t;
  for (const In& i : ins) t.push_back(nt::from_values(i.d, i.s, i.v));
  return t;
}

// Runs `op` on tensor handles with n_out runtime-allocated outputs; throws on failure.
inline std::vector<Out> run_handles(const char* op, const std::vector<ndrt_handle>& in, int n_out,
                                    const nt::Attrs& a = {}) {
  std::vector<ndrt_handle> out(size_t(n_out), 0);
  ndrt_status s = nt::exec(op, in, out, a);
  if (s != NDRT_OK) {
    for (ndrt_handle h : out)
      if (h) ndrt_tensor_release(h);
    throw nt::Failure(s, std::string("exec ") + op + " returned " + nt::describe_status(s));
  }
  std::vector<Out> r;
  for (ndrt_handle h : out) {
    nt::Tensor t(h);
    r.push_back({t.dtype(), t.shape(), nt::read_values(t)});
  }
  return r;
}

inline std::vector<Out> run_all(const char* op, const std::vector<In>& ins, int n_out, const nt::Attrs& a = {}) {
  std::vector<nt::Tensor> t = make_inputs(ins);
  std::vector<ndrt_handle> h;
  for (const nt::Tensor& x : t) h.push_back(x.get());
  return run_handles(op, h, n_out, a);
}

// Runs `op` expecting `status`, and (when given) exactly `message` from ndrt_last_error().
inline void expect_error(ndrt_status status, const std::string& message, const char* op,
                         const std::vector<const nt::Tensor*>& in, int n_out, const nt::Attrs& a = {}) {
  std::vector<ndrt_handle> h, out(size_t(n_out), 0);
  for (const nt::Tensor* t : in) h.push_back(t->get());
  ndrt_status s = nt::exec(op, h, out, a);
  EXPECT_EQ(s, status) << op << " returned " << nt::describe_status(s) << ", expected " << ndrt_status_name(status);
  if (!message.empty()) {
    EXPECT_EQ(std::string(ndrt_last_error()), message) << op;
  }
  for (ndrt_handle o : out) {
    EXPECT_EQ(o, 0) << op << ": a failed call left an output handle";
    if (o) ndrt_tensor_release(o);
  }
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Random values in [lo, hi] (f64), never exactly 0.
inline std::vector<double> randv(std::mt19937& rng, int64_t n, double lo = -2, double hi = 2) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    do x = u(rng);
    while (x == 0);
  }
  return v;
}

// Finite-difference check in f64: f(x) = <w, forward(inputs)[out_k]> with input `k` perturbed by
// +-h per element (central differences) against `analytic(w)`, the gradient of the _bp op.
inline void check_grad(const char* what, const char* fwd, int n_out, const std::vector<In>& ins, int k,
                       const nt::Attrs& a,
                       const std::function<std::vector<double>(const std::vector<double>& w)>& analytic,
                       std::mt19937& rng, int out_k = 0, double h = 1e-6, double rtol = 1e-6, double atol = 1e-7) {
  SCOPED_TRACE(what);
  std::vector<Out> y = run_all(fwd, ins, n_out, a);
  std::vector<double> w = randv(rng, int64_t(y[size_t(out_k)].v.size()), -1, 1);
  std::vector<double> got = analytic(w);
  ASSERT_EQ(got.size(), ins[size_t(k)].v.size()) << what << ": gradient size";
  std::vector<In> p = ins;
  int bad = 0;
  for (size_t i = 0; i < p[size_t(k)].v.size(); ++i) {
    const double x0 = ins[size_t(k)].v[i];
    p[size_t(k)].v[i] = x0 + h;
    double fp = dot(w, run_all(fwd, p, n_out, a)[size_t(out_k)].v);
    p[size_t(k)].v[i] = x0 - h;
    double fm = dot(w, run_all(fwd, p, n_out, a)[size_t(out_k)].v);
    p[size_t(k)].v[i] = x0;
    double num = (fp - fm) / (2 * h);
    if (!(std::fabs(num - got[i]) <= atol + rtol * std::fabs(num) + 1e-9 * std::fabs(fp)) && bad++ < 8)
      ADD_FAILURE() << what << ": d/dx[" << i << "] numeric " << num << " vs analytic " << got[i];
  }
}

}  // namespace rt
