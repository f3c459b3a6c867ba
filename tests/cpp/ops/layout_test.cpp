// concat, stack, pad, pad_bp, tile, tile_bp, flip, transpose_copy: every dtype, strided and
// broadcast inputs, every output kind, size-0 and rank-0 cases against references computed here;
// finite-difference checks of the gradients; bad attributes with exact status and message.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

#define EXPECT_FAILS(status, message, expr)                                          \
  do {                                                                               \
    ndrt_status s_ = (expr);                                                         \
    EXPECT_EQ(ndrt_status_name(status), std::string(ndrt_status_name(s_))) << #expr; \
    if (s_ != NDRT_OK) {                                                             \
      EXPECT_EQ(std::string(message), std::string(ndrt_last_error())) << #expr;      \
    }                                                                                \
  } while (0)

using Values = std::vector<double>;
using Idx = std::vector<int64_t>;

Attrs ints_attr(std::vector<int64_t> list) {  // one list attribute
  Attrs a;
  a.ints.push_back(int64_t(list.size()));
  a.ints.insert(a.ints.end(), list.begin(), list.end());
  return a;
}

int64_t flat_of(const Idx& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}

// out[f] = src[map(multi-index of f)] (map returns a flat index into src, or -1 for `fill`).
Values gather_ref(const Shape& out, const std::function<int64_t(const Idx&)>& map, const Values& src, double fill = 0) {
  Values r(static_cast<size_t>(numel_of(out)));
  for (int64_t f = 0; f < numel_of(out); ++f) {
    int64_t i = map(unravel(f, out));
    r[size_t(f)] = i < 0 ? fill : src[size_t(i)];
  }
  return r;
}

const Kind kKinds[] = {Kind::Contig, Kind::Permuted, Kind::Strided, Kind::Expanded, Kind::Offset};

std::string trace(const char* op, ndrt_dtype d, const std::string& rest, OutKind ok) {
  return std::string(op) + " " + dtype_str(d) + " " + rest + ", " + out_kind_str(ok);
}

// Values with every element distinct from its neighbours, so a misplaced element shows.
Gen gen_for(ndrt_dtype d) { return default_gen(d); }

// Finite-difference check of a gradient in f64: for random directions e and a random projection dy,
// (<dy, f(x + h e)> - <dy, f(x - h e)>) / 2h == <bp(dy), e>.
void fd_check(const std::function<Values(const Values&)>& f, const std::function<Values(const Values&)>& bp,
              const Values& x, size_t ny, uint32_t seed, const std::string& what) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Values dy(ny);
  for (double& v : dy) v = u(rng);
  Values dx = bp(dy);
  ASSERT_EQ(dx.size(), x.size()) << what;
  const double h = 1e-4;
  for (int trial = 0; trial < 3; ++trial) {
    Values e(x.size()), xp = x, xm = x;
    for (double& v : e) v = u(rng);
    for (size_t i = 0; i < x.size(); ++i) {
      xp[i] += h * e[i];
      xm[i] -= h * e[i];
    }
    Values fp = f(xp), fm = f(xm);
    double fd = 0;
    for (size_t i = 0; i < ny; ++i) fd += dy[i] * (fp[i] - fm[i]) / (2 * h);
    double an = std::inner_product(dx.begin(), dx.end(), e.begin(), 0.0);
    EXPECT_NEAR(fd, an, 1e-7 * (1 + std::fabs(an))) << what << " trial " << trial;
  }
}

Values random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  Values v(n);
  for (double& x : v) x = u(rng);
  return v;
}

// ---------------------------------------------------------------------------------------------
// concat / stack
// ---------------------------------------------------------------------------------------------

TEST(Layout, KernelsCoverEveryDtype) {
  for (const char* op : {"concat", "stack", "pad", "tile", "flip", "transpose_copy"}) {
    std::vector<ndrt_dtype> have = cpu_dtypes(op);
    EXPECT_EQ(have.size(), 9u) << op;
  }
  for (const char* op : {"pad_bp", "tile_bp"})
    EXPECT_EQ(cpu_dtypes(op), (std::vector<ndrt_dtype>{NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16})) << op;
}

struct ConcatCase {
  std::vector<Shape> shapes;
  int64_t axis;
};

