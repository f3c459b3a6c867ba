// Op definitions: softmax and log_softmax forward/backward; losses with their gradients.
//
// Losses take attribute `reduction`: 0 none (one loss per row / element), 1 mean (default), 2 sum.
// The class losses (nll_loss, softmax_cross_entropy*) have one loss per row of an [N, C] input; the
// pointwise losses (mse, l1, bce) have one loss per element and mean divides by the element count
// (as PyTorch). The class-index losses (softmax_cross_entropy, nll_loss and their _bp) also take an
// optional input `weights` [C] and an attribute `ignore_index` (default -100) with PyTorch's
// semantics; their mean divides by the summed weights of the rows not ignored and is 0 (not NaN)
// when that is 0. softmax_cross_entropy_soft's mean divides by N. Otherwise mean over nothing is
// NaN; sum over nothing is 0. Every _bp op takes the forward inputs plus dy (the gradient of the loss
// output: shape [] when reduced, the loss's shape for reduction none; the optional weights come after
// dy) and returns the gradient of the first input only.
#include <cstring>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kAxis = 0 };
enum { kReduction = 0 };  // every loss; the class-index losses then have ignore_index (1)

bool named(const OpContext& c, const char* prefix) {
  return std::strncmp(c.op->name, prefix, std::strlen(prefix)) == 0;
}
const char* scores_name(const OpContext& c) { return named(c, "nll") ? "logp" : "logits"; }

void infer_softmax(OpContext& c) {
  const Tensor& x = *c.in[0];
  require_float(c, x.dtype);
  if (x.rank() > 0)
    normalize_axis(c.op->name, c.attrs.get_int(kAxis), x.rank());
  else if (c.attrs.get_int(kAxis) != 0 && c.attrs.get_int(kAxis) != -1)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: axis %lld is out of range for rank 0 (use 0 or -1)", c.op->name,
         (long long)c.attrs.get_int(kAxis));
  c.spec[0] = {x.dtype, x.shape};
}

void infer_softmax_bp(OpContext& c) {
  require_same_dtype(c);
  if (c.in[1]->shape != c.in[0]->shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but y has shape %s", c.op->name, c.in[1]->shape.str().c_str(),
         c.in[0]->shape.str().c_str());
  infer_softmax(c);
}

int64_t reduction_of(const OpContext& c) {
  int64_t r = c.attrs.get_int(kReduction);
  if (r < 0 || r > 2)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: reduction must be 0 (none), 1 (mean) or 2 (sum), got %lld", c.op->name,
         (long long)r);
  return r;
}

// The loss output's shape: `per_item` for reduction none, else a scalar.
Dims loss_shape(const OpContext& c, const Dims& per_item) {
  Dims s{};
  s.rank = 0;
  return reduction_of(c) == 0 ? per_item : s;
}

// [N, C] scores with [N] class indices (i32 or i64).
void check_class_inputs(const OpContext& c, const char* what) {
  const Tensor &x = *c.in[0], &labels = *c.in[1];
  require_float(c, x.dtype);
  if (x.rank() != 2)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s must be [N, C], got %s", c.op->name, what, x.shape.str().c_str());
  if (labels.dtype != NDRT_I32 && labels.dtype != NDRT_I64)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: labels must be i32 or i64 class indices, got %s", c.op->name,
         dtype_name(labels.dtype));
  if (labels.rank() != 1 || labels.shape.d[0] != x.shape.d[0])
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: labels must be [N] = [%lld] for %s %s, got %s", c.op->name,
         (long long)x.shape.d[0], what, x.shape.str().c_str(), labels.shape.str().c_str());
}

// Inputs 0 and 1 of one float dtype and one shape.
void check_pair(const OpContext& c, const char* a, const char* b) {
  const Tensor &x = *c.in[0], &t = *c.in[1];
  require_float(c, x.dtype);
  if (t.dtype != x.dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: %s is %s but %s is %s (cast explicitly)", c.op->name, b, dtype_name(t.dtype), a,
         dtype_name(x.dtype));
  if (t.shape != x.shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s has shape %s but %s has shape %s", c.op->name, b, t.shape.str().c_str(), a,
         x.shape.str().c_str());
}

