// gather, gather_bp, scatter, scatter_add, one_hot: every dtype, i32 and i64 indices (negative ones
// included), strided operands, every output kind, size-0 and rank-0 cases against references computed
// here; the adjoint relation of gather and scatter_add, finite differences, determinism across
// thread counts, out-of-range indices named in the error.
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

const Kind kKinds[] = {Kind::Contig, Kind::Permuted, Kind::Strided, Kind::Expanded, Kind::Offset};

Attrs axis_attr(int64_t axis) { return Attrs{{axis}, {}}; }

int64_t flat_of(const Idx& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}

Shape gathered(const Shape& x, const Shape& idx, int axis) {
  Shape o(x.begin(), x.begin() + axis);
  o.insert(o.end(), idx.begin(), idx.end());
  o.insert(o.end(), x.begin() + axis + 1, x.end());
  return o;
}

// For each element of gather's output: the flat index into x it reads.
std::vector<int64_t> gather_sources(const Shape& x, const Shape& is, const Values& idx, int axis) {
  Shape out = gathered(x, is, axis);
  std::vector<int64_t> src(static_cast<size_t>(numel_of(out)));
  for (int64_t f = 0; f < numel_of(out); ++f) {
    Idx o = unravel(f, out);
    Idx j(o.begin() + axis, o.begin() + axis + int64_t(is.size()));
    int64_t k = int64_t(idx[size_t(flat_of(j, is))]);
    if (k < 0) k += x[size_t(axis)];
    Idx xi(o.begin(), o.begin() + axis);
    xi.push_back(k);
    xi.insert(xi.end(), o.begin() + axis + int64_t(is.size()), o.end());
    src[size_t(f)] = flat_of(xi, x);
  }
  return src;
}

// Indices in [-n, n), a fixed mix of negative and repeated ones.
Values make_indices(int64_t count, int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> u(-n, n - 1);
  Values v(static_cast<size_t>(count));
  for (double& x : v) x = double(u(rng));
  return v;
}

// An index tensor of shape s laid out as `k` holding `vals` (row-major).
Operand index_operand(ndrt_dtype d, const Shape& s, Kind k, const Values& vals, std::mt19937& rng) {
  size_t pos = 0;
  Operand o = make_operand(d, s, k == Kind::Expanded ? Kind::Strided : k, uniform_gen(d, 0, 100), rng);
  // Rewrite the base so the view reads `vals`.
  std::vector<int64_t> at = o.layout.indices();
  for (int64_t i : at) o.base_vals[size_t(i)] = vals[pos++];
  write_values(o.base, o.base_vals);
  o.vals = vals;
  return o;
}

struct GatherCase {
  Shape x, idx;
  int64_t axis;
};
const GatherCase kGatherCases[] = {{{4, 5, 6}, {3}, 0},    {{4, 5, 6}, {2, 3}, 1}, {{4, 5, 6}, {}, 2},
                                   {{4, 5, 6}, {7}, -1},   {{5}, {4, 2}, 0},       {{3, 0}, {2}, 0},
                                   {{3, 4}, {0}, 1},       {{6, 2}, {1, 1, 3}, 0}};

TEST(Gather, KernelsCoverEveryDtype) {
  for (const char* op : {"gather", "scatter", "one_hot"}) EXPECT_EQ(cpu_dtypes(op).size(), 9u) << op;
  EXPECT_EQ(cpu_dtypes("scatter_add"), (std::vector<ndrt_dtype>{NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I32, NDRT_I64}));
  EXPECT_EQ(cpu_dtypes("gather_bp"), (std::vector<ndrt_dtype>{NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16}));
}

