// Op definitions: fused in-place updater steps: sgd, nesterovs, adagrad, rmsprop, adam, adamw.
//
// In this registry ops write only their outputs, so an updater has one output per tensor it
// updates (param_out, then the state outputs in input order) and is marked in-place: the caller
// passes the very same handles as outputs (param_out = param, m_out = m, ...) and the step runs
// in place, one pass over memory. Outputs given as 0 (or as other, unrelated tensors) receive the
// new values and leave the inputs as they were. Inference refuses every other overlap: an output
// may share memory only with its own input (as the very same view: dispatch checks that), and no
// two outputs may share memory.
#include <cmath>
#include <cstring>
#include <deque>
#include <string>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

// Input feeding output o: param for param_out, state k for output k.
int input_of_output(int o) { return o == 0 ? 0 : o + 1; }

void check_hyper(const OpContext& c) {
  const char* name = c.op->name;
  for (size_t k = 0; k < c.op->attrs.size(); ++k) {
    const AttrDef& d = c.op->attrs[k];
    if (d.type == AttrType::Int) {  // the step count
      if (c.attrs.get_int(int(k)) < 1)
        fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %s counts updates from 1, got %lld", name, d.name,
             (long long)c.attrs.get_int(int(k)));
      continue;
    }
    const double v = c.attrs.get_float(int(k));
    if (!std::isfinite(v)) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %s must be finite, got %g", name, d.name, v);
    if (!std::strcmp(d.name, "eps") && v < 0)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: eps must be >= 0, got %g", name, v);
    if (!std::strcmp(d.name, "rho") && (v < 0 || v > 1))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: rho must be in [0, 1], got %g", name, v);
    if (!std::strncmp(d.name, "beta", 4) && (v < 0 || v >= 1))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %s must be in [0, 1), got %g", name, d.name, v);
  }
}

void infer_updater(OpContext& c) {
  const char* name = c.op->name;
  require_same_dtype(c);
  require_float(c, c.in[0]->dtype);
  const Tensor& p = *c.in[0];
  for (int i = 1; i < c.n_in; ++i)
    if (c.in[i]->shape != p.shape)
      fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s has shape %s but param has %s (no broadcasting)", name,
           c.op->inputs[size_t(i)], c.in[i]->shape.str().c_str(), p.shape.str().c_str());
  check_hyper(c);
  for (int o = 0; o < c.n_out; ++o) {
    c.spec[o] = {p.dtype, p.shape};
    if (!c.out[o]) continue;
    for (int j = 0; j < c.n_in; ++j)
      if (j != input_of_output(o) && c.out[o]->overlaps(*c.in[j]))
        fail(NDRT_ERR_INVALID_ARGUMENT,
             "%s: output %s shares memory with input %s; an output may only be its own input's view (%s = %s)", name,
             c.op->outputs[size_t(o)], c.op->inputs[size_t(j)], c.op->outputs[size_t(o)],
             c.op->inputs[size_t(input_of_output(o))]);
    for (int q = 0; q < o; ++q)
      if (c.out[q] && c.out[q]->overlaps(*c.out[o]))
        fail(NDRT_ERR_INVALID_ARGUMENT, "%s: outputs %s and %s share memory", name, c.op->outputs[size_t(q)],
             c.op->outputs[size_t(o)]);
  }
}

constexpr const char* kInPlace =
    " In place: pass the very same handles as outputs (param_out = param, and each state output = its state "
    "input); outputs given as 0 or as unrelated tensors get the new values and the inputs stay unchanged. An "
    "output may share memory only with its own input, as the very same view. grad and the states have param's "
    "shape (any rank, any strides); one fused pass over all of them. dtypes f32, f64.";
constexpr const char* kL2 =
    " weight_decay is L2 regularisation added to the gradient: g = grad + weight_decay * param.";

}  // namespace