void check_dy(const OpContext& c, int k, const Dims& loss) {
  const Tensor& dy = *c.in[k];
  if (dy.dtype != c.in[0]->dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: dy is %s but the loss is %s", c.op->name, dtype_name(dy.dtype),
         dtype_name(c.in[0]->dtype));
  if (dy.shape != loss)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: dy has shape %s but the loss has shape %s (reduction %lld)", c.op->name,
         dy.shape.str().c_str(), loss.str().c_str(), (long long)c.attrs.get_int(kReduction));
}

// The optional class weights of the class-index losses, input k when given: [C] of x's dtype.
void check_class_weights(const OpContext& c, int k) {
  if (c.n_in <= k) return;
  const Tensor &x = *c.in[0], &w = *c.in[k];
  if (w.dtype != x.dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: weights is %s but %s is %s (cast explicitly)", c.op->name, dtype_name(w.dtype),
         scores_name(c), dtype_name(x.dtype));
  if (w.rank() != 1 || w.shape.d[0] != x.shape.d[1])
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: weights must be [C] = [%lld] (one per class) for %s %s, got %s", c.op->name,
         (long long)x.shape.d[1], scores_name(c), x.shape.str().c_str(), w.shape.str().c_str());
}

Dims rows_of(const Tensor& x) {
  Dims s{};
  s.rank = 1;
  s.d[0] = x.shape.d[0];
  return s;
}

