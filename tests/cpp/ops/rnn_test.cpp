// Recurrent ops: lstm, gru (y, h_n, c_n and the documented workspace) against float64 references
// computed here, on batch- and time-major inputs, reverse, variable lengths (0 and full among
// them), size-0 batch / time / input / hidden, T = 1, H not a multiple of 8, every input layout
// (permuted, strided with a reversed axis, expanded, offset), fresh / given / strided-view
// outputs (poisoned), f32, f64, f16, bf16 and several thread counts; lstm_bp and gru_bp against
// central differences of the float64 reference for every input (x, weights, biases, h0, c0)
// through >= 10 steps with variable lengths, f32 against the (checked) f64 gradients; the error
// cases with their exact messages.
#include <algorithm>
#include <cmath>

#include "common/ndrt_test.hpp"
#include "linalg_test_util.hpp"

using namespace nt;

namespace {

struct Cfg {
  bool lstm = true;
  int64_t B = 0, T = 0, I = 0, H = 0;
  bool reverse = false, tm = false;
  std::vector<int64_t> len;  // empty: every row has length T
  ndrt_dtype len_dtype = NDRT_I64;

  int64_t K() const { return lstm ? 4 : 3; }
  int64_t len_of(int64_t b) const { return len.empty() ? T : len[size_t(b)]; }
  int64_t row(int64_t t, int64_t b) const { return tm ? t * B + b : b * T + t; }
  Shape seq(int64_t f) const { return tm ? Shape{T, B, f} : Shape{B, T, f}; }
  const char* op() const { return lstm ? "lstm" : "gru"; }
  const char* op_bp() const { return lstm ? "lstm_bp" : "gru_bp"; }
  Attrs attrs() const { return Attrs{{reverse ? 1 : 0, tm ? 1 : 0}, {}}; }
  std::string str() const {
    std::string s = std::string(op()) + " B" + std::to_string(B) + " T" + std::to_string(T) + " I" + std::to_string(I) +
                    " H" + std::to_string(H) + (reverse ? " reverse" : "") + (tm ? " time_major" : "") + " len [";
    for (int64_t b = 0; b < B; ++b) s += (b ? "," : "") + std::to_string(len_of(b));
    return s + "] " + dtype_str(len_dtype);
  }
};

// Logical values (row-major) of the float inputs, in the ops' input order.
struct Vals {
  std::vector<double> x, wih, whh, bih, bhh, h0, c0;
  std::vector<double>* get(int i) {
    std::vector<double>* v[] = {&x, &wih, &whh, &bih, &bhh, &h0, &c0};
    return v[i];
  }
};
struct Fwd {
  std::vector<double> y, hn, cn, ws;
};

double sig(double v) { return 1 / (1 + std::exp(-v)); }

// The float64 reference: torch.nn.LSTM / torch.nn.GRU on the valid steps of each row; y = 0 and
// ws = 0 at invalid steps. ws holds (LSTM) i, f, g, o, c' or (GRU) r, z, n, W_hn h + b_hn.
Fwd ref_forward(const Cfg& c, const Vals& v) {
  const int64_t B = c.B, T = c.T, I = c.I, H = c.H, G = c.K() * H, W = G + H;
  Fwd f;
  f.y.assign(size_t(B * T * H), 0);
  f.ws.assign(size_t(B * T * W), 0);
  f.hn = v.h0;
  if (c.lstm) f.cn = v.c0;
  std::vector<double> ax(static_cast<size_t>(G)), ah(static_cast<size_t>(G)), h(static_cast<size_t>(H)),
      cc(static_cast<size_t>(H));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < H; ++j) {
      h[size_t(j)] = v.h0[size_t(b * H + j)];
      cc[size_t(j)] = c.lstm ? v.c0[size_t(b * H + j)] : 0;
    }
    const int64_t L = c.len_of(b);
    for (int64_t s = 0; s < L; ++s) {
      const int64_t t = c.reverse ? L - 1 - s : s, r = c.row(t, b);
      for (int64_t q = 0; q < G; ++q) {
        double a = v.bih[size_t(q)], e = v.bhh[size_t(q)];
        for (int64_t i = 0; i < I; ++i) a += v.wih[size_t(q * I + i)] * v.x[size_t(r * I + i)];
        for (int64_t m = 0; m < H; ++m) e += v.whh[size_t(q * H + m)] * h[size_t(m)];
        ax[size_t(q)] = a;
        ah[size_t(q)] = e;
      }
      double* ws = f.ws.data() + r * W;  // (no operator[] on an empty ws: H = 0)
      for (int64_t j = 0; j < H; ++j) {
        auto A = [&](int64_t k) { return ax[size_t(k * H + j)] + ah[size_t(k * H + j)]; };
        if (c.lstm) {
          const double ig = sig(A(0)), fg = sig(A(1)), gg = std::tanh(A(2)), og = sig(A(3));
          const double cn = fg * cc[size_t(j)] + ig * gg;
          ws[j] = ig, ws[H + j] = fg, ws[2 * H + j] = gg, ws[3 * H + j] = og, ws[4 * H + j] = cn;
          cc[size_t(j)] = cn;
          h[size_t(j)] = og * std::tanh(cn);
        } else {
          const double rg = sig(A(0)), zg = sig(A(1)), hn = ah[size_t(2 * H + j)];
          const double n = std::tanh(ax[size_t(2 * H + j)] + rg * hn);
          ws[j] = rg, ws[H + j] = zg, ws[2 * H + j] = n, ws[3 * H + j] = hn;
          h[size_t(j)] = (1 - zg) * n + zg * h[size_t(j)];
        }
        f.y[size_t(r * H + j)] = h[size_t(j)];
      }
    }
    for (int64_t j = 0; j < H; ++j) {
      f.hn[size_t(b * H + j)] = h[size_t(j)];
      if (c.lstm) f.cn[size_t(b * H + j)] = cc[size_t(j)];
    }
  }
  return f;
}