void define_updaters_ops(Registry& r) {
  auto def = [&](const char* name, std::string doc, std::vector<const char*> in, std::vector<const char*> out,
                 std::vector<AttrDef> attrs) {
    static std::deque<std::string> docs;  // op docs live as long as the process
    docs.push_back(doc + (std::strcmp(name, "adamw") ? kL2 : "") + kInPlace);
    r.define({name, docs.back().c_str(), std::move(in), std::move(out), std::move(attrs), infer_updater}).inplace =
        true;
  };
  def("sgd", "One SGD step: param = param - lr * g. Attributes lr (default 0.001), weight_decay (default 0).",
      {"param", "grad"}, {"param_out"}, {attr_float("lr", 0.001), attr_float("weight_decay", 0.0)});
  def("nesterovs",
      "One Nesterov momentum step, DL4J's Nesterovs updater exactly (org.nd4j.linalg.learning.NesterovsUpdater, "
      "after cs231n): v' = momentum * v - lr * g; param = param - momentum * v + (1 + momentum) * v'. Attributes lr "
      "(default 0.1), momentum (default 0.9), weight_decay (default 0).",
      {"param", "grad", "velocity"}, {"param_out", "velocity_out"},
      {attr_float("lr", 0.1), attr_float("momentum", 0.9), attr_float("weight_decay", 0.0)});
  def("adagrad",
      "One AdaGrad step (DL4J's AdaGradUpdater): accum' = accum + g^2; param = param - lr * g / (sqrt(accum') + "
      "eps). Attributes lr (default 0.1), eps (default 1e-6, >= 0), weight_decay (default 0).",
      {"param", "grad", "accum"}, {"param_out", "accum_out"},
      {attr_float("lr", 0.1), attr_float("eps", 1e-6), attr_float("weight_decay", 0.0)});
  def("rmsprop",
      "One RMSProp step (DL4J's RmsPropUpdater, torch's RMSprop without momentum): sq_avg' = rho * sq_avg + "
      "(1 - rho) * g^2; param = param - lr * g / (sqrt(sq_avg') + eps). Attributes lr (default 0.1), rho (the "
      "decay, default 0.95, in [0, 1]), eps (default 1e-8, >= 0), weight_decay (default 0).",
      {"param", "grad", "sq_avg"}, {"param_out", "sq_avg_out"},
      {attr_float("lr", 0.1), attr_float("rho", 0.95), attr_float("eps", 1e-8), attr_float("weight_decay", 0.0)});
  def("adam",
      "One Adam step in the efficient form of Kingma & Ba (2015, section 2), as DL4J's AdamUpdater: m' = beta1 * "
      "m + (1 - beta1) * g; v' = beta2 * v + (1 - beta2) * g^2; param = param - alpha_t * m' / (sqrt(v') + eps) "
      "with alpha_t = lr * sqrt(1 - beta2^step) / (1 - beta1^step). (torch.optim.Adam adds eps after the bias "
      "correction instead: its eps acts as eps * sqrt(1 - beta2^step) here.) Attributes lr (default 0.001), "
      "beta1 (0.9), beta2 (0.999), both in [0, 1), eps (1e-8, >= 0), weight_decay (0; L2 into g, as torch's Adam), "
      "step (int, default 1): the 1-based number of this update, for the bias correction.",
      {"param", "grad", "m", "v"}, {"param_out", "m_out", "v_out"},
      {attr_float("lr", 0.001), attr_float("beta1", 0.9), attr_float("beta2", 0.999), attr_float("eps", 1e-8),
       attr_float("weight_decay", 0.0), attr_int("step", 1)});
  def("adamw",
      "One AdamW step (Loshchilov & Hutter, decoupled weight decay): Adam's m', v' and alpha_t from the raw "
      "gradient (no L2 term), then param = param - lr * weight_decay * param - alpha_t * m' / (sqrt(v') + eps); "
      "the decay multiplies lr, as torch.optim.AdamW. Attributes as adam, but weight_decay (default 0.01) is the "
      "decoupled decay, not L2 (so g = grad below).",
      {"param", "grad", "m", "v"}, {"param_out", "m_out", "v_out"},
      {attr_float("lr", 0.001), attr_float("beta1", 0.9), attr_float("beta2", 0.999), attr_float("eps", 1e-8),
       attr_float("weight_decay", 0.01), attr_int("step", 1)});
}

}  // namespace ndrt