TEST(Gather, EveryDtypeIndexTypeLayoutAndOutputKind) {
  std::mt19937 rng(1);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("gather"))
    for (const GatherCase& c : kGatherCases)
      for (ndrt_dtype id : {NDRT_I32, NDRT_I64})
        for (OutKind ok : kAllOutKinds) {
          const int axis = int(c.axis < 0 ? c.axis + int64_t(c.x.size()) : c.axis);
          Kind kx = kKinds[size_t(counter) % 5], ki = kKinds[size_t(counter / 5) % 5];
          ++counter;
          Operand x = make_operand(d, c.x, kx, default_gen(d), rng);
          Operand idx = index_operand(id, c.idx, ki, make_indices(numel_of(c.idx), c.x[size_t(axis)], rng), rng);
          Shape out = gathered(c.x, c.idx, axis);
          std::vector<int64_t> src = gather_sources(c.x, c.idx, idx.vals, axis);
          Values want(src.size());
          for (size_t i = 0; i < src.size(); ++i) want[i] = x.vals[size_t(src[i])];
          std::string what = std::string("gather ") + dtype_str(d) + " x " + shape_str(c.x) + " " + kind_str(kx) +
                             " indices " + dtype_str(id) + " " + shape_str(c.idx) + " " + kind_str(ki) + " axis " +
                             std::to_string(c.axis) + ", " + out_kind_str(ok);
          SCOPED_TRACE(what);
          expect_close(run_out("gather", {&x.view, &idx.view}, axis_attr(c.axis), d, out, ok), want, d, {0, 0}, what);
        }
}

TEST(Gather, EmbeddingLookupLarge) {
  std::mt19937 rng(2);
  Operand w = make_operand(NDRT_F32, {1000, 64}, Kind::Contig, default_gen(NDRT_F32), rng);
  Values ids = make_indices(5000, 1000, rng);
  Operand idx = index_operand(NDRT_I64, {50, 100}, Kind::Contig, ids, rng);
  std::vector<int64_t> src = gather_sources({1000, 64}, {50, 100}, ids, 0);
  Values want(src.size());
  for (size_t i = 0; i < src.size(); ++i) want[i] = w.vals[size_t(src[i])];
  expect_close(run_out("gather", {&w.view, &idx.view}, axis_attr(0), NDRT_F32, {50, 100, 64}, OutKind::Fresh), want,
               NDRT_F32, {0, 0}, "embedding");
  // Along the last axis (one element per index).
  Operand x = make_operand(NDRT_I8, {300, 200}, Kind::Permuted, default_gen(NDRT_I8), rng);
  Values cols = make_indices(700, 200, rng);
  Operand ci = index_operand(NDRT_I32, {700}, Kind::Contig, cols, rng);
  src = gather_sources({300, 200}, {700}, cols, 1);
  want.assign(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i) want[i] = x.vals[size_t(src[i])];
  expect_close(run_out("gather", {&x.view, &ci.view}, axis_attr(-1), NDRT_I8, {300, 700}, OutKind::GivenView), want,
               NDRT_I8, {0, 0}, "last axis");
}

TEST(Gather, BadInputsAndOutOfRangeIndices) {
  Tensor x = create(NDRT_F32, {5, 3});
  Tensor fidx = create(NDRT_F32, {2});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "gather: indices have dtype f32, must be i32 or i64",
               try_run("gather", {&x, &fidx}, nullptr, axis_attr(0)));
  Tensor idx = from_values(NDRT_I64, {3}, {0, 5, 1});
  Tensor out = create(NDRT_F32, {3, 3});
  write_bytes(out, poison_bytes(NDRT_F32, 9));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "gather: index 5 at position [1] of indices is out of range [-5, 5) for axis 0 of size 5",
               try_run("gather", {&x, &idx}, &out, axis_attr(0)));
  std::vector<uint8_t> after = read_bytes(out);
  EXPECT_TRUE(after == poison_bytes(NDRT_F32, 9)) << "nothing is written when an index is out of range";
  Tensor neg = from_values(NDRT_I32, {2, 2}, {0, -1, -4, 2});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "gather: index -4 at position [1,0] of indices is out of range [-3, 3) for axis 1 of size 3",
               try_run("gather", {&x, &neg}, nullptr, axis_attr(1)));
  Tensor s = create(NDRT_F32, {});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH, "gather: x is rank 0; it needs an axis to index",
               try_run("gather", {&s, &idx}, nullptr, axis_attr(0)));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "gather: axis -3 is out of range for rank 2",
               try_run("gather", {&x, &idx}, nullptr, axis_attr(-3)));
  Tensor x7 = create(NDRT_F32, {1, 1, 1, 1, 1, 1, 2});
  Tensor i3 = from_values(NDRT_I32, {1, 1, 1}, {0});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH,
               "gather: x of rank 7 indexed by indices of rank 3 gives rank 9, above the maximum 8",
               try_run("gather", {&x7, &i3}, nullptr, axis_attr(6)));
  Tensor empty_axis = create(NDRT_F32, {0, 3});
  Tensor zero = from_values(NDRT_I64, {1}, {0});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "gather: index 0 at position [0] of indices is out of range [0, 0) for axis 0 of size 0",
               try_run("gather", {&empty_axis, &zero}, nullptr, axis_attr(0)));
}