Values concat_ref(const std::vector<Operand>& xs, const std::vector<Shape>& shapes, int axis, Shape& out) {
  out = shapes[0];
  out[size_t(axis)] = 0;
  for (const Shape& s : shapes) out[size_t(axis)] += s[size_t(axis)];
  Values r(static_cast<size_t>(numel_of(out)));
  for (int64_t f = 0; f < numel_of(out); ++f) {
    Idx i = unravel(f, out);
    size_t k = 0;
    while (i[size_t(axis)] >= shapes[k][size_t(axis)]) i[size_t(axis)] -= shapes[k++][size_t(axis)];
    r[size_t(f)] = xs[k].vals[size_t(flat_of(i, shapes[k]))];
  }
  return r;
}

TEST(Concat, EveryDtypeLayoutAndOutputKind) {
  const ConcatCase cases[] = {{{{2, 3, 4}, {2, 1, 4}, {2, 0, 4}, {2, 5, 4}}, 1},
                              {{{3, 2}, {3, 5}}, -1},
                              {{{1, 3}, {4, 3}, {2, 3}}, 0},
                              {{{3}, {0}, {2}}, 0},
                              {{{2, 0}, {2, 0}}, 1}};
  std::mt19937 rng(1);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("concat"))
    for (const ConcatCase& c : cases)
      for (OutKind ok : kAllOutKinds) {
        const int axis = int(c.axis < 0 ? c.axis + int64_t(c.shapes[0].size()) : c.axis);
        std::vector<Operand> xs;
        std::vector<const Tensor*> in;
        std::string shapes;
        for (const Shape& s : c.shapes) {
          Kind k = kKinds[size_t(counter++) % 5];
          xs.push_back(make_operand(d, s, k, gen_for(d), rng));
          shapes += shape_str(s) + kind_str(k) + " ";
        }
        for (const Operand& o : xs) in.push_back(&o.view);
        Shape out;
        Values want = concat_ref(xs, c.shapes, axis, out);
        std::string what = trace("concat", d, shapes + "axis " + std::to_string(c.axis), ok);
        SCOPED_TRACE(what);
        expect_close(run_out("concat", in, Attrs{{c.axis}, {}}, d, out, ok), want, d, {0, 0}, what);
      }
}

TEST(Concat, ManyInputsLargeAndGradient) {
  // 40 inputs of a large strided layout, then the gradient: slices of dy along the axis.
  std::mt19937 rng(2);
  std::vector<Operand> xs;
  std::vector<Shape> shapes;
  std::vector<const Tensor*> in;
  for (int i = 0; i < 40; ++i) {
    shapes.push_back({37, int64_t(1 + i % 7), 29});
    xs.push_back(make_operand(NDRT_F32, shapes.back(), i % 2 ? Kind::Permuted : Kind::Contig, gen_for(NDRT_F32), rng));
  }
  for (const Operand& o : xs) in.push_back(&o.view);
  Shape out;
  Values want = concat_ref(xs, shapes, 1, out);
  expect_close(run_out("concat", in, Attrs{{1}, {}}, NDRT_F32, out, OutKind::GivenView), want, NDRT_F32, {0, 0}, "40 inputs");

  Values x = random_values(3 * 4 + 3 * 2, 3);
  auto f = [&](const Values& v) {
    Tensor a = from_values(NDRT_F64, {3, 4}, Values(v.begin(), v.begin() + 12));
    Tensor b = from_values(NDRT_F64, {3, 2}, Values(v.begin() + 12, v.end()));
    return read_values(run("concat", {&a, &b}, Attrs{{1}, {}}));
  };
  auto bp = [&](const Values& dy) {  // the documented gradient: slice views of dy
    Tensor t = from_values(NDRT_F64, {3, 6}, dy);
    Values da = read_values(slice(t, 1, 0, 4, 1)), db = read_values(slice(t, 1, 4, 6, 1));
    da.insert(da.end(), db.begin(), db.end());
    return da;
  };
  fd_check(f, bp, x, 18, 4, "concat");
}

