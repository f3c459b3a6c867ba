// CUDA recurrent ops against the CPU on the same inputs: lstm, gru (y, h_n, c_n and the
// workspace) and lstm_bp, gru_bp (every gradient, fed the CPU forward's y and ws on both sides) in
// every float dtype, batch- and time-major, forward and reverse, variable lengths (0 and T among
// them, i32 and i64, a strided lengths view), a permuted (non-contiguous) x and w_hh, outputs given
// as strided views, and size-0 batch / time / input / hidden.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"

namespace {

using gt::Pair;
using nt::Attrs;

const std::vector<ndrt_dtype> kFloats = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16};

struct Case {
  bool lstm = true;
  int64_t B = 0, T = 0, I = 0, H = 0;
  bool reverse = false, tm = false;
  std::vector<int64_t> len;  // empty: every row has length T
  ndrt_dtype len_dtype = NDRT_I64;
  bool strided = false;  // x and w_hh permuted views, lengths a step-2 view

  int64_t K() const { return lstm ? 4 : 3; }
  nt::Shape seq(int64_t f) const { return tm ? nt::Shape{T, B, f} : nt::Shape{B, T, f}; }
  const char* op() const { return lstm ? "lstm" : "gru"; }
  const char* op_bp() const { return lstm ? "lstm_bp" : "gru_bp"; }
  Attrs attrs() const { return Attrs{{reverse ? 1 : 0, tm ? 1 : 0}, {}}; }
  std::string str(ndrt_dtype d) const {
    std::string s = std::string(op()) + " " + nt::dtype_str(d) + " B" + std::to_string(B) + " T" + std::to_string(T) +
                    " I" + std::to_string(I) + " H" + std::to_string(H) + (reverse ? " reverse" : "") +
                    (tm ? " time_major" : "") + (strided ? " strided" : "") + " len [";
    for (size_t b = 0; b < len.size(); ++b) s += (b ? "," : "") + std::to_string(len[b]);
    return s + "] " + nt::dtype_str(len_dtype);
  }
};

// A random pair of logical shape s, as a fully permuted (column-major) view when `permuted`.
Pair input_pair(ndrt_dtype d, const nt::Shape& s, bool permuted, const nt::Gen& gen, std::mt19937& rng) {
  if (!permuted) return gt::random_pair(d, s, rng, gen);
  nt::Shape rev(s.rbegin(), s.rend());
  std::vector<int32_t> perm;
  for (size_t i = s.size(); i-- > 0;) perm.push_back(int32_t(i));
  return gt::random_pair(d, rev, rng, gen).permute(perm);
}

// The forward's inputs in op order: x, w_ih, w_hh, b_ih, b_hh, h0, (c0), lengths.
struct Inputs {
  std::vector<Pair> p;
  std::vector<const Pair*> list() const {
    std::vector<const Pair*> l;
    for (const Pair& q : p) l.push_back(&q);
    return l;
  }
};

Inputs make_inputs(const Case& k, ndrt_dtype d, std::mt19937& rng) {
  Inputs in;
  const int64_t G = k.K() * k.H;
  const double ws = 1.0 / std::sqrt(double(std::max<int64_t>(k.H, 1)));  // keeps the gates out of saturation
  in.p.push_back(input_pair(d, k.seq(k.I), k.strided, nt::uniform_gen(d, -1, 1), rng));
  in.p.push_back(input_pair(d, {G, k.I}, false, nt::uniform_gen(d, -0.8 * ws - 0.2, 0.8 * ws + 0.2), rng));
  in.p.push_back(input_pair(d, {G, k.H}, k.strided, nt::uniform_gen(d, -ws, ws), rng));
  in.p.push_back(input_pair(d, {G}, false, nt::uniform_gen(d, -0.5, 0.5), rng));
  in.p.push_back(input_pair(d, {G}, false, nt::uniform_gen(d, -0.5, 0.5), rng));
  in.p.push_back(input_pair(d, {k.B, k.H}, false, nt::uniform_gen(d, -0.8, 0.8), rng));
  if (k.lstm) in.p.push_back(input_pair(d, {k.B, k.H}, false, nt::uniform_gen(d, -1.5, 1.5), rng));
  std::vector<double> lv;
  for (int64_t b = 0; b < k.B; ++b) lv.push_back(double(k.len.empty() ? k.T : k.len[size_t(b)]));
  if (k.strided && k.B > 0) {
    std::vector<double> big;
    for (double x : lv) big.insert(big.end(), {x, -99});
    in.p.push_back(gt::values_pair(k.len_dtype, {2 * k.B}, big).slice(0, 0, 2 * k.B, 2));
  } else {
    in.p.push_back(gt::values_pair(k.len_dtype, {k.B}, lv));
  }
  return in;
}