// ---------------------------------------------------------------------------------------------
// scatter / scatter_add / gather_bp
// ---------------------------------------------------------------------------------------------

// y = x with updates written (or added) at gather's sources, in row-major order of the updates.
Values scatter_ref(const Values& x, const std::vector<int64_t>& src, const Values& upd, bool add) {
  Values y = x;
  for (size_t i = 0; i < src.size(); ++i) y[size_t(src[i])] = add ? y[size_t(src[i])] + upd[i] : upd[i];
  return y;
}

TEST(Scatter, EveryDtypeIndexTypeLayoutAndOutputKind) {
  std::mt19937 rng(3);
  int counter = 0;
  for (const char* op : {"scatter", "scatter_add"})
    for (ndrt_dtype d : cpu_dtypes(op))
      for (const GatherCase& c : kGatherCases)
        for (ndrt_dtype id : {NDRT_I32, NDRT_I64})
          for (OutKind ok : kAllOutKinds) {
            const bool add = std::string(op) == "scatter_add";
            const int axis = int(c.axis < 0 ? c.axis + int64_t(c.x.size()) : c.axis);
            Kind kx = kKinds[size_t(counter) % 5], ku = kKinds[size_t(counter / 5) % 5];
            ++counter;
            Shape us = gathered(c.x, c.idx, axis);
            Operand x = make_operand(d, c.x, kx, default_gen(d), rng);
            Operand idx = index_operand(id, c.idx, Kind::Contig, make_indices(numel_of(c.idx), c.x[size_t(axis)], rng), rng);
            Operand upd = make_operand(d, us, ku, default_gen(d), rng);
            Values want = scatter_ref(x.vals, gather_sources(c.x, c.idx, idx.vals, axis), upd.vals, add);
            std::string what = std::string(op) + " " + dtype_str(d) + " x " + shape_str(c.x) + " " + kind_str(kx) +
                               " indices " + dtype_str(id) + " " + shape_str(c.idx) + " updates " + kind_str(ku) +
                               " axis " + std::to_string(c.axis) + ", " + out_kind_str(ok);
            SCOPED_TRACE(what);
            Tol tol = add ? default_tol(d) : Tol{0, 0};
            if (add) tol.atol *= 20;  // a few repeated indices summed (f16/bf16 round once, from f32)
            expect_close(run_out(op, {&x.view, &idx.view, &upd.view}, axis_attr(c.axis), d, c.x, ok), want, d, tol, what);
          }
}