TEST(Concat, BadInputs) {
  Tensor a = create(NDRT_F32, {2, 3}), b = create(NDRT_F64, {2, 3}), c = create(NDRT_F32, {3, 3}),
         r1 = create(NDRT_F32, {2}), s = create(NDRT_F32, {});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "concat: input 1 is f64 but input 0 is f32 (cast explicitly)",
               try_run("concat", {&a, &b}, nullptr, Attrs{{0}, {}}));
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "concat: input 1 has shape [3,3] but input 0 has [2,3] (only axis 1 may differ)",
               try_run("concat", {&a, &c}, nullptr, Attrs{{1}, {}}));
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "concat: input 1 has shape [2] but input 0 has [2,3] (only axis 0 may differ)",
               try_run("concat", {&a, &r1}, nullptr, Attrs{{0}, {}}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "concat: axis 2 is out of range for rank 2",
               try_run("concat", {&a, &a}, nullptr, Attrs{{2}, {}}));
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "concat: input 0 is rank 0 (a scalar); stack scalars instead",
               try_run("concat", {&s, &s}, nullptr, Attrs{{0}, {}}));
  std::vector<ndrt_handle> out = {0};
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "concat: takes 1 to 64 input(s) and 1 output(s), got 0 and 1",
               exec("concat", {}, out, Attrs{{0}, {}}));
  // More inputs than a call carries: the message says the limit (a caller joins in rounds).
  const std::vector<ndrt_handle> many(65, a.get());
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "concat: takes 1 to 64 input(s) and 1 output(s), got 65 and 1",
               exec("concat", many, out, Attrs{{0}, {}}));
}

TEST(Stack, EveryDtypeLayoutAndOutputKind) {
  struct Case {
    Shape s;
    int n;
    int64_t axis;
  };
  const Case cases[] = {{{3, 4}, 3, 0}, {{3, 4}, 3, 1}, {{3, 4}, 2, 2}, {{3, 4}, 3, -1}, {{3, 4}, 2, -3},
                        {{}, 4, 0},     {{0, 2}, 2, 1}, {{5}, 1, 0}};
  std::mt19937 rng(5);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("stack"))
    for (const Case& c : cases)
      for (OutKind ok : kAllOutKinds) {
        const int r = int(c.s.size()), axis = int(c.axis < 0 ? c.axis + r + 1 : c.axis);
        std::vector<Operand> xs;
        std::vector<const Tensor*> in;
        for (int i = 0; i < c.n; ++i) xs.push_back(make_operand(d, c.s, kKinds[size_t(counter++) % 5], gen_for(d), rng));
        for (const Operand& o : xs) in.push_back(&o.view);
        Shape out = c.s;
        out.insert(out.begin() + axis, c.n);
        Values want(static_cast<size_t>(numel_of(out)));
        for (int64_t f = 0; f < numel_of(out); ++f) {
          Idx i = unravel(f, out);
          int64_t k = i[size_t(axis)];
          i.erase(i.begin() + axis);
          want[size_t(f)] = xs[size_t(k)].vals[size_t(flat_of(i, c.s))];
        }
        std::string what = trace("stack", d, std::to_string(c.n) + " x " + shape_str(c.s) + " axis " + std::to_string(c.axis), ok);
        SCOPED_TRACE(what);
        expect_close(run_out("stack", in, Attrs{{c.axis}, {}}, d, out, ok), want, d, {0, 0}, what);
      }
}

TEST(Stack, BadInputs) {
  Tensor a = create(NDRT_F32, {2, 3}), b = create(NDRT_F32, {3, 2}), r8 = create(NDRT_F32, {1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "stack: input 1 has shape [3,2] but input 0 has [2,3] (all must be equal)",
               try_run("stack", {&a, &b}, nullptr, Attrs{{0}, {}}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "stack: axis 3 is out of range for rank 3",
               try_run("stack", {&a, &a}, nullptr, Attrs{{3}, {}}));
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "stack: inputs of rank 8 cannot gain an axis (the maximum rank is 8)",
               try_run("stack", {&r8}, nullptr, Attrs{{0}, {}}));
}

// ---------------------------------------------------------------------------------------------
// pad / pad_bp
// ---------------------------------------------------------------------------------------------

// numpy.pad's index map along one axis: -1 for the constant.
int64_t pad_src(int64_t o, int64_t before, int64_t n, int mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == 0) return -1;
  if (mode == 2) return i < 0 ? 0 : n - 1;
  return i < 0 ? -i : 2 * (n - 1) - i;  // reflect (pads below n)
}