// cuda_tol widened for sums over R terms (GEMMs and bias sums grouped differently) and the
// recurrence (errors carried through the steps).
nt::Tol rnn_tol(ndrt_dtype d, int64_t R) {
  nt::Tol t = gt::cuda_tol(d);
  const double r = double(std::max<int64_t>(R, 1));
  switch (d) {
    case NDRT_F64: t = {1e-9, 1e-12 * r}; break;
    case NDRT_F32: t = {1e-4, std::max(1e-5, 1e-6 * r)}; break;
    case NDRT_F16: t.atol = std::max(t.atol, 1e-4 * r); break;
    default: t.atol = std::max(t.atol, 5e-4 * r); break;
  }
  return t;
}

// The CPU forward's outputs (y, h_n, (c_n), ws) as tensors on cpu:0.
std::vector<nt::Tensor> cpu_forward(const Case& k, const Inputs& in) {
  std::vector<ndrt_handle> ih, oh(k.lstm ? 4 : 3, 0);
  for (const Pair& p : in.p) ih.push_back(p.cpu.get());
  {
    gt::OnDevice on(NDRT_CPU);
    NT_CHECK(nt::exec(k.op(), ih, oh, k.attrs()));
  }
  std::vector<nt::Tensor> out;
  for (ndrt_handle h : oh) out.emplace_back(h);
  return out;
}

// Forward and backward of one case in one dtype, CUDA against the CPU.
void check_case(const Case& k, ndrt_dtype d, std::mt19937& rng) {
  SCOPED_TRACE(k.str(d));
  Inputs in = make_inputs(k, d, rng);
  const nt::Tol tf = rnn_tol(d, k.H + k.I), tb = rnn_tol(d, k.B * k.T + k.H);
  gt::expect_same(k.op(), in.list(), k.attrs(), &tf);

  // Backward on the CPU forward's y and ws (the same bits on both sides).
  std::vector<nt::Tensor> fw = cpu_forward(k, in);
  Pair y = gt::pair_of(std::move(fw.front()));
  Pair ws = gt::pair_of(std::move(fw.back()));
  Pair dy = gt::random_pair(d, k.seq(k.H), rng, nt::uniform_gen(d, -1, 1));
  Pair dhn = gt::random_pair(d, {k.B, k.H}, rng, nt::uniform_gen(d, -1, 1));
  Pair dcn = gt::random_pair(d, {k.B, k.H}, rng, nt::uniform_gen(d, -1, 1));
  std::vector<const Pair*> bp = in.list();
  bp.insert(bp.end(), {&y, &ws, &dy, &dhn});
  if (k.lstm) bp.push_back(&dcn);
  gt::expect_same(k.op_bp(), bp, k.attrs(), &tb);
}

TEST(CudaRnn, LstmAndGruEveryDtypeLayoutAndDirection) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(13);
  for (bool lstm : {true, false})
    for (ndrt_dtype d : kFloats)
      for (bool tm : {false, true})
        for (bool reverse : {false, true}) {
          Case k;
          k.lstm = lstm;
          k.B = 5, k.T = 11, k.I = 6, k.H = 7;  // H not a multiple of 8 or 32
          k.tm = tm;
          k.reverse = reverse;
          k.len = {11, 0, 4, 10, 1};  // T and 0 among them
          k.len_dtype = tm ? NDRT_I32 : NDRT_I64;
          check_case(k, d, rng);
        }
}