// Inputs as runtime tensors in the layouts picked by `v` (rotating over every kind).
struct Inputs {
  std::vector<Operand> ops;  // x, w_ih, w_hh, b_ih, b_hh, h0, (c0)
  Tensor len_base, len;
  Vals vals;
  std::vector<const Tensor*> list() const {
    std::vector<const Tensor*> l;
    for (const Operand& o : ops) l.push_back(&o.view);
    l.push_back(&len);
    return l;
  }
};

Inputs make_inputs(const Cfg& c, ndrt_dtype d, int v, std::mt19937& rng, bool contiguous = false) {
  Inputs in;
  const int64_t G = c.K() * c.H;
  const double ws = 1.0 / std::sqrt(double(std::max<int64_t>(c.H, 1)));  // keeps the gates out of saturation
  const std::vector<std::pair<Shape, Gen>> specs = {
      {c.seq(c.I), uniform_gen(d, -1, 1)},           {{G, c.I}, uniform_gen(d, -0.8 * ws - 0.2, 0.8 * ws + 0.2)},
      {{G, c.H}, uniform_gen(d, -ws, ws)},           {{G}, uniform_gen(d, -0.5, 0.5)},
      {{G}, uniform_gen(d, -0.5, 0.5)},              {{c.B, c.H}, uniform_gen(d, -0.8, 0.8)},
      {{c.B, c.H}, uniform_gen(d, -1.5, 1.5)}};
  for (size_t i = 0; i < (c.lstm ? 7u : 6u); ++i) {
    const Kind k = contiguous ? Kind::Contig : kAllKinds[size_t(v + int(i)) % 5];
    in.ops.push_back(make_operand(d, specs[i].first, k, specs[i].second, rng));
    *in.vals.get(int(i)) = in.ops.back().vals;
  }
  std::vector<double> lv;
  for (int64_t b = 0; b < c.B; ++b) lv.push_back(double(c.len_of(b)));
  if (v % 2 && c.B > 0) {  // a step-2 view of a bigger tensor
    std::vector<double> big;
    for (double x : lv) big.insert(big.end(), {x, -99});
    in.len_base = from_values(c.len_dtype, {2 * c.B}, big);
    in.len = slice(in.len_base, 0, 0, 2 * c.B, 2);
  } else {
    in.len = from_values(c.len_dtype, {c.B}, lv);
  }
  return in;
}

// Runs a multi-output op with every output of kind k (poisoned first) and returns their values.
// GivenView outputs are step-2 slices of a bigger tensor whose other elements must stay untouched.
std::vector<std::vector<double>> run_multi(const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                                           const std::vector<ndrt_dtype>& dts, const std::vector<Shape>& shapes,
                                           OutKind k) {
  std::vector<ndrt_handle> ih;
  for (const Tensor* t : in) ih.push_back(t->get());
  std::vector<Tensor> outs, bigs;
  std::vector<ndrt_handle> oh(shapes.size(), 0);
  if (k == OutKind::Fresh) {
    std::vector<Tensor> poison;  // held together so each output's size class gets its own chunk
    for (size_t i = 0; i < shapes.size(); ++i)
      if (numel_of(shapes[i]) > 0) {
        poison.push_back(create(dts[i], shapes[i]));
        write_bytes(poison.back(), poison_bytes(dts[i], numel_of(shapes[i])));
      }
  } else {
    for (size_t o = 0; o < shapes.size(); ++o) {
      const Shape& s = shapes[o];
      const ndrt_dtype d = dts[o];
      if (k == OutKind::Given) {
        outs.push_back(create(d, s));
        write_bytes(outs.back(), poison_bytes(d, numel_of(s)));
      } else {
        Shape big;
        for (int64_t x : s) big.push_back(2 * x + 1);
        bigs.push_back(from_values(d, big, std::vector<double>(size_t(numel_of(big)), 7.0)));
        Tensor v = retain(bigs.back());
        Layout l = Layout::contiguous(big);
        for (size_t i = 0; i < s.size(); ++i) {
          v = slice(v, int32_t(i), 1, 2 * s[i] + 1, 2);
          l = l.slice(int32_t(i), 1, 2 * s[i] + 1, 2);
        }
        std::vector<uint8_t> bytes = read_bytes(bigs.back());
        for (int64_t j : l.indices()) poison_element(d, &bytes[size_t(j) * itemsize(d)]);
        write_bytes(bigs.back(), bytes);
        outs.push_back(std::move(v));
      }
      oh[o] = outs.back().get();
    }
  }
  const ndrt_status st = exec(op, ih, oh, a);
  if (st != NDRT_OK) throw Failure(st, std::string("exec ") + op + " returned " + describe_status(st));
  std::vector<std::vector<double>> r;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Tensor fresh;
    const Tensor* t = i < outs.size() ? &outs[i] : nullptr;
    if (k == OutKind::Fresh) {
      fresh = Tensor(oh[i]);
      t = &fresh;
      EXPECT_EQ(shape_str(t->shape()), shape_str(shapes[i])) << op << " output " << i;
      EXPECT_EQ(t->dtype(), dts[i]) << op << " output " << i;
    }
    r.push_back(read_values(*t));
  }
  for (size_t b = 0; b < bigs.size(); ++b) {  // outside the views nothing changed
    const Shape big = bigs[b].shape();
    Layout l = Layout::contiguous(big);
    for (size_t i = 0; i < shapes[b].size(); ++i) l = l.slice(int32_t(i), 1, 2 * shapes[b][i] + 1, 2);
    std::vector<char> inside(size_t(numel_of(big)), 0);
    for (int64_t j : l.indices()) inside[size_t(j)] = 1;
    const std::vector<double> v = read_values(bigs[b]);
    int bad = 0;
    for (size_t j = 0; j < v.size(); ++j)
      if (!inside[j] && v[j] != 7.0 && bad++ < 3) ADD_FAILURE() << op << " output " << b << " wrote outside its view";
  }
  return r;
}