Shape pad_out(const Shape& s, const Idx& pads) {
  Shape o = s;
  for (size_t d = 0; d < s.size() && !pads.empty(); ++d) o[d] += pads[2 * d] + pads[2 * d + 1];
  return o;
}

std::function<int64_t(const Idx&)> pad_map(const Shape& s, const Idx& pads, int mode) {
  return [=](const Idx& o) {
    Idx i(s.size());
    for (size_t d = 0; d < s.size(); ++d) {
      i[d] = pad_src(o[d], pads.empty() ? 0 : pads[2 * d], s[d], mode);
      if (i[d] < 0) return int64_t(-1);
    }
    return flat_of(i, s);
  };
}

Attrs pad_attrs(const Idx& pads, int mode, double value) {
  Attrs a = ints_attr(pads);
  a.ints.push_back(mode);
  a.floats.push_back(value);
  return a;
}

double pad_value(ndrt_dtype d) {
  switch (d) {
    case NDRT_BOOL: return 1;
    case NDRT_U8: return 200;
    case NDRT_I8: case NDRT_I32: case NDRT_I64: return -7;
    default: return 2.5;
  }
}

struct PadCase {
  Shape s;
  Idx pads;
  int mode;
};
const PadCase kPadCases[] = {
    {{3, 4, 5}, {1, 2, 0, 3, 2, 0}, 0}, {{3, 4, 5}, {1, 2, 0, 3, 2, 0}, 1}, {{3, 4, 5}, {1, 2, 0, 3, 2, 0}, 2},
    {{6}, {5, 5}, 1},                   {{6}, {7, 2}, 2},                   {{2, 0, 3}, {1, 1, 2, 2, 0, 1}, 0},
    {{4, 3}, {}, 1},                    {{}, {}, 0},                        {{2, 3}, {0, 0, 0, 0}, 2},
    {{1, 5}, {3, 0, 1, 1}, 2}};

TEST(Pad, EveryDtypeModeLayoutAndOutputKind) {
  std::mt19937 rng(7);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("pad"))
    for (const PadCase& c : kPadCases)
      for (OutKind ok : kAllOutKinds) {
        Kind k = kKinds[size_t(counter++) % 5];
        Operand x = make_operand(d, c.s, k, gen_for(d), rng);
        const double v = pad_value(d);
        Shape out = pad_out(c.s, c.pads);
        Values want = gather_ref(out, pad_map(c.s, c.pads, c.mode), x.vals, v);
        std::string what = trace("pad", d, shape_str(c.s) + " " + kind_str(k) + " pads " + shape_str(c.pads) + " mode " +
                                               std::to_string(c.mode), ok);
        SCOPED_TRACE(what);
        expect_close(run_out("pad", {&x.view}, pad_attrs(c.pads, c.mode, v), d, out, ok), want, d, {0, 0}, what);
      }
}

TEST(Pad, LargeRowsRunInParallel) {
  std::mt19937 rng(8);
  const Shape s = {301, 257};
  const Idx pads = {3, 4, 100, 9};
  for (int mode : {0, 1, 2}) {
    Operand x = make_operand(NDRT_F32, s, Kind::Permuted, gen_for(NDRT_F32), rng);
    Values want = gather_ref(pad_out(s, pads), pad_map(s, pads, mode), x.vals, -1.0);
    expect_close(run_out("pad", {&x.view}, pad_attrs(pads, mode, -1.0), NDRT_F32, pad_out(s, pads), OutKind::Fresh), want,
                 NDRT_F32, {0, 0}, "large pad mode " + std::to_string(mode));
  }
}

// pad_bp's reference: every output position adds its dy to the input element it came from.
Values pad_bp_ref(const Shape& s, const Idx& pads, int mode, const Values& dy) {
  Shape out = pad_out(s, pads);
  Values dx(static_cast<size_t>(numel_of(s)), 0.0);
  auto map = pad_map(s, pads, mode);
  for (int64_t f = 0; f < numel_of(out); ++f) {
    int64_t i = map(unravel(f, out));
    if (i >= 0) dx[size_t(i)] += dy[size_t(f)];
  }
  return dx;
}