TEST(Scatter, InPlaceAndRepeatedIndicesAreDeterministic) {
  // In place: y is x itself.
  Tensor x = from_values(NDRT_F32, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor idx = from_values(NDRT_I64, {3}, {2, 0, 2});
  Tensor upd = from_values(NDRT_F32, {3, 2}, {10, 11, 12, 13, 14, 15});
  run_into("scatter", {&x, &idx, &upd}, x, axis_attr(0));
  EXPECT_EQ(read_values(x), (Values{12, 13, 3, 4, 14, 15, 7, 8})) << "the last repeated index wins";
  run_into("scatter_add", {&x, &idx, &upd}, x, axis_attr(0));
  EXPECT_EQ(read_values(x), (Values{24, 26, 3, 4, 38, 41, 7, 8}));
  Tensor shares = create(NDRT_F32, {4, 2});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "scatter: y shares memory with input 2 (updates); only x may be y",
               try_run("scatter", {&x, &idx, &upd}, &upd, axis_attr(0)));

  // A large scatter_add with many repeats: bit-identical on 1 and 2 threads.
  std::mt19937 rng(4);
  Values ids = make_indices(20000, 100, rng);
  Tensor ti = from_values(NDRT_I32, {20000}, ids);
  Operand u = make_operand(NDRT_F32, {20000, 33}, Kind::Contig, default_gen(NDRT_F32), rng);
  Tensor zeros = from_values(NDRT_F32, {100, 33}, Values(3300, 0.0));
  std::vector<uint8_t> one, two;
  char old[32];
  size_t need = 0;
  NT_CHECK(ndrt_config_get("cpu.threads", old, sizeof old, &need));
  NT_CHECK(ndrt_config_set("cpu.threads", "1"));
  one = read_bytes(run("scatter_add", {&zeros, &ti, &u.view}, axis_attr(0)));
  NT_CHECK(ndrt_config_set("cpu.threads", "2"));
  two = read_bytes(run("scatter_add", {&zeros, &ti, &u.view}, axis_attr(0)));
  NT_CHECK(ndrt_config_set("cpu.threads", old));
  EXPECT_TRUE(one == two) << "scatter_add differs across thread counts";
  Values want = scatter_ref(Values(3300, 0.0), gather_sources({100, 33}, {20000}, ids, 0), u.vals, true);
  expect_close(decode_all(NDRT_F32, one), want, NDRT_F32, {1e-5, 1e-4}, "large scatter_add");
}

TEST(Scatter, BadInputs) {
  Tensor x = create(NDRT_F32, {5, 3});
  Tensor idx = from_values(NDRT_I64, {2}, {0, 1});
  Tensor upd = create(NDRT_F32, {3, 3});
  EXPECT_FAILS(NDRT_ERR_SHAPE_MISMATCH,
               "scatter: updates has shape [3,3], must be x.shape[:axis] + indices.shape + x.shape[axis+1:] = [2,3]",
               try_run("scatter", {&x, &idx, &upd}, nullptr, axis_attr(0)));
  Tensor upd64 = create(NDRT_F64, {2, 3});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "scatter_add: updates is f64 but x is f32",
               try_run("scatter_add", {&x, &idx, &upd64}, nullptr, axis_attr(0)));
  Tensor bad = from_values(NDRT_I64, {2}, {0, -6});
  Tensor u2 = create(NDRT_F32, {2, 3});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "scatter: index -6 at position [1] of indices is out of range [-5, 5) for axis 0 of size 5",
               try_run("scatter", {&x, &bad, &u2}, nullptr, axis_attr(0)));
  Tensor xb = create(NDRT_BOOL, {5, 3}), ub = create(NDRT_BOOL, {2, 3});
  EXPECT_FAILS(NDRT_ERR_NOT_SUPPORTED, "scatter_add: no cpu kernel for dtype bool (cpu has: f32, f64, f16, bf16, i32, i64)",
               try_run("scatter_add", {&xb, &idx, &ub}, nullptr, axis_attr(0)));
  Tensor dyi = create(NDRT_I32, {2, 3}), xi = create(NDRT_I32, {5, 3});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "gather_bp: needs a floating-point dtype, got i32",
               try_run("gather_bp", {&xi, &idx, &dyi}, nullptr, axis_attr(0)));
}

