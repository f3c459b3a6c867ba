// Op definitions, recurrent family: lstm, lstm_bp, gru, gru_bp (one layer, one direction per call).
//
// Weights use PyTorch's layout and gate order (torch.nn.LSTM / torch.nn.GRU's weight_ih_l0,
// weight_hh_l0, bias_ih_l0, bias_hh_l0 go in unchanged). h0, c0 and lengths are required inputs
// (not declared optional: OpDef::optional_inputs): pass zeros and full lengths [T, ..., T] for the
// plain case.
#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kReverse = 0, kTimeMajor = 1 };  // attribute order of all four ops

// Shapes of one call, resolved from x and w_hh and checked against every other input.
struct RnnDims {
  int64_t B = 0, T = 0, I = 0, H = 0;
  int gates = 4;        // 4 (LSTM) or 3 (GRU)
  bool lstm = true;
  bool time_major = false;
  int lengths = 7;      // index of the lengths input
  ndrt_dtype ws_dtype = NDRT_F32;
  int64_t ws_cols() const { return (lstm ? 5 : 4) * H; }
  Dims seq(int64_t f) const {  // [B, T, f] or [T, B, f]
    Dims s{};
    s.rank = 3;
    s.d[0] = time_major ? T : B;
    s.d[1] = time_major ? B : T;
    s.d[2] = f;
    return s;
  }
};

Dims dims1(int64_t a) {
  Dims s{};
  s.rank = 1;
  s.d[0] = a;
  return s;
}
Dims dims2(int64_t a, int64_t b) {
  Dims s{};
  s.rank = 2;
  s.d[0] = a;
  s.d[1] = b;
  return s;
}

void want_shape(const OpContext& c, int i, const Dims& want, const char* what) {
  const Tensor& t = *c.in[i];
  if (t.shape != want)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: %s must be %s %s, got %s", c.op->name, c.op->inputs[size_t(i)], what,
         want.str().c_str(), t.shape.str().c_str());
}

void want_dtype(const OpContext& c, int i) {
  if (c.in[i]->dtype != c.in[0]->dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: %s is %s but x is %s (cast explicitly)", c.op->name, c.op->inputs[size_t(i)],
         dtype_name(c.in[i]->dtype), dtype_name(c.in[0]->dtype));
}

RnnDims rnn_dims(const OpContext& c, bool lstm) {
  RnnDims r;
  r.lstm = lstm;
  r.gates = lstm ? 4 : 3;
  r.lengths = lstm ? 7 : 6;
  r.time_major = c.attrs.get_bool(kTimeMajor);
  const char* name = c.op->name;
  const char* gate_names = lstm ? "i, f, g, o" : "r, z, n";
  const Tensor &x = *c.in[0], &w_ih = *c.in[1], &w_hh = *c.in[2];
  require_float(c, x.dtype);
  const int ws = c.n_in > r.lengths + 1 ? r.lengths + 2 : -1;  // the backward's workspace input
  for (int i = 1; i < c.n_in; ++i)
    if (i != r.lengths && i != ws) want_dtype(c, i);
  r.ws_dtype = x.dtype == NDRT_F64 ? NDRT_F64 : NDRT_F32;
  const ndrt_dtype ld = c.in[r.lengths]->dtype;
  if (ld != NDRT_I32 && ld != NDRT_I64)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: lengths must be i32 or i64, got %s", name, dtype_name(ld));
  if (x.rank() != 3)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: x must be rank 3 (%s), got %s", name, r.time_major ? "[T, B, I] with time_major" : "[B, T, I]",
         x.shape.str().c_str());
  r.B = x.shape.d[r.time_major ? 1 : 0];
  r.T = x.shape.d[r.time_major ? 0 : 1];
  r.I = x.shape.d[2];
  if (w_hh.rank() != 2 || w_hh.shape.d[0] != r.gates * w_hh.shape.d[1])
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w_hh must be [%dH, H] (gates %s stacked along axis 0), got %s", name, r.gates,
         gate_names, w_hh.shape.str().c_str());
  r.H = w_hh.shape.d[1];
  const int64_t G = r.gates * r.H;
  if (w_ih.rank() != 2 || w_ih.shape.d[0] != G || w_ih.shape.d[1] != r.I)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: w_ih must be [%dH, I] = [%lld,%lld] (H = %lld from w_hh, I = %lld from x), got %s",
         name, r.gates, (long long)G, (long long)r.I, (long long)r.H, (long long)r.I, w_ih.shape.str().c_str());
  want_shape(c, 3, dims1(G), lstm ? "[4H]" : "[3H]");
  want_shape(c, 4, dims1(G), lstm ? "[4H]" : "[3H]");
  want_shape(c, 5, dims2(r.B, r.H), "[B, H]");
  if (lstm) want_shape(c, 6, dims2(r.B, r.H), "[B, H]");
  want_shape(c, r.lengths, dims1(r.B), "[B]");
  return r;
}