ndrt_dtype ws_dtype(ndrt_dtype d) { return d == NDRT_F64 ? NDRT_F64 : NDRT_F32; }

std::vector<Shape> fwd_shapes(const Cfg& c) {
  std::vector<Shape> s = {c.seq(c.H), {c.B, c.H}};
  if (c.lstm) s.push_back({c.B, c.H});
  s.push_back(c.seq((c.K() + 1) * c.H));
  return s;
}
std::vector<ndrt_dtype> fwd_dtypes(const Cfg& c, ndrt_dtype d) {
  std::vector<ndrt_dtype> t(c.lstm ? 3 : 2, d);
  t.push_back(ws_dtype(d));
  return t;
}

// Tolerance of the forward in dtype d: the compute type's rounding over the I + H terms of each
// gate, carried through T steps; 16-bit outputs add their own rounding.
Tol fwd_tol(const Cfg& c, ndrt_dtype d) {
  const double terms = double(c.I + c.H + 2) * std::sqrt(double(c.T + 1));
  if (d == NDRT_F64) return {1e-13, 2e-16 * terms};
  const Tol t16 = default_tol(d);
  return {std::max(2e-6, t16.rtol), (d == NDRT_F32 ? 5e-8 : 2e-7) * terms + t16.atol};
}

void check_forward(const Cfg& c, ndrt_dtype d, int v, std::mt19937& rng) {
  const std::string what = c.str() + " " + dtype_str(d) + " layouts#" + std::to_string(v) + " " +
                           out_kind_str(kAllOutKinds[size_t(v) % 3]);
  SCOPED_TRACE(what);
  Inputs in = make_inputs(c, d, v, rng);
  const Fwd want = ref_forward(c, in.vals);
  auto got = run_multi(c.op(), in.list(), c.attrs(), fwd_dtypes(c, d), fwd_shapes(c), kAllOutKinds[size_t(v) % 3]);
  const Tol tol = fwd_tol(c, d), ws_tol = fwd_tol(c, ws_dtype(d));
  size_t o = 0;
  expect_close(got[o++], want.y, d, tol, what + ": y");
  expect_close(got[o++], want.hn, d, tol, what + ": h_n");
  if (c.lstm) expect_close(got[o++], want.cn, d, tol, what + ": c_n");
  expect_close(got[o++], want.ws, ws_dtype(d), ws_tol, what + ": ws");
}

// Shapes of the forward cases, for lstm (true) or gru (false).
std::vector<Cfg> forward_cases(bool lstm) {
  std::vector<Cfg> cs = {
      {lstm, 3, 5, 4, 6, false, false, {5, 3, 0}},
      {lstm, 4, 7, 5, 13, true, false, {7, 1, 4, 0}},
      {lstm, 2, 6, 3, 9, false, true, {}},
      {lstm, 5, 4, 8, 17, true, true, {4, 2, 0, 3, 1}, NDRT_I32},
      {lstm, 3, 1, 2, 5, true, false, {1, 0, 1}},
      {lstm, 2, 1, 7, 3, false, true, {}, NDRT_I32},
      {lstm, 0, 5, 3, 4, false, false, {}},
      {lstm, 0, 5, 3, 4, true, true, {}},
      {lstm, 3, 0, 3, 4, false, false, {0, 0, 0}},
      {lstm, 3, 0, 3, 4, true, true, {0, 0, 0}},
      {lstm, 2, 3, 0, 4, true, false, {3, 2}},
      {lstm, 2, 3, 3, 0, false, false, {3, 1}},
      {lstm, 37, 9, 11, 24, false, false, {}},
      {lstm, 29, 6, 10, 31, true, true, {}},
  };
  // Larger, with random lengths including 0 and T.
  Cfg big{lstm, 33, 12, 9, 20, true, false, {}};
  for (int64_t b = 0; b < big.B; ++b) big.len.push_back(b == 0 ? 0 : b == 1 ? 12 : (b * 7) % 13);
  cs.push_back(big);
  big.reverse = false;
  big.tm = true;
  cs.push_back(big);
  return cs;
}