TEST(GatherBp, MatchesReferenceAdjointAndFiniteDifferences) {
  std::mt19937 rng(5);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("gather_bp"))
    for (const GatherCase& c : kGatherCases)
      for (OutKind ok : kAllOutKinds) {
        const int axis = int(c.axis < 0 ? c.axis + int64_t(c.x.size()) : c.axis);
        Kind k = kKinds[size_t(counter++) % 5];
        Shape ys = gathered(c.x, c.idx, axis);
        Operand x = make_operand(d, c.x, Kind::Contig, default_gen(d), rng);
        Operand idx = index_operand(NDRT_I64, c.idx, Kind::Contig, make_indices(numel_of(c.idx), c.x[size_t(axis)], rng), rng);
        Operand dy = make_operand(d, ys, k, default_gen(d), rng);
        Values want = scatter_ref(Values(x.vals.size(), 0.0), gather_sources(c.x, c.idx, idx.vals, axis), dy.vals, true);
        std::string what = std::string("gather_bp ") + dtype_str(d) + " x " + shape_str(c.x) + " indices " +
                           shape_str(c.idx) + " dy " + kind_str(k) + ", " + out_kind_str(ok);
        SCOPED_TRACE(what);
        Tol tol = default_tol(d);
        tol.atol *= 20;
        expect_close(run_out("gather_bp", {&x.view, &idx.view, &dy.view}, axis_attr(c.axis), d, c.x, ok), want, d, tol,
                     what);
      }
  // <gather(x), dy> == <x, scatter_add(0, idx, dy)> == <x, gather_bp(x, idx, dy)>, and finite differences.
  for (const GatherCase& c : kGatherCases) {
    const int axis = int(c.axis < 0 ? c.axis + int64_t(c.x.size()) : c.axis);
    Shape ys = gathered(c.x, c.idx, axis);
    Operand x = make_operand(NDRT_F64, c.x, Kind::Contig, default_gen(NDRT_F64), rng);
    Operand idx = index_operand(NDRT_I32, c.idx, Kind::Contig, make_indices(numel_of(c.idx), c.x[size_t(axis)], rng), rng);
    Operand dy = make_operand(NDRT_F64, ys, Kind::Contig, default_gen(NDRT_F64), rng);
    Values g = read_values(run("gather", {&x.view, &idx.view}, axis_attr(c.axis)));
    Tensor zeros = from_values(NDRT_F64, c.x, Values(x.vals.size(), 0.0));
    Values s = read_values(run("scatter_add", {&zeros, &idx.view, &dy.view}, axis_attr(c.axis)));
    Values b = read_values(run("gather_bp", {&x.view, &idx.view, &dy.view}, axis_attr(c.axis)));
    double lhs = std::inner_product(g.begin(), g.end(), dy.vals.begin(), 0.0);
    double rhs = std::inner_product(x.vals.begin(), x.vals.end(), s.begin(), 0.0);
    EXPECT_NEAR(lhs, rhs, 1e-12 * (1 + std::fabs(lhs))) << "adjoint " << shape_str(c.x) << " " << shape_str(c.idx);
    EXPECT_EQ(s, b);
    const double h = 1e-4;
    Values e = x.vals;
    std::uniform_real_distribution<double> u(-1, 1);
    for (double& v : e) v = u(rng);
    auto f = [&](double sign) {
      Values xv = x.vals;
      for (size_t i = 0; i < xv.size(); ++i) xv[i] += sign * h * e[i];
      Tensor t = from_values(NDRT_F64, c.x, xv);
      Values y = read_values(run("gather", {&t, &idx.view}, axis_attr(c.axis)));
      return std::inner_product(y.begin(), y.end(), dy.vals.begin(), 0.0);
    };
    double fd = (f(1) - f(-1)) / (2 * h);
    double an = std::inner_product(b.begin(), b.end(), e.begin(), 0.0);
    EXPECT_NEAR(fd, an, 1e-8 * (1 + std::fabs(an))) << "finite difference " << shape_str(c.x);
  }
}

// ---------------------------------------------------------------------------------------------
// one_hot
// ---------------------------------------------------------------------------------------------

void on_off(ndrt_dtype d, double& on, double& off) {
  switch (d) {
    case NDRT_BOOL: on = 1, off = 0; return;
    case NDRT_U8: on = 5, off = 1; return;
    case NDRT_I8: case NDRT_I32: case NDRT_I64: on = 3, off = -1; return;
    default: on = 2.5, off = -0.5; return;
  }
}

Attrs one_hot_attrs(int64_t depth, ndrt_dtype d, int64_t axis, double on, double off) {
  return Attrs{{depth, d, axis}, {on, off}};
}