void infer_forward(OpContext& c, bool lstm) {
  RnnDims r = rnn_dims(c, lstm);
  const ndrt_dtype d = c.in[0]->dtype;
  int o = 0;
  c.spec[o++] = {d, r.seq(r.H)};
  c.spec[o++] = {d, dims2(r.B, r.H)};
  if (lstm) c.spec[o++] = {d, dims2(r.B, r.H)};
  c.spec[o++] = {r.ws_dtype, r.seq(r.ws_cols())};
}

void infer_backward(OpContext& c, bool lstm) {
  RnnDims r = rnn_dims(c, lstm);
  const int y = r.lengths + 1, ws = y + 1, dy = y + 2, dh = y + 3;
  want_shape(c, y, r.seq(r.H), r.time_major ? "the forward's output [T, B, H]" : "the forward's output [B, T, H]");
  if (c.in[ws]->dtype != r.ws_dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: ws must be %s (the compute dtype for x %s, as the forward gave it), got %s",
         c.op->name, dtype_name(r.ws_dtype), dtype_name(c.in[0]->dtype), dtype_name(c.in[ws]->dtype));
  want_shape(c, ws, r.seq(r.ws_cols()),
             lstm ? "the forward's workspace [.., .., 5H]" : "the forward's workspace [.., .., 4H]");
  want_shape(c, dy, r.seq(r.H), "y's shape");
  want_shape(c, dh, dims2(r.B, r.H), "[B, H]");
  if (lstm) want_shape(c, dh + 1, dims2(r.B, r.H), "[B, H]");
  const ndrt_dtype d = c.in[0]->dtype;
  for (int i = 0; i < (lstm ? 7 : 6); ++i) c.spec[i] = {d, c.in[i]->shape};
}

void infer_lstm(OpContext& c) { infer_forward(c, true); }
void infer_gru(OpContext& c) { infer_forward(c, false); }
void infer_lstm_bp(OpContext& c) { infer_backward(c, true); }
void infer_gru_bp(OpContext& c) { infer_backward(c, false); }

}  // namespace