TEST(PadBp, MatchesReferenceAndFiniteDifferences) {
  std::mt19937 rng(9);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("pad_bp"))
    for (const PadCase& c : kPadCases)
      for (OutKind ok : kAllOutKinds) {
        Kind k = kKinds[size_t(counter++) % 5];
        Shape out = pad_out(c.s, c.pads);
        Operand x = make_operand(d, c.s, Kind::Contig, gen_for(d), rng);
        Operand dy = make_operand(d, out, k, gen_for(d), rng);
        Values want = pad_bp_ref(c.s, c.pads, c.mode, dy.vals);
        std::string what = trace("pad_bp", d, shape_str(c.s) + " dy " + kind_str(k) + " pads " + shape_str(c.pads) +
                                                  " mode " + std::to_string(c.mode), ok);
        SCOPED_TRACE(what);
        Tol tol = default_tol(d);
        tol.atol *= 8;  // up to 8 terms summed (edge pads)
        expect_close(run_out("pad_bp", {&x.view, &dy.view}, pad_attrs(c.pads, c.mode, 0), d, c.s, ok), want, d, tol, what);
      }
  for (const PadCase& c : kPadCases) {
    Values x = random_values(size_t(numel_of(c.s)), 10);
    Shape out = pad_out(c.s, c.pads);
    auto f = [&](const Values& v) {
      Tensor t = from_values(NDRT_F64, c.s, v);
      return read_values(run("pad", {&t}, pad_attrs(c.pads, c.mode, 0.75)));
    };
    auto bp = [&](const Values& dy) {
      Tensor t = from_values(NDRT_F64, c.s, x), g = from_values(NDRT_F64, out, dy);
      return read_values(run("pad_bp", {&t, &g}, pad_attrs(c.pads, c.mode, 0.75)));
    };
    fd_check(f, bp, x, size_t(numel_of(out)), 11, "pad " + shape_str(c.s) + " mode " + std::to_string(c.mode));
  }
}

TEST(Pad, BadAttributes) {
  Tensor x = create(NDRT_F32, {3, 4});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "pad: pads has 3 values, needs 2 per axis (4) for rank 2",
               try_run("pad", {&x}, nullptr, pad_attrs({1, 1, 1}, 0, 0)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "pad: pads of axis 1 are 0, -1; they must be >= 0 (crop with a slice view)",
               try_run("pad", {&x}, nullptr, pad_attrs({1, 1, 0, -1}, 0, 0)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "pad: reflect pads of axis 0 (3, 0) must be below its size 3",
               try_run("pad", {&x}, nullptr, pad_attrs({3, 0, 0, 0}, 1, 0)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "pad: mode is 3, must be 0 (constant), 1 (reflect) or 2 (edge)",
               try_run("pad", {&x}, nullptr, pad_attrs({1, 1, 1, 1}, 3, 0)));
  Tensor z = create(NDRT_F32, {0, 2});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "pad: edge padding of axis 0, which has size 0",
               try_run("pad", {&z}, nullptr, pad_attrs({1, 0, 0, 0}, 2, 0)));
  Tensor dy = create(NDRT_F32, {5, 4});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "pad_bp: dy has shape [5,4], the forward output has [5,6]",
               try_run("pad_bp", {&x, &dy}, nullptr, pad_attrs({1, 1, 1, 1}, 0, 0)));
  Tensor xi = create(NDRT_I32, {3, 4}), dyi = create(NDRT_I32, {5, 6});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "pad_bp: needs a floating-point dtype, got i32",
               try_run("pad_bp", {&xi, &dyi}, nullptr, pad_attrs({1, 1, 1, 1}, 0, 0)));
  Tensor dyd = create(NDRT_F64, {5, 6});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "pad_bp: dy is f64 but x is f32",
               try_run("pad_bp", {&x, &dyd}, nullptr, pad_attrs({1, 1, 1, 1}, 0, 0)));
}

// ---------------------------------------------------------------------------------------------
// tile / tile_bp
// ---------------------------------------------------------------------------------------------

Shape tile_out(const Shape& s, const Idx& reps) {
  size_t r = std::max(s.size(), reps.size());
  Shape o(r);
  for (size_t d = 0; d < r; ++d) {
    int64_t xi = int64_t(d) - int64_t(r - s.size()), ri = int64_t(d) - int64_t(r - reps.size());
    o[d] = (xi >= 0 ? s[size_t(xi)] : 1) * (ri >= 0 ? reps[size_t(ri)] : 1);
  }
  return o;
}