class RnnForward : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(RnnForward, LstmAgainstTheReference) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(1301 + d);
  int v = 0;
  for (const Cfg& c : forward_cases(true)) check_forward(c, d, v++, rng);
}

TEST_P(RnnForward, GruAgainstTheReference) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(1302 + d);
  int v = 0;
  for (const Cfg& c : forward_cases(false)) check_forward(c, d, v++, rng);
}

TEST_P(RnnForward, AcrossThreadCounts) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(1303 + d);
  for (int threads : {1, 2, 3}) {
    lt::Threads scope(threads);
    SCOPED_TRACE("cpu.threads " + std::to_string(threads));
    for (bool lstm : {true, false}) {
      Cfg c{lstm, 64, 5, 16, 40, threads == 2, threads == 3, {}};
      for (int64_t b = 0; b < c.B; ++b) c.len.push_back((b * 3) % 6);
      check_forward(c, d, threads, rng);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, RnnForward, ::testing::Values(NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

// ------------------------------------------------------------------------------------------------
// Gradients
// ------------------------------------------------------------------------------------------------

struct Upstream {
  std::vector<Operand> ops;  // dy, dh_n, (dc_n)
  std::vector<double> dy, dhn, dcn;
};

Upstream make_upstream(const Cfg& c, ndrt_dtype d, int v, std::mt19937& rng, bool contiguous) {
  Upstream u;
  const std::vector<Shape> shapes = {c.seq(c.H), {c.B, c.H}, {c.B, c.H}};
  for (size_t i = 0; i < (c.lstm ? 3u : 2u); ++i)
    u.ops.push_back(make_operand(d, shapes[i], contiguous ? Kind::Contig : kAllKinds[size_t(v + 2 * int(i) + 1) % 5],
                                 uniform_gen(d, -1, 1), rng));
  u.dy = u.ops[0].vals;
  u.dhn = u.ops[1].vals;
  if (c.lstm) u.dcn = u.ops[2].vals;
  return u;
}

// L = <dy, y> + <dh_n, h_n> + <dc_n, c_n> of the reference: its gradient is what the _bp op returns.
double loss(const Cfg& c, const Vals& v, const Upstream& u) {
  const Fwd f = ref_forward(c, v);
  double l = 0;
  for (size_t i = 0; i < f.y.size(); ++i) l += u.dy[i] * f.y[i];
  for (size_t i = 0; i < f.hn.size(); ++i) l += u.dhn[i] * f.hn[i];
  for (size_t i = 0; i < f.cn.size(); ++i) l += u.dcn[i] * f.cn[i];
  return l;
}

// Runs the forward; returns its outputs (y first, ws last).
std::vector<Tensor> run_fwd(const Cfg& c, const Inputs& in) {
  std::vector<ndrt_handle> ih;
  for (const Tensor* t : in.list()) ih.push_back(t->get());
  std::vector<ndrt_handle> fo(c.lstm ? 4 : 3, 0);
  NT_CHECK(exec(c.op(), ih, fo, c.attrs()));
  std::vector<Tensor> keep;
  for (ndrt_handle h : fo) keep.emplace_back(h);
  return keep;
}

// Runs the backward on the forward's y and ws; returns dx, dw_ih, dw_hh, db_ih, db_hh, dh0, (dc0).
std::vector<std::vector<double>> run_bp(const Cfg& c, ndrt_dtype d, const Inputs& in, const Tensor& y,
                                        const Tensor& ws, const Upstream& u, OutKind k) {
  std::vector<const Tensor*> bin = in.list();
  bin.push_back(&y);
  bin.push_back(&ws);
  for (const Operand& o : u.ops) bin.push_back(&o.view);
  std::vector<Shape> shapes;
  for (const Operand& o : in.ops) shapes.push_back(o.view.shape());
  return run_multi(c.op_bp(), bin, c.attrs(), std::vector<ndrt_dtype>(shapes.size(), d), shapes, k);
}

Tensor to_f64(const Tensor& t) { return from_values(NDRT_F64, t.shape(), read_values(t)); }

const char* kGradNames[] = {"dx", "dw_ih", "dw_hh", "db_ih", "db_hh", "dh0", "dc0"};

// f64: every gradient against central differences of the reference (every element, or `max_fd`
// random ones of larger inputs). Other dtypes: against the f64 op (itself checked that way) run on
// exactly the same values, y and ws included (16-bit y is rounded; every value is exact in f64).
void check_backward(const Cfg& c, ndrt_dtype d, int v, std::mt19937& rng, size_t max_fd = 100000) {
  const OutKind k = kAllOutKinds[size_t(v) % 3];
  const std::string what = c.str() + " " + dtype_str(d) + " layouts#" + std::to_string(v) + " " + out_kind_str(k);
  SCOPED_TRACE(what);
  Inputs in = make_inputs(c, d, v, rng);
  const Upstream u = make_upstream(c, d, v, rng, false);
  const std::vector<Tensor> fwd = run_fwd(c, in);
  const auto got = run_bp(c, d, in, fwd.front(), fwd.back(), u, k);
  const size_t n = c.lstm ? 7 : 6;
  if (d == NDRT_F64) {
    Vals vals = in.vals;
    const double h = 1e-5;
    for (size_t i = 0; i < n; ++i) {
      std::vector<double>& p = *vals.get(int(i));
      std::vector<size_t> idx(p.size(), 0);
      for (size_t j = 0; j < idx.size(); ++j) idx[j] = j;
      if (idx.size() > max_fd) {
        std::shuffle(idx.begin(), idx.end(), rng);
        idx.resize(max_fd);
      }
      std::vector<double> fd, op;
      for (size_t j : idx) {
        const double keep = p[j];
        p[j] = keep + h;
        const double lp = loss(c, vals, u);
        p[j] = keep - h;
        const double lm = loss(c, vals, u);
        p[j] = keep;
        fd.push_back((lp - lm) / (2 * h));
        op.push_back(got[i][j]);
      }
      expect_close(op, fd, d, {1e-6, 1e-8 * std::sqrt(double(c.B * c.T + 1))},
                   what + ": " + kGradNames[i] + " vs central differences");
    }
    return;
  }
  Inputs in64;
  for (const Operand& o : in.ops) {
    in64.ops.push_back(Operand{});
    in64.ops.back().view = from_values(NDRT_F64, o.view.shape(), o.vals);
  }
  in64.len = from_values(c.len_dtype, {c.B}, read_values(in.len));
  Upstream u64;
  for (const Operand& o : u.ops) {
    u64.ops.push_back(Operand{});
    u64.ops.back().view = from_values(NDRT_F64, o.view.shape(), o.vals);
  }
  const auto want = run_bp(c, NDRT_F64, in64, to_f64(fwd.front()), to_f64(fwd.back()), u64, OutKind::Fresh);
  // f32 accumulation over the B*T steps and the I + H terms, relative to the output's scale.
  const double scale = std::sqrt(double(c.B * c.T + c.I + c.H + 1));
  for (size_t i = 0; i < n; ++i) {
    double mx = 0;
    for (double w : want[i]) mx = std::max(mx, std::fabs(w));
    const Tol t16 = default_tol(d);
    const Tol tol = d == NDRT_F32 ? Tol{5e-6, 5e-8 * scale * std::max(mx, 1.0)}
                                  : Tol{t16.rtol, t16.atol + 2e-7 * scale * std::max(mx, 1.0)};
    expect_close(got[i], want[i], d, tol, what + ": " + kGradNames[i] + " vs the f64 op");
  }
}

std::vector<Cfg> backward_cases(bool lstm) {
  std::vector<Cfg> cs = {
      {lstm, 3, 10, 3, 4, false, false, {10, 6, 0}},
      {lstm, 3, 11, 2, 5, true, false, {4, 11, 0}, NDRT_I32},
      {lstm, 4, 10, 3, 3, false, true, {10, 0, 7, 1}},
      {lstm, 2, 12, 4, 5, true, true, {12, 9}},
      {lstm, 2, 1, 3, 2, true, false, {1, 0}},
      {lstm, 0, 4, 3, 2, false, false, {}},
      {lstm, 2, 0, 3, 2, true, true, {0, 0}},
      {lstm, 2, 3, 0, 2, false, false, {3, 2}},
      {lstm, 2, 3, 2, 0, true, false, {3, 2}},
  };
  return cs;
}

class RnnBackward : public ::testing::TestWithParam<ndrt_dtype> {};

TEST_P(RnnBackward, LstmBp) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(1311 + d);
  int v = 0;
  for (const Cfg& c : backward_cases(true)) check_backward(c, d, v++, rng);
  Cfg big{true, 21, 13, 7, 19, true, false, {}};
  for (int64_t b = 0; b < big.B; ++b) big.len.push_back((b * 5) % 14);
  check_backward(big, d, v++, rng, 60);
  big.reverse = false;
  big.tm = true;
  check_backward(big, d, v++, rng, 60);
}

TEST_P(RnnBackward, GruBp) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(1312 + d);
  int v = 0;
  for (const Cfg& c : backward_cases(false)) check_backward(c, d, v++, rng);
  Cfg big{false, 21, 13, 7, 19, false, false, {}};
  for (int64_t b = 0; b < big.B; ++b) big.len.push_back((b * 5) % 14);
  check_backward(big, d, v++, rng, 60);
  big.reverse = true;
  big.tm = true;
  check_backward(big, d, v++, rng, 60);
}

TEST_P(RnnBackward, AcrossThreadCounts) {
  const ndrt_dtype d = GetParam();
  std::mt19937 rng(1313 + d);
  for (int threads : {1, 2, 3}) {
    lt::Threads scope(threads);
    SCOPED_TRACE("cpu.threads " + std::to_string(threads));
    for (bool lstm : {true, false}) {
      Cfg c{lstm, 48, 6, 9, 33, threads != 2, threads == 3, {}};
      for (int64_t b = 0; b < c.B; ++b) c.len.push_back((b * 5) % 7);
      check_backward(c, d, threads, rng, 40);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, RnnBackward, ::testing::Values(NDRT_F64, NDRT_F32, NDRT_F16, NDRT_BF16),
                         [](const ::testing::TestParamInfo<ndrt_dtype>& i) { return std::string(dtype_str(i.param)); });

// ------------------------------------------------------------------------------------------------
// Semantics spelled out: bidirectional = a forward and a reverse call; no state moves past a length.
// ------------------------------------------------------------------------------------------------

TEST(RnnSemantics, ReverseIsTheForwardOfTheFlippedValidPrefix) {
  std::mt19937 rng(1321);
  for (bool lstm : {true, false}) {
    Cfg c{lstm, 3, 6, 4, 5, true, false, {6, 3, 0}};
    Inputs in = make_inputs(c, NDRT_F64, 0, rng, true);
    std::vector<ndrt_handle> ih;
    for (const Tensor* t : in.list()) ih.push_back(t->get());
    std::vector<ndrt_handle> o(lstm ? 4 : 3, 0);
    NT_CHECK(exec(c.op(), ih, o, c.attrs()));
    std::vector<Tensor> outs;
    for (ndrt_handle h : o) outs.emplace_back(h);
    const std::vector<double> y = read_values(outs[0]), hn = read_values(outs[1]);
    // Row b alone, its valid prefix flipped in time, run forwards.
    for (int64_t b = 0; b < c.B; ++b) {
      const int64_t L = c.len_of(b);
      Cfg one = c;
      one.B = 1;
      one.T = L;
      one.reverse = false;
      one.len = {L};
      Vals v1 = in.vals;
      v1.x.clear();
      for (int64_t s = 0; s < L; ++s)
        for (int64_t i = 0; i < c.I; ++i) v1.x.push_back(in.vals.x[size_t((b * c.T + (L - 1 - s)) * c.I + i)]);
      v1.h0.assign(in.vals.h0.begin() + b * c.H, in.vals.h0.begin() + (b + 1) * c.H);
      if (lstm) v1.c0.assign(in.vals.c0.begin() + b * c.H, in.vals.c0.begin() + (b + 1) * c.H);
      const Fwd f = ref_forward(one, v1);
      for (int64_t t = 0; t < c.T; ++t)
        for (int64_t j = 0; j < c.H; ++j) {
          const double want = t < L ? f.y[size_t((L - 1 - t) * c.H + j)] : 0.0;
          EXPECT_NEAR(y[size_t((b * c.T + t) * c.H + j)], want, 1e-13) << c.op() << " b " << b << " t " << t;
        }
      for (int64_t j = 0; j < c.H; ++j) EXPECT_NEAR(hn[size_t(b * c.H + j)], f.hn[size_t(j)], 1e-13);
    }
  }
}

// x as a transposed-then-sliced view (time-major storage seen batch-major, a feature slice), and
// y / dy likewise: the results are exactly those of the same values in contiguous tensors.
TEST(RnnSemantics, TransposedThenSlicedInputsGiveTheContiguousResults) {
  std::mt19937 rng(1322);
  for (bool lstm : {true, false}) {
    SCOPED_TRACE(lstm ? "lstm" : "gru");
    Cfg c{lstm, 5, 7, 3, 6, false, false, {7, 0, 4, 7, 1}};
    Inputs in = make_inputs(c, NDRT_F32, 0, rng, true);
    // [T, B, I + 2] storage -> permute to [B, T, I + 2] -> slice features 1 .. I.
    Tensor base = create(NDRT_F32, {c.T, c.B, c.I + 2});
    std::vector<double> bv(size_t(c.T * c.B * (c.I + 2)), 0);
    for (int64_t t = 0; t < c.T; ++t)
      for (int64_t b = 0; b < c.B; ++b)
        for (int64_t i = 0; i < c.I + 2; ++i)
          bv[size_t((t * c.B + b) * (c.I + 2) + i)] =
              i >= 1 && i <= c.I ? in.vals.x[size_t((b * c.T + t) * c.I + i - 1)] : 1e30;
    write_values(base, bv);
    Tensor xv = slice(permute(base, {1, 0, 2}), 2, 1, c.I + 1, 1);
    ASSERT_FALSE(xv.contiguous());
    Inputs inv = make_inputs(c, NDRT_F32, 0, rng, true);
    for (size_t i = 0; i < in.ops.size(); ++i) write_values(inv.ops[i].view, *in.vals.get(int(i)));
    inv.ops[0].view = std::move(xv);
    const std::vector<Tensor> f1 = run_fwd(c, in), f2 = run_fwd(c, inv);
    for (size_t o = 0; o < f1.size(); ++o) EXPECT_EQ(read_values(f1[o]), read_values(f2[o])) << "output " << o;
    const Upstream u = make_upstream(c, NDRT_F32, 0, rng, true);
    const Tensor yt = transpose(contiguous(transpose(f1.front(), 0, 1)), 0, 1);  // y as a strided view
    ASSERT_FALSE(yt.contiguous());
    const auto g1 = run_bp(c, NDRT_F32, in, f1.front(), f1.back(), u, OutKind::Fresh);
    const auto g2 = run_bp(c, NDRT_F32, inv, yt, f2.back(), u, OutKind::GivenView);
    for (size_t o = 0; o < g1.size(); ++o) EXPECT_EQ(g1[o], g2[o]) << kGradNames[o];
  }
}

// ------------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------------

ndrt_status try_multi(const char* op, const std::vector<const Tensor*>& in, size_t n_out, const Attrs& a = {}) {
  std::vector<ndrt_handle> ih, oh(n_out, 0);
  for (const Tensor* t : in) ih.push_back(t->get());
  const ndrt_status s = exec(op, ih, oh, a);
  for (ndrt_handle h : oh)
    if (h) ndrt_tensor_release(h);
  return s;
}

#define EXPECT_ERR(status, msg, expr)                                 \
  do {                                                                \
    EXPECT_STATUS(status, expr);                                      \
    EXPECT_EQ(std::string(ndrt_last_error()), std::string(msg)) << #expr; \
  } while (0)

TEST(RnnErrors, ShapesDtypesAndLengths) {
  const ndrt_dtype f = NDRT_F32;
  Tensor x = create(f, {2, 5, 3}), wih = create(f, {16, 3}), whh = create(f, {16, 4}), b = create(f, {16}),
         h0 = create(f, {2, 4}), c0 = create(f, {2, 4});
  Tensor len = from_values(NDRT_I64, {2}, {5, 2});
  auto lstm_in = [&](const Tensor& xx, const Tensor& wi, const Tensor& wh, const Tensor& bb, const Tensor& h,
                     const Tensor& l) { return std::vector<const Tensor*>{&xx, &wi, &wh, &bb, &bb, &h, &c0, &l}; };
  EXPECT_STATUS(NDRT_OK, try_multi("lstm", lstm_in(x, wih, whh, b, h0, len), 4));
  // Ranks.
  Tensor x2 = create(f, {2, 3});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: x must be rank 3 ([B, T, I]), got [2,3]",
             try_multi("lstm", lstm_in(x2, wih, whh, b, h0, len), 4));
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: x must be rank 3 ([T, B, I] with time_major), got [2,3]",
             try_multi("lstm", lstm_in(x2, wih, whh, b, h0, len), 4, Attrs{{0, 1}, {}}));
  Tensor whh1 = create(f, {16});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: w_hh must be [4H, H] (gates i, f, g, o stacked along axis 0), got [16]",
             try_multi("lstm", lstm_in(x, wih, whh1, b, h0, len), 4));
  // Mismatched H: w_hh says H = 5, the rest H = 4.
  Tensor whh5 = create(f, {20, 5});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH,
             "lstm: w_ih must be [4H, I] = [20,3] (H = 5 from w_hh, I = 3 from x), got [16,3]",
             try_multi("lstm", lstm_in(x, wih, whh5, b, h0, len), 4));
  Tensor whh_bad = create(f, {12, 4});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: w_hh must be [4H, H] (gates i, f, g, o stacked along axis 0), got [12,4]",
             try_multi("lstm", lstm_in(x, wih, whh_bad, b, h0, len), 4));
  Tensor wih_i = create(f, {16, 2});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH,
             "lstm: w_ih must be [4H, I] = [16,3] (H = 4 from w_hh, I = 3 from x), got [16,2]",
             try_multi("lstm", lstm_in(x, wih_i, whh, b, h0, len), 4));
  Tensor b12 = create(f, {12});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: b_ih must be [4H] [16], got [12]",
             try_multi("lstm", lstm_in(x, wih, whh, b12, h0, len), 4));
  Tensor h_bad = create(f, {2, 5});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: h0 must be [B, H] [2,4], got [2,5]",
             try_multi("lstm", lstm_in(x, wih, whh, b, h_bad, len), 4));
  Tensor len3 = from_values(NDRT_I64, {3}, {1, 1, 1});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm: lengths must be [B] [2], got [3]",
             try_multi("lstm", lstm_in(x, wih, whh, b, h0, len3), 4));
  // Lengths out of [0, T], and of the wrong dtype.
  Tensor len_big = from_values(NDRT_I32, {2}, {5, 6}), len_neg = from_values(NDRT_I64, {2}, {-1, 2});
  EXPECT_ERR(NDRT_ERR_INVALID_ARGUMENT, "lstm: lengths[1] = 6 is out of range [0, 5] (T = 5)",
             try_multi("lstm", lstm_in(x, wih, whh, b, h0, len_big), 4));
  EXPECT_ERR(NDRT_ERR_INVALID_ARGUMENT, "lstm: lengths[0] = -1 is out of range [0, 5] (T = 5)",
             try_multi("lstm", lstm_in(x, wih, whh, b, h0, len_neg), 4));
  Tensor len_f = from_values(NDRT_F32, {2}, {5, 2}), len_u8 = from_values(NDRT_U8, {2}, {5, 2});
  EXPECT_ERR(NDRT_ERR_DTYPE_MISMATCH, "lstm: lengths must be i32 or i64, got f32",
             try_multi("lstm", lstm_in(x, wih, whh, b, h0, len_f), 4));
  EXPECT_ERR(NDRT_ERR_DTYPE_MISMATCH, "lstm: lengths must be i32 or i64, got u8",
             try_multi("lstm", lstm_in(x, wih, whh, b, h0, len_u8), 4));
  // Float dtypes must agree; integer x is refused.
  Tensor whh64 = create(NDRT_F64, {16, 4}), xi = create(NDRT_I32, {2, 5, 3});
  EXPECT_ERR(NDRT_ERR_DTYPE_MISMATCH, "lstm: w_hh is f64 but x is f32 (cast explicitly)",
             try_multi("lstm", lstm_in(x, wih, whh64, b, h0, len), 4));
  EXPECT_ERR(NDRT_ERR_DTYPE_MISMATCH, "lstm: needs a floating-point dtype, got i32",
             try_multi("lstm", lstm_in(xi, wih, whh, b, h0, len), 4));
  // Arity: lstm takes c0, gru does not.
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_multi("lstm", {&x, &wih, &whh, &b, &b, &h0, &len}, 4));
  Tensor gwih = create(f, {12, 3}), gwhh = create(f, {12, 4}), gb = create(f, {12});
  EXPECT_STATUS(NDRT_OK, try_multi("gru", {&x, &gwih, &gwhh, &gb, &gb, &h0, &len}, 3));
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "gru: w_hh must be [3H, H] (gates r, z, n stacked along axis 0), got [16,4]",
             try_multi("gru", {&x, &gwih, &whh, &gb, &gb, &h0, &len}, 3));
  EXPECT_ERR(NDRT_ERR_INVALID_ARGUMENT, "gru: lengths[1] = 6 is out of range [0, 5] (T = 5)",
             try_multi("gru", {&x, &gwih, &gwhh, &gb, &gb, &h0, &len_big}, 3));
  // Backward: ws, dy and the state gradients must match the forward's.
  Tensor y = create(f, {2, 5, 4}), ws = create(f, {2, 5, 20}), ws64 = create(NDRT_F64, {2, 5, 20}),
         ws_bad = create(f, {2, 5, 16}), dh = create(f, {2, 4}), dy_bad = create(f, {5, 2, 4});
  auto bp_in = [&](const Tensor& w, const Tensor& dy) {
    return std::vector<const Tensor*>{&x, &wih, &whh, &b, &b, &h0, &c0, &len, &y, &w, &dy, &dh, &dh};
  };
  EXPECT_STATUS(NDRT_OK, try_multi("lstm_bp", bp_in(ws, y), 7));
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm_bp: ws must be the forward's workspace [.., .., 5H] [2,5,20], got [2,5,16]",
             try_multi("lstm_bp", bp_in(ws_bad, y), 7));
  EXPECT_ERR(NDRT_ERR_DTYPE_MISMATCH,
             "lstm_bp: ws must be f32 (the compute dtype for x f32, as the forward gave it), got f64",
             try_multi("lstm_bp", bp_in(ws64, y), 7));
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "lstm_bp: dy must be y's shape [2,5,4], got [5,2,4]",
             try_multi("lstm_bp", bp_in(ws, dy_bad), 7));
  Tensor gws = create(f, {2, 5, 16});
  EXPECT_ERR(NDRT_ERR_SHAPE_MISMATCH, "gru_bp: dh_n must be [B, H] [2,4], got [2,5]",
             try_multi("gru_bp", {&x, &gwih, &gwhh, &gb, &gb, &h0, &len, &y, &gws, &y, &h_bad}, 6));
  EXPECT_ERR(NDRT_ERR_INVALID_ARGUMENT, "gru_bp: lengths[1] = 6 is out of range [0, 5] (T = 5)",
             try_multi("gru_bp", {&x, &gwih, &gwhh, &gb, &gb, &h0, &len_big, &y, &gws, &y, &dh}, 6));
  // 16-bit x: ws is f32.
  Tensor xh = create(NDRT_F16, {2, 5, 3}), wihh = create(NDRT_F16, {12, 3}), whhh = create(NDRT_F16, {12, 4}),
         bh = create(NDRT_F16, {12}), h0h = create(NDRT_F16, {2, 4}), yh = create(NDRT_F16, {2, 5, 4});
  EXPECT_ERR(NDRT_ERR_DTYPE_MISMATCH,
             "gru_bp: ws must be f32 (the compute dtype for x f16, as the forward gave it), got f16",
             try_multi("gru_bp", {&xh, &wihh, &whhh, &bh, &bh, &h0h, &len, &yh, &yh, &yh, &h0h}, 6));
}

}  // namespace