void define_rnn_ops(Registry& r) {
  const std::vector<AttrDef> attrs = {attr_bool("reverse", false), attr_bool("time_major", false)};
#define NDRT_RNN_COMMON_DOC                                                                                          \
  " One layer, one direction per call (a bidirectional layer is two calls, the second with reverse = true, "      \
  "their outputs concatenated on the feature axis). x is [B, T, I], or [T, B, I] with time_major; the hidden "     \
  "sequence y has the same major order ([B, T, H] / [T, B, H]). h0 [B, H] is the initial state (pass zeros for "  \
  "none: the op has no optional inputs). lengths [B] (i32 or i64, every value in [0, T], else "                    \
  "NDRT_ERR_INVALID_ARGUMENT on the CPU; CUDA kernels cannot fail after launch and read them clamped to "      \
  "[0, T]) gives each row's valid length: for row b the steps t >= lengths[b] give y = 0 and "                     \
  "leave the state alone, so the final state is the state after the last valid step. With reverse = true the "    \
  "steps run T-1 down to 0, and the valid ones are lengths[b]-1 down to 0 (the reversed valid prefix, as "         \
  "PyTorch's packed sequences); pass [T, ..., T] for fixed-length batches. Attributes: reverse (bool, default "    \
  "false), time_major (bool, default false). dtypes f32, f64; f16, bf16 convert to f32, compute in f32 (ws is "    \
  "then f32) and round each output once. CPU: the input projection of all steps is one GEMM, then per step one "   \
  "GEMM for the recurrent part and one fused pass over the batch (bias, gate activations, state update)."
  r.define({"lstm",
            "LSTM layer with PyTorch's weights and gate order (torch.nn.LSTM): w_ih [4H, I], w_hh [4H, H], b_ih [4H], "
            "b_hh [4H], gates stacked i, f, g, o along axis 0. Per step: a = x_t W_ih^T + b_ih + h W_hh^T + b_hh; "
            "i = sigmoid(a_i), f = sigmoid(a_f), g = tanh(a_g), o = sigmoid(a_o); c' = f*c + i*g; h' = o*tanh(c'); "
            "y_t = h'. c0 [B, H] is the initial cell state. Outputs y, h_n [B, H], c_n [B, H] and ws, the "
            "workspace lstm_bp reads: [B, T, 5H] ([T, B, 5H] with time_major) in the compute dtype (f64 for f64, "
            "else f32) holding per step the activated gates i, f, g, o and the new cell state c' (zeros at "
            "invalid steps). DL4J's LSTM (org.deeplearning4j LSTM / LSTMHelpers) stores input weights [nIn, "
            "4*nOut], recurrent weights [nOut, 4*nOut] (GravesLSTM: 3 more peephole columns, which this op does "
            "not have) and one bias [4*nOut], its column blocks in the order (block input, forget, output, input "
            "gate), i.e. torch's (g, f, o, i): w_ih = the transpose of the input weights with the row blocks "
            "reordered to (i, f, g, o) = DL4J blocks (3, 1, 0, 2), w_hh likewise, b_ih = the DL4J bias reordered "
            "the same way, b_hh = 0 (DL4J's default activation tanh and gate activation sigmoid; other "
            "activations are not covered). DL4J's sequences are [B, I, T] (NCW): pass x as the permuted view "
            "[B, T, I] (strided inputs are copied internally)." NDRT_RNN_COMMON_DOC,
            {"x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0", "lengths"},
            {"y", "h_n", "c_n", "ws"},
            attrs,
            infer_lstm});
  r.define({"lstm_bp",
            "Gradient of lstm by backpropagation through time over the whole sequence. Inputs: lstm's inputs, its "
            "outputs y and ws (exactly as lstm gave them, with the same attributes; they are not re-checked "
            "against x), and the incoming gradients dy (y's shape), dh_n and dc_n [B, H] (pass zeros where the "
            "final state is not used). Outputs dx, dw_ih, dw_hh, db_ih, db_hh, dh0, dc0, each of its input's "
            "shape; db_ih = db_hh. Steps past a row's length pass dh and dc through unchanged and ignore dy there. "
            "CPU: per step one fused pass for the gate gradients and one GEMM for the recurrent gradient, then dx, "
            "dw_ih and dw_hh as one GEMM each over all steps." NDRT_RNN_COMMON_DOC,
            {"x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0", "lengths", "y", "ws", "dy", "dh_n", "dc_n"},
            {"dx", "dw_ih", "dw_hh", "db_ih", "db_hh", "dh0", "dc0"},
            attrs,
            infer_lstm_bp});
  r.define({"gru",
            "GRU layer with PyTorch's weights and gate order (torch.nn.GRU): w_ih [3H, I], w_hh [3H, H], b_ih [3H], "
            "b_hh [3H], gates stacked r, z, n along axis 0. Per step: r = sigmoid(W_ir x + b_ir + W_hr h + b_hr), "
            "z = sigmoid(W_iz x + b_iz + W_hz h + b_hz), n = tanh(W_in x + b_in + r * (W_hn h + b_hn)), "
            "h' = (1 - z) * n + z * h; y_t = h'. Outputs y, h_n [B, H] and ws, the workspace gru_bp reads: "
            "[B, T, 4H] ([T, B, 4H] with time_major) in the compute dtype holding per step r, z, n and "
            "W_hn h + b_hn (zeros at invalid steps). (DL4J has no GRU layer of its own to map from.)" NDRT_RNN_COMMON_DOC,
            {"x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "lengths"},
            {"y", "h_n", "ws"},
            attrs,
            infer_gru});
  r.define({"gru_bp",
            "Gradient of gru by backpropagation through time over the whole sequence. Inputs: gru's inputs, its "
            "outputs y and ws (exactly as gru gave them, with the same attributes; not re-checked against x), and "
            "the incoming gradients dy (y's shape) and dh_n [B, H]. Outputs dx, dw_ih, dw_hh, db_ih, db_hh, dh0, "
            "each of its input's shape. Steps past a row's length pass dh through unchanged and ignore dy there. "
            "CPU: per step one fused pass for the gate gradients and one GEMM for the recurrent gradient, then dx, "
            "dw_ih and dw_hh as one GEMM each over all steps." NDRT_RNN_COMMON_DOC,
            {"x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "lengths", "y", "ws", "dy", "dh_n"},
            {"dx", "dw_ih", "dw_hh", "db_ih", "db_hh", "dh0"},
            attrs,
            infer_gru_bp});
#undef NDRT_RNN_COMMON_DOC
}

}  // namespace ndrt