std::function<int64_t(const Idx&)> tile_map(const Shape& s) {
  return [=](const Idx& o) {
    Idx i(s.size());
    size_t lead = o.size() - s.size();
    for (size_t d = 0; d < s.size(); ++d) i[d] = o[lead + d] % s[d];
    return flat_of(i, s);
  };
}

struct TileCase {
  Shape s;
  Idx reps;
};
const TileCase kTileCases[] = {{{2, 3}, {2, 2}},   {{2, 3}, {3}},       {{2, 3}, {2, 1, 2}}, {{2, 3}, {0, 2}},
                               {{}, {}},           {{}, {4}},           {{1, 4, 1}, {3, 1, 5}}, {{3, 5}, {}},
                               {{0, 3}, {2, 2}},   {{4}, {1, 1, 3}}};

TEST(Tile, EveryDtypeLayoutAndOutputKind) {
  std::mt19937 rng(12);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("tile"))
    for (const TileCase& c : kTileCases)
      for (OutKind ok : kAllOutKinds) {
        Kind k = kKinds[size_t(counter++) % 5];
        Operand x = make_operand(d, c.s, k, gen_for(d), rng);
        Shape out = tile_out(c.s, c.reps);
        Values want = gather_ref(out, tile_map(c.s), x.vals);
        std::string what = trace("tile", d, shape_str(c.s) + " " + kind_str(k) + " reps " + shape_str(c.reps), ok);
        SCOPED_TRACE(what);
        expect_close(run_out("tile", {&x.view}, ints_attr(c.reps), d, out, ok), want, d, {0, 0}, what);
      }
  // Large, contiguous rows (the memcpy path) and strided rows.
  for (Kind k : {Kind::Contig, Kind::Strided}) {
    Operand x = make_operand(NDRT_F64, {33, 17}, k, gen_for(NDRT_F64), rng);
    Shape out = tile_out({33, 17}, {40, 60});
    expect_close(run_out("tile", {&x.view}, ints_attr({40, 60}), NDRT_F64, out, OutKind::Fresh),
                 gather_ref(out, tile_map({33, 17}), x.vals), NDRT_F64, {0, 0}, std::string("large tile ") + kind_str(k));
  }
}

TEST(TileBp, MatchesReferenceAndFiniteDifferences) {
  std::mt19937 rng(13);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("tile_bp"))
    for (const TileCase& c : kTileCases)
      for (OutKind ok : kAllOutKinds) {
        Kind k = kKinds[size_t(counter++) % 5];
        Shape out = tile_out(c.s, c.reps);
        Operand x = make_operand(d, c.s, Kind::Contig, gen_for(d), rng);
        Operand dy = make_operand(d, out, k, gen_for(d), rng);
        Values want(static_cast<size_t>(numel_of(c.s)), 0.0);
        auto map = tile_map(c.s);
        for (int64_t f = 0; f < numel_of(out); ++f) want[size_t(map(unravel(f, out)))] += dy.vals[size_t(f)];
        std::string what = trace("tile_bp", d, shape_str(c.s) + " dy " + kind_str(k) + " reps " + shape_str(c.reps), ok);
        SCOPED_TRACE(what);
        Tol tol = default_tol(d);
        tol.atol *= 30;
        expect_close(run_out("tile_bp", {&x.view, &dy.view}, ints_attr(c.reps), d, c.s, ok), want, d, tol, what);
      }
  for (const TileCase& c : kTileCases) {
    Values x = random_values(size_t(numel_of(c.s)), 14);
    Shape out = tile_out(c.s, c.reps);
    auto f = [&](const Values& v) {
      Tensor t = from_values(NDRT_F64, c.s, v);
      return read_values(run("tile", {&t}, ints_attr(c.reps)));
    };
    auto bp = [&](const Values& dy) {
      Tensor t = from_values(NDRT_F64, c.s, x), g = from_values(NDRT_F64, out, dy);
      return read_values(run("tile_bp", {&t, &g}, ints_attr(c.reps)));
    };
    fd_check(f, bp, x, size_t(numel_of(out)), 15, "tile " + shape_str(c.s) + " reps " + shape_str(c.reps));
  }
  // Many repetitions, parallel chunks: dx = reps-count * sum.
  Tensor x = create(NDRT_F32, {5, 7});
  Tensor dy = from_values(NDRT_F32, {500, 700}, Values(350000, 0.5));
  expect_close(read_values(run("tile_bp", {&x, &dy}, ints_attr({100, 100}))), Values(35, 5000.0), NDRT_F32, {0, 0},
               "10000 copies");
}