TEST(CudaRnn, FullLengthsAndWiderLayers) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(14);
  for (bool lstm : {true, false})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F64})
      for (bool reverse : {false, true}) {
        Case k;
        k.lstm = lstm;
        k.B = 9, k.T = 20, k.I = 33, k.H = 70;  // several blocks of threads per step
        k.reverse = reverse;
        check_case(k, d, rng);
      }
}

TEST(CudaRnn, StridedInputs) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(15);
  for (bool lstm : {true, false})
    for (ndrt_dtype d : kFloats)
      for (bool tm : {false, true}) {
        Case k;
        k.lstm = lstm;
        k.B = 4, k.T = 6, k.I = 5, k.H = 3;
        k.tm = tm;
        k.reverse = tm;
        k.len = {6, 2, 0, 5};
        k.len_dtype = NDRT_I32;
        k.strided = true;
        check_case(k, d, rng);
      }
}

TEST(CudaRnn, SizeZero) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(16);
  // {B, T, I, H}: empty batch, no steps, no input features, no hidden units.
  const std::vector<std::vector<int64_t>> sizes = {{0, 4, 3, 2}, {3, 0, 3, 2}, {3, 4, 0, 2}, {3, 4, 3, 0}, {0, 0, 0, 0}};
  for (bool lstm : {true, false})
    for (ndrt_dtype d : {NDRT_F32, NDRT_F16})
      for (const auto& s : sizes)
        for (bool tm : {false, true}) {
          Case k;
          k.lstm = lstm;
          k.B = s[0], k.T = s[1], k.I = s[2], k.H = s[3];
          k.tm = tm;
          k.reverse = tm;
          check_case(k, d, rng);
        }
}

// Outputs given as step-2 views of bigger (poisoned) cuda tensors: computed densely, copied out.
TEST(CudaRnn, StridedOutputs) {
  NDRT_REQUIRE_CUDA();
  std::mt19937 rng(17);
  for (bool lstm : {true, false})
    for (ndrt_dtype d : {NDRT_F32, NDRT_BF16}) {
      Case k;
      k.lstm = lstm;
      k.B = 3, k.T = 5, k.I = 4, k.H = 6;
      k.reverse = true;
      k.len = {5, 3, 0};
      SCOPED_TRACE(k.str(d));
      Inputs in = make_inputs(k, d, rng);
      std::vector<nt::Tensor> want = cpu_forward(k, in);
      std::vector<nt::Tensor> bigs, views;
      std::vector<ndrt_handle> ih, oh;
      for (const Pair& p : in.p) ih.push_back(p.gpu.get());
      for (const nt::Tensor& w : want) {
        const nt::Shape s = w.shape();
        nt::Shape big;
        for (int64_t x : s) big.push_back(2 * x + 1);
        std::vector<uint8_t> poison = nt::poison_bytes(w.dtype(), nt::numel_of(big));
        bigs.push_back(gt::to_device(nt::from_bytes(w.dtype(), big, poison.data(), poison.size(), NDRT_CPU), gt::kCuda0));
        nt::Tensor v = nt::retain(bigs.back());
        for (size_t i = 0; i < s.size(); ++i) v = nt::slice(v, int32_t(i), 1, 2 * s[i] + 1, 2);
        oh.push_back(v.get());
        views.push_back(std::move(v));
      }
      {
        gt::OnDevice on(gt::kCuda0);
        NT_CHECK(nt::exec(k.op(), ih, oh, k.attrs()));
        NT_CHECK(ndrt_synchronize(gt::kCuda0));
      }
      const nt::Tol t = rnn_tol(d, k.H + k.I);
      for (size_t i = 0; i < want.size(); ++i) {
        nt::Tensor got;
        {
          gt::OnDevice on(gt::kCuda0);
          got = gt::to_device(views[i], NDRT_CPU);
        }
        nt::expect_close(nt::read_values(got), nt::read_values(want[i]), want[i].dtype(), t,
                         std::string(k.op()) + " output " + std::to_string(i) + " into a view (cuda vs cpu)");
      }
    }
}

}  // namespace