void infer_class_loss(OpContext& c) {
  check_class_inputs(c, scores_name(c));
  check_class_weights(c, 2);
  c.spec[0] = {c.in[0]->dtype, loss_shape(c, rows_of(*c.in[0]))};
}
void infer_class_loss_bp(OpContext& c) {
  check_class_inputs(c, scores_name(c));
  check_dy(c, 2, loss_shape(c, rows_of(*c.in[0])));
  check_class_weights(c, 3);
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_soft_ce(OpContext& c) {
  check_pair(c, "logits", "targets");
  if (c.in[0]->rank() != 2)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: logits must be [N, C], got %s", c.op->name, c.in[0]->shape.str().c_str());
  c.spec[0] = {c.in[0]->dtype, loss_shape(c, rows_of(*c.in[0]))};
}
void infer_soft_ce_bp(OpContext& c) {
  infer_soft_ce(c);
  check_dy(c, 2, c.spec[0].shape);
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

void infer_pointwise_loss(OpContext& c) {
  check_pair(c, named(c, "bce_with_logits") ? "logits" : "pred", "target");
  c.spec[0] = {c.in[0]->dtype, loss_shape(c, c.in[0]->shape)};
}
void infer_pointwise_loss_bp(OpContext& c) {
  infer_pointwise_loss(c);
  check_dy(c, 2, c.spec[0].shape);
  c.spec[0] = {c.in[0]->dtype, c.in[0]->shape};
}

}  // namespace

void define_softmax_loss_ops(Registry& r) {
  const std::vector<AttrDef> axis = {attr_int("axis", -1)};
  r.define({"softmax",
            "y = exp(x - max) / sum(exp(x - max)) along `axis` (default -1, the last), computed "
            "stably; a row containing NaN, or whose maximum is +-inf, gives NaN (as PyTorch). May run "
            "in place (y the same view as x).",
            {"x"},
            {"y"},
            axis,
            infer_softmax})
      .inplace = true;
  r.define({"log_softmax",
            "y = x - max - log(sum(exp(x - max))) along `axis` (default -1), computed stably. "
            "May run in place.",
            {"x"},
            {"y"},
            axis,
            infer_softmax})
      .inplace = true;
  r.define({"softmax_bp",
            "Gradient of softmax from its OUTPUT: dx = y * (dy - sum(dy * y)) along `axis`. Inputs: "
            "y = softmax(x) and dy, the gradient of y. dx may be the same view as dy or y.",
            {"y", "dy"},
            {"dx"},
            axis,
            infer_softmax_bp})
      .inplace = true;
  r.define({"log_softmax_bp",
            "Gradient of log_softmax from its OUTPUT: dx = dy - exp(y) * sum(dy) along `axis`. "
            "Inputs: y = log_softmax(x) and dy. dx may be the same view as dy or y.",
            {"y", "dy"},
            {"dx"},
            axis,
            infer_softmax_bp})
      .inplace = true;

  const std::vector<AttrDef> red = {attr_int("reduction", 1)};
  // The class-index losses: reduction, then ignore_index (PyTorch's default, -100).
  const std::vector<AttrDef> class_attrs = {attr_int("reduction", 1), attr_int("ignore_index", -100)};
  r.define({"softmax_cross_entropy",
            "Fused softmax + cross-entropy with class indices, as PyTorch's F.cross_entropy(logits, labels, "
            "weight=weights, ignore_index=ignore_index, reduction=...): loss_n = w[labels[n]] * "
            "(logsumexp(logits[n, :]) - logits[n, labels[n]]) for logits [N, C] (f32, f64, f16, bf16; the halves "
            "compute in f32) and labels [N] (i32 or i64). Optional last input weights [C] (logits' dtype, one "
            "per class, values not checked) gives w; without it w = 1. Attribute ignore_index (int, default "
            "-100 as PyTorch): a row whose label equals it has loss 0 and gradient 0 and is not counted; every "
            "other label must lie in [0, C), else NDRT_ERR_INVALID_ARGUMENT naming the row (on CUDA, which "
            "cannot fail inside a kernel, that row's loss and gradient are NaN instead). reduction: 0 none (loss "
            "[N], 0 on ignored rows), 1 mean (default; loss []) = sum_n loss_n / D with D = the sum of "
            "w[labels[n]] over the rows not ignored (without weights, their count), and 0 when D is 0 (every "
            "row ignored, N = 0, zero weights; PyTorch gives NaN there: 0 keeps a batch of padding from turning "
            "training into NaN), 2 sum. Per time step under a mask: use a sequence [N, T, C] with labels [N, T] "
            "reshaped to [N*T, C] and [N*T] (reshape, no copy when contiguous), and either give the masked "
            "steps label = ignore_index (mean then averages over the valid steps, weighted) or take reduction "
            "none and multiply the [N*T] losses by the mask before summing. The softmax is never materialised.",
            {"logits", "labels", "weights"},
            {"loss"},
            class_attrs,
            infer_class_loss})
      .optional_inputs = 1;
  r.define({"softmax_cross_entropy_bp",
            "Fused gradient of softmax_cross_entropy: dlogits[n, c] = w[labels[n]] * (softmax(logits)[n, c] - "
            "(c == labels[n])) * g_n, and 0 on the rows whose label is ignore_index; g_n = dy (scalar) / D for "
            "mean (D the forward's denominator; g = 0 when D is 0), dy for sum, dy[n] for none. Inputs: the "
            "forward's logits and labels, dy, then the forward's optional weights [C]; attributes reduction and "
            "ignore_index as the forward. The softmax is recomputed (no saved activations).",
            {"logits", "labels", "dy", "weights"},
            {"dlogits"},
            class_attrs,
            infer_class_loss_bp})
      .optional_inputs = 1;
  r.define({"softmax_cross_entropy_soft",
            "Fused softmax + cross-entropy with target distributions (one-hot or soft labels): "
            "loss_n = -sum_c targets[n, c] * log_softmax(logits)[n, c], logits and targets [N, C] of one float "
            "dtype (targets are not checked to sum to 1). reduction: 0 none (loss [N]), 1 mean over N (default; "
            "loss [], NaN for N = 0 as PyTorch), 2 sum.",
            {"logits", "targets"},
            {"loss"},
            red,
            infer_soft_ce});
  r.define({"softmax_cross_entropy_soft_bp",
            "Gradient of softmax_cross_entropy_soft with respect to logits: dlogits[n, c] = (softmax[n, c] * "
            "sum_k targets[n, k] - targets[n, c]) * g_n, g_n = dy (scalar) / N for mean, dy for sum, dy[n] for "
            "none. Inputs: logits, targets, dy.",
            {"logits", "targets", "dy"},
            {"dlogits"},
            red,
            infer_soft_ce_bp});
  r.define({"nll_loss",
            "Negative log-likelihood, as PyTorch's F.nll_loss(logp, labels, weight=weights, "
            "ignore_index=ignore_index, reduction=...): loss_n = -w[labels[n]] * logp[n, labels[n]] for logp "
            "[N, C] (log-probabilities, e.g. from log_softmax; f32, f64, f16, bf16) and labels [N] (i32 or i64, "
            "each in [0, C) or equal to ignore_index). Optional last input weights [C], attribute ignore_index "
            "(default -100), reduction (mean = sum / the summed weights of the rows not ignored, 0 when that is "
            "0) and per-time-step use exactly as softmax_cross_entropy.",
            {"logp", "labels", "weights"},
            {"loss"},
            class_attrs,
            infer_class_loss})
      .optional_inputs = 1;
  r.define({"nll_loss_bp",
            "Gradient of nll_loss: dlogp[n, c] = -w[labels[n]] * g_n where c == labels[n], else 0 (the whole row "
            "0 when labels[n] is ignore_index; g_n as softmax_cross_entropy_bp). Inputs: logp, labels, dy, then "
            "the optional weights [C]; attributes as nll_loss.",
            {"logp", "labels", "dy", "weights"},
            {"dlogp"},
            class_attrs,
            infer_class_loss_bp})
      .optional_inputs = 1;
  r.define({"mse_loss",
            "Squared error per element: (pred - target)^2, same shape and dtype; reduction 0 none, "
            "1 mean over all elements (default), 2 sum.",
            {"pred", "target"},
            {"loss"},
            red,
            infer_pointwise_loss});
  r.define({"mse_loss_bp",
            "Gradient of mse_loss with respect to pred: 2 (pred - target) * g, g = dy / count for "
            "mean, dy for sum, dy elementwise for none. Inputs: pred, target, dy.",
            {"pred", "target", "dy"},
            {"dpred"},
            red,
            infer_pointwise_loss_bp});
  r.define({"l1_loss",
            "Absolute error per element: |pred - target|; reduction as mse_loss.",
            {"pred", "target"},
            {"loss"},
            red,
            infer_pointwise_loss});
  r.define({"l1_loss_bp",
            "Gradient of l1_loss with respect to pred: sign(pred - target) * g (0 where pred == "
            "target). Inputs: pred, target, dy.",
            {"pred", "target", "dy"},
            {"dpred"},
            red,
            infer_pointwise_loss_bp});
  r.define({"binary_cross_entropy",
            "Binary cross-entropy on probabilities: -(target * log(pred) + (1 - target) * log(1 - pred)) per "
            "element, each log clamped to >= -100 (as PyTorch) so pred = 0 or 1 gives a finite loss. pred should "
            "lie in [0, 1]; prefer bce_with_logits, which is stable. reduction as mse_loss.",
            {"pred", "target"},
            {"loss"},
            red,
            infer_pointwise_loss});
  r.define({"binary_cross_entropy_bp",
            "Gradient of binary_cross_entropy with respect to pred: (pred - target) / max(pred (1 - pred), "
            "1e-12) * g. Inputs: pred, target, dy.",
            {"pred", "target", "dy"},
            {"dpred"},
            red,
            infer_pointwise_loss_bp});
  r.define({"bce_with_logits",
            "Binary cross-entropy on logits, stable for any x: max(x, 0) - x * target + log(1 + exp(-|x|)) per "
            "element (= binary_cross_entropy(sigmoid(x), target) without its clamping). reduction as mse_loss.",
            {"logits", "target"},
            {"loss"},
            red,
            infer_pointwise_loss});
  r.define({"bce_with_logits_bp",
            "Gradient of bce_with_logits with respect to logits: (sigmoid(x) - target) * g. Inputs: logits, "
            "target, dy.",
            {"logits", "target", "dy"},
            {"dlogits"},
            red,
            infer_pointwise_loss_bp});
}

}  // namespace ndrt