TEST(Tile, BadAttributes) {
  Tensor x = create(NDRT_F32, {3, 4});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "tile: reps[1] is -2, must be >= 0", try_run("tile", {&x}, nullptr, ints_attr({1, -2})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "tile: reps has 9 values, more than the maximum rank 8",
               try_run("tile", {&x}, nullptr, ints_attr({1, 1, 1, 1, 1, 1, 1, 1, 1})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "tile: tiling [3,4] by reps makes too many elements",
               try_run("tile", {&x}, nullptr, ints_attr({int64_t(1) << 62, int64_t(1) << 62})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "tile: shape [3,4611686018427387904] has too many elements (its non-zero extents multiply past 2^59)",
               try_run("tile", {&x}, nullptr, ints_attr({1, int64_t(1) << 60})));
  Tensor dy = create(NDRT_F32, {3, 4});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "tile_bp: dy has shape [3,4], the forward output has [3,8]",
               try_run("tile_bp", {&x, &dy}, nullptr, ints_attr({1, 2})));
}

// ---------------------------------------------------------------------------------------------
// flip / transpose_copy
// ---------------------------------------------------------------------------------------------

TEST(Flip, EveryDtypeLayoutAndOutputKind) {
  struct Case {
    Shape s;
    Idx axes;
  };
  const Case cases[] = {{{3, 4, 5}, {}}, {{3, 4, 5}, {0}}, {{3, 4, 5}, {-1}}, {{3, 4, 5}, {0, 2}}, {{3, 4, 5}, {1}},
                        {{7}, {0}},      {{}, {}},         {{2, 0, 3}, {2}}, {{1, 6}, {1, 0}}};
  std::mt19937 rng(16);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("flip"))
    for (const Case& c : cases)
      for (OutKind ok : kAllOutKinds) {
        Kind k = kKinds[size_t(counter++) % 5];
        Operand x = make_operand(d, c.s, k, gen_for(d), rng);
        std::vector<bool> flip(c.s.size(), c.axes.empty());
        for (int64_t a : c.axes) flip[size_t(a < 0 ? a + int64_t(c.s.size()) : a)] = true;
        Values want = gather_ref(c.s, [&](const Idx& o) {
          Idx i = o;
          for (size_t dd = 0; dd < i.size(); ++dd)
            if (flip[dd]) i[dd] = c.s[dd] - 1 - i[dd];
          return flat_of(i, c.s);
        }, x.vals);
        std::string what = trace("flip", d, shape_str(c.s) + " " + kind_str(k) + " axes " + shape_str(c.axes), ok);
        SCOPED_TRACE(what);
        expect_close(run_out("flip", {&x.view}, ints_attr(c.axes), d, c.s, ok), want, d, {0, 0}, what);
      }
  // Gradient: flip is its own adjoint.
  Values x = random_values(60, 17);
  auto f = [&](const Values& v) {
    Tensor t = from_values(NDRT_F64, {3, 4, 5}, v);
    return read_values(run("flip", {&t}, ints_attr({0, 2})));
  };
  auto bp = [&](const Values& dy) {
    Tensor t = from_values(NDRT_F64, {3, 4, 5}, dy);
    return read_values(run("flip", {&t}, ints_attr({0, 2})));
  };
  fd_check(f, bp, x, 60, 18, "flip");
  Tensor t = create(NDRT_F32, {3, 4});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "flip: axis -2 is listed twice", try_run("flip", {&t}, nullptr, ints_attr({0, -2})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "flip: axis 2 is out of range for rank 2", try_run("flip", {&t}, nullptr, ints_attr({2})));
}