TEST(OneHot, EveryDtypeAxisLayoutAndOutputKind) {
  struct Case {
    Shape s;
    int64_t depth, axis;
  };
  const Case cases[] = {{{2, 3}, 4, -1}, {{2, 3}, 4, 0}, {{2, 3}, 5, 1}, {{}, 3, 0}, {{7}, 1, -1}, {{0, 2}, 3, 1}, {{4}, 0, 0}};
  std::mt19937 rng(6);
  int counter = 0;
  for (ndrt_dtype d : cpu_dtypes("one_hot"))
    for (const Case& c : cases)
      for (ndrt_dtype id : {NDRT_I32, NDRT_I64})
        for (OutKind ok : kAllOutKinds) {
          if (c.depth == 0 && numel_of(c.s) > 0) continue;
          const int axis = int(c.axis < 0 ? c.axis + int64_t(c.s.size()) + 1 : c.axis);
          Kind k = kKinds[size_t(counter++) % 5];
          Values cls(static_cast<size_t>(numel_of(c.s)));
          std::uniform_int_distribution<int64_t> u(0, std::max<int64_t>(0, c.depth - 1));
          for (double& v : cls) v = double(u(rng));
          Operand idx = index_operand(id, c.s, k, cls, rng);
          double on, off;
          on_off(d, on, off);
          Shape out = c.s;
          out.insert(out.begin() + axis, c.depth);
          Values want(static_cast<size_t>(numel_of(out)));
          for (int64_t f = 0; f < numel_of(out); ++f) {
            Idx o = unravel(f, out);
            int64_t h = o[size_t(axis)];
            o.erase(o.begin() + axis);
            want[size_t(f)] = cls[size_t(flat_of(o, c.s))] == double(h) ? on : off;
          }
          std::string what = std::string("one_hot ") + dtype_str(d) + " indices " + dtype_str(id) + " " +
                             shape_str(c.s) + " " + kind_str(k) + " depth " + std::to_string(c.depth) + " axis " +
                             std::to_string(c.axis) + ", " + out_kind_str(ok);
          SCOPED_TRACE(what);
          // A given output decides the dtype; the attribute says something else on purpose.
          Attrs a = one_hot_attrs(c.depth, ok == OutKind::Fresh ? d : NDRT_F64, c.axis, on, off);
          expect_close(run_out("one_hot", {&idx.view}, a, d, out, ok), want, d, {0, 0}, what);
        }
  // Large: 100000 labels, 10 classes, f32 defaults (on 1, off 0, last axis).
  Values labels(100000);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = double((i * 7) % 10);
  Tensor t = from_values(NDRT_I64, {100000}, labels);
  Values y = read_values(run("one_hot", {&t}, Attrs{{10}, {}}));
  int64_t bad = 0;
  for (size_t i = 0; i < labels.size(); ++i)
    for (int h = 0; h < 10; ++h) bad += y[i * 10 + size_t(h)] != (labels[i] == h ? 1.0 : 0.0);
  EXPECT_EQ(bad, 0);
}

TEST(OneHot, BadInputs) {
  Tensor idx = from_values(NDRT_I32, {2, 2}, {0, -1, 2, 3});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "one_hot: index -1 at position [0,1] of indices is out of range [0, 4) (depth 4)",
               try_run("one_hot", {&idx}, nullptr, Attrs{{4}, {}}));
  Tensor big = from_values(NDRT_I64, {3}, {0, 1, 4});
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "one_hot: index 4 at position [2] of indices is out of range [0, 4) (depth 4)",
               try_run("one_hot", {&big}, nullptr, Attrs{{4}, {}}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "one_hot: attribute 'depth' is required", try_run("one_hot", {&big}, nullptr, Attrs{}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "one_hot: depth is -2, must be >= 0",
               try_run("one_hot", {&big}, nullptr, Attrs{{-2}, {}}));
  EXPECT_FAILS(NDRT_ERR_INVALID_ARGUMENT, "one_hot: axis 2 is out of range for rank 2",
               try_run("one_hot", {&big}, nullptr, Attrs{{5, NDRT_F32, 2}, {}}));
  Tensor f = create(NDRT_F32, {3});
  EXPECT_FAILS(NDRT_ERR_DTYPE_MISMATCH, "one_hot: indices have dtype f32, must be i32 or i64",
               try_run("one_hot", {&f}, nullptr, Attrs{{4}, {}}));
}

}  // namespace