TEST(TransposeCopy, EveryDtypeLayoutAndOutputKind) {
  struct Case {
    Shape s;
    Idx perm;
  };
  const Case cases[] = {{{3, 4, 5}, {}},        {{3, 4, 5}, {1, 0, 2}}, {{3, 4, 5}, {2, 0, 1}}, {{3, 4, 5}, {-1, 0, 1}},
                        {{2, 3, 4, 5}, {0, 3, 1, 2}}, {{6}, {0}},       {{}, {}},               {{0, 3}, {1, 0}},
                        {{9, 11}, {1, 0}}};
  std::mt19937 rng(19);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("transpose_copy"))
    for (const Case& c : cases)
      for (OutKind ok : kAllOutKinds) {
        Kind k = kKinds[size_t(counter++) % 5];
        Operand x = make_operand(d, c.s, k, gen_for(d), rng);
        const size_t r = c.s.size();
        Idx perm(r);
        for (size_t dd = 0; dd < r; ++dd)
          perm[dd] = c.perm.empty() ? int64_t(r - 1 - dd) : (c.perm[dd] < 0 ? c.perm[dd] + int64_t(r) : c.perm[dd]);
        Shape out(r);
        for (size_t dd = 0; dd < r; ++dd) out[dd] = c.s[size_t(perm[dd])];
        Values want = gather_ref(out, [&](const Idx& o) {
          Idx i(r);
          for (size_t dd = 0; dd < r; ++dd) i[size_t(perm[dd])] = o[dd];
          return flat_of(i, c.s);
        }, x.vals);
        std::string what = trace("transpose_copy", d, shape_str(c.s) + " " + kind_str(k) + " perm " + shape_str(c.perm), ok);
        SCOPED_TRACE(what);
        expect_close(run_out("transpose_copy", {&x.view}, ints_attr(c.perm), d, out, ok), want, d, {0, 0}, what);
      }
}

TEST(TransposeCopy, LargeBlockedTransposesAndGradient) {
  std::mt19937 rng(20);
  for (ndrt_dtype d : {NDRT_F32, NDRT_U8, NDRT_F64, NDRT_BF16})
    for (OutKind ok : {OutKind::Fresh, OutKind::GivenView}) {
      const Shape s = {513, 1031};
      Operand x = make_operand(d, s, Kind::Contig, gen_for(d), rng);
      Values want = gather_ref({1031, 513}, [&](const Idx& o) { return o[1] * 1031 + o[0]; }, x.vals);
      expect_close(run_out("transpose_copy", {&x.view}, ints_attr({1, 0}), d, {1031, 513}, ok), want, d, {0, 0},
                   std::string("513x1031 ") + dtype_str(d) + ", " + out_kind_str(ok));
    }
  // Batched: [7, 130, 90] -> [7, 90, 130].
  Operand x = make_operand(NDRT_I32, {7, 130, 90}, Kind::Contig, gen_for(NDRT_I32), rng);
  Values want = gather_ref({7, 90, 130}, [&](const Idx& o) { return (o[0] * 130 + o[2]) * 90 + o[1]; }, x.vals);
  expect_close(run_out("transpose_copy", {&x.view}, ints_attr({0, 2, 1}), NDRT_I32, {7, 90, 130}, OutKind::Fresh), want,
               NDRT_I32, {0, 0}, "batched");
  // Gradient: transpose_copy with the inverse permutation.
  Values xv = random_values(2 * 3 * 4, 21);
  auto f = [&](const Values& v) {
    Tensor t = from_values(NDRT_F64, {2, 3, 4}, v);
    return read_values(run("transpose_copy", {&t}, ints_attr({2, 0, 1})));
  };
  auto bp = [&](const Values& dy) {
    Tensor t = from_values(NDRT_F64, {4, 2, 3}, dy);
    return read_values(run("transpose_copy", {&t}, ints_attr({1, 2, 0})));
  };
  fd_check(f, bp, xv, 24, 22, "transpose_copy");
}

TEST(TransposeCopy, BadAttributes) {
  Tensor t = create(NDRT_F32, {3, 4, 5});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "transpose_copy: perm has 2 values for rank 3",
               try_run("transpose_copy", {&t}, nullptr, ints_attr({1, 0})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "transpose_copy: perm lists axis 1 twice (not a permutation)",
               try_run("transpose_copy", {&t}, nullptr, ints_attr({1, 0, -2})));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "transpose_copy: axis 3 is out of range for rank 3",
               try_run("transpose_copy", {&t}, nullptr, ints_attr({3, 0, 1})));
  Tensor wrong = create(NDRT_F32, {3, 4, 5});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "transpose_copy: output 0 has shape [3,4,5], the op produces [5,4,3]",
               try_run("transpose_copy", {&t}, &wrong, ints_attr({})));
}

}  // namespace
