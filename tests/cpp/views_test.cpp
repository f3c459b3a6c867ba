// Views: reshape, permute, transpose, slice, expand, contiguous. Shapes, strides, offsets and values
// are compared with the test's own model of a strided view; writes through a view land in the base;
// views keep storage alive after the base handle is released.
#include <algorithm>
#include <numeric>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

std::vector<double> iota(int64_t n, double start = 1) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// Values of a view according to the model.
std::vector<double> model_values(const Layout& l, const std::vector<double>& base) {
  std::vector<double> r;
  for (int64_t i : l.indices()) r.push_back(base[size_t(i)]);
  return r;
}

void expect_view(const Tensor& t, const Layout& l, const std::vector<double>& base, const std::string& what) {
  SCOPED_TRACE(what);
  expect_layout(t, l, what);
  EXPECT_EQ(t.numel(), l.numel());
  EXPECT_EQ(read_values(t), model_values(l, base)) << what << ": values";
}

TEST(Views, ReshapeContiguous) {
  std::vector<double> v = iota(24);
  Tensor t = from_values(NDRT_F32, {2, 3, 4}, v);
  struct C {
    Shape in, out;
  };
  const C cases[] = {{{6, 4}, {6, 4}},     {{4, -1}, {4, 6}},      {{-1}, {24}},         {{2, -1, 3}, {2, 4, 3}},
                     {{1, 24, 1}, {1, 24, 1}}, {{24}, {24}},       {{2, 3, 2, 2}, {2, 3, 2, 2}}, {{-1, 1}, {24, 1}}};
  for (const C& c : cases) {
    Tensor r = reshape(t, c.in);
    expect_view(r, Layout::contiguous(c.out), v, "reshape to " + shape_str(c.in));
    EXPECT_TRUE(r.contiguous());
    EXPECT_EQ(r.data_ptr(), t.data_ptr()) << "reshape must not copy";
  }
  // Rank 0 <-> one element.
  Tensor s = from_values(NDRT_F64, {}, {7});
  Tensor s11 = reshape(s, {1, 1});
  EXPECT_EQ(s11.shape(), (Shape{1, 1}));
  Tensor back = reshape(s11, {});
  EXPECT_EQ(back.rank(), 0);
  EXPECT_EQ(read_values(back), std::vector<double>{7});
  // Size 0.
  Tensor z = create(NDRT_F32, {0, 3});
  EXPECT_EQ(reshape(z, {3, 0, 5}).shape(), (Shape{3, 0, 5}));
  EXPECT_EQ(reshape(z, {-1, 3}).shape(), (Shape{0, 3}));
}

TEST(Views, ReshapeErrors) {
  Tensor t = from_values(NDRT_F32, {2, 3, 4}, iota(24));
  ndrt_handle out = 0;
  const Shape two_minus1 = {2, -1, -1}, not_divisible = {5, -1}, wrong_count = {7}, negative = {-2, 12},
              zero = {0, -1};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(t.get(), 3, two_minus1.data(), &out));
  for (const Shape& s : {not_divisible, wrong_count}) {
    ndrt_status st = ndrt_tensor_reshape(t.get(), int32_t(s.size()), s.data(), &out);
    EXPECT_TRUE(st == NDRT_ERR_INVALID_ARGUMENT || st == NDRT_ERR_SHAPE_MISMATCH)
        << "reshape [2,3,4] to " << shape_str(s) << ": " << describe_status(st);
  }
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(t.get(), 2, negative.data(), &out));
  ndrt_status st = ndrt_tensor_reshape(t.get(), 2, zero.data(), &out);
  EXPECT_TRUE(st == NDRT_ERR_INVALID_ARGUMENT || st == NDRT_ERR_SHAPE_MISMATCH) << describe_status(st);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(t.get(), 2, nullptr, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(t.get(), 9, wrong_count.data(), &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(t.get(), 1, wrong_count.data(), nullptr));
  EXPECT_STATUS(NDRT_ERR_INVALID_HANDLE, ndrt_tensor_reshape(0, 1, wrong_count.data(), &out));
  EXPECT_EQ(out, 0);
}

TEST(Views, ReshapeOfNonContiguousViews) {
  std::vector<double> v = iota(28);
  Tensor t = from_values(NDRT_F32, {4, 7}, v);
  // Every other column: [4,4] strides [7,2]. Splitting an axis is possible, merging is not.
  Tensor s = slice(t, 1, 0, 7, 2);
  Layout ls = Layout::contiguous({4, 7}).slice(1, 0, 7, 2);
  expect_view(s, ls, v, "slice");
  const std::vector<double> sv = model_values(ls, v);
  Tensor r = reshape(s, {2, 2, 4});
  Layout lr;
  lr.shape = {2, 2, 4};
  lr.strides = {14, 7, 2};
  expect_view(r, lr, v, "split axis 0 of a strided view");
  Tensor rb = reshape(s, {4, 2, 2});
  Layout lrb;
  lrb.shape = {4, 2, 2};
  lrb.strides = {7, 4, 2};
  expect_view(rb, lrb, v, "split axis 1 of a strided view");
  EXPECT_EQ(read_values(reshape(s, {4, 4, 1})), sv);
  EXPECT_EQ(read_values(reshape(s, {1, 4, 1, 4})), sv);
  ndrt_handle out = 0;
  const Shape flat = {16}, merge = {16, 1}, regroup = {2, 8}, regroup2 = {8, 2};
  for (const Shape& sh : {flat, merge, regroup, regroup2}) {
    SCOPED_TRACE("reshape [4,4] strides [7,2] to " + shape_str(sh));
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(s.get(), int32_t(sh.size()), sh.data(), &out));
  }
  EXPECT_EQ(out, 0);
  // Merging is fine where the strides line up: every other column of [4,6] is [4,3] strides [6,2],
  // which is [12] with stride 2.
  std::vector<double> v6 = iota(24);
  Tensor t6 = from_values(NDRT_F32, {4, 6}, v6);
  Tensor s6 = slice(t6, 1, 0, 6, 2);
  Tensor f6 = reshape(s6, {12});
  Layout lf6;
  lf6.shape = {12};
  lf6.strides = {2};
  expect_view(f6, lf6, v6, "mergeable strided view");
  Tensor g6 = reshape(s6, {3, 4});
  Layout lg6;
  lg6.shape = {3, 4};
  lg6.strides = {8, 2};
  expect_view(g6, lg6, v6, "regrouped strided view");
  // A transposed matrix cannot be flattened without a copy; its contiguous copy can.
  Tensor tt = transpose(t, 0, 1);
  const Shape all = {28};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(tt.get(), 1, all.data(), &out));
  EXPECT_EQ(out, 0);
  Tensor c = contiguous(tt);
  Tensor cf = reshape(c, {28});
  std::vector<double> want;
  for (int j = 0; j < 7; ++j)
    for (int i = 0; i < 4; ++i) want.push_back(v[size_t(i * 7 + j)]);
  EXPECT_EQ(read_values(cf), want);
  // Size-1 axes of a transposed view can come and go.
  Tensor tt1 = reshape(tt, {7, 1, 4});
  EXPECT_EQ(read_values(tt1), want);
  // An expanded view can be reshaped where the broadcast axis stays whole.
  Tensor row = from_values(NDRT_F32, {1, 4}, {1, 2, 3, 4});
  Tensor e = expand(row, {6, 4});
  Tensor e2 = reshape(e, {2, 3, 4});
  EXPECT_EQ(e2.strides(), (Shape{0, 0, 1}));
  EXPECT_EQ(read_values(e2), read_values(e));
}

TEST(Views, PermuteAndTranspose) {
  std::vector<double> v = iota(60);
  Tensor t = from_values(NDRT_F64, {3, 4, 5}, v);
  Layout l = Layout::contiguous({3, 4, 5});
  for (const std::vector<int32_t>& perm : std::vector<std::vector<int32_t>>{
           {0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}, {0, 2, 1}, {1, 0, 2}}) {
    Tensor p = permute(t, perm);
    expect_view(p, l.permute(perm), v, "permute " + std::to_string(perm[0]) + std::to_string(perm[1]) + std::to_string(perm[2]));
    EXPECT_EQ(p.contiguous(), (perm == std::vector<int32_t>{0, 1, 2}));
  }
  expect_view(transpose(t, 0, 2), l.permute({2, 1, 0}), v, "transpose 0 2");
  expect_view(transpose(t, -1, 0), l.permute({2, 1, 0}), v, "transpose -1 0");
  expect_view(transpose(t, 1, -2), l, v, "transpose 1 -2 (same axis)");
  ndrt_handle out = 0;
  const std::vector<int32_t> dup = {0, 0, 1}, range = {0, 1, 3}, neg = {0, 1, -1}, short_perm = {1, 0};
  for (const auto& p : {dup, range, neg})
    EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_permute(t.get(), 3, p.data(), &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_permute(t.get(), 2, short_perm.data(), &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_permute(t.get(), 3, nullptr, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_transpose(t.get(), 0, 3, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_transpose(t.get(), -4, 0, &out));
  EXPECT_EQ(out, 0);
  Tensor s = from_values(NDRT_F64, {}, {1});
  Tensor sp = permute(s, {});
  EXPECT_EQ(sp.rank(), 0);
}

// Every (start, stop, step) combination on one axis against Python's slice semantics.
TEST(Views, SliceMatchesPythonSemanticsIncludingClampingAndNegativeSteps) {
  std::vector<double> v = iota(7 * 3);
  Tensor t = from_values(NDRT_I32, {7, 3}, v);
  Layout l = Layout::contiguous({7, 3});
  const int64_t ends[] = {-100, -8, -7, -3, -1, 0, 2, 6, 7, 10, 100};
  const int64_t steps[] = {-7, -3, -2, -1, 1, 2, 3, 8};
  int64_t live = live_handles();
  for (int64_t start : ends)
    for (int64_t stop : ends)
      for (int64_t step : steps) {
        std::string what = "slice [" + std::to_string(start) + ":" + std::to_string(stop) + ":" + std::to_string(step) + "]";
        Tensor s = slice(t, 0, start, stop, step);
        expect_view(s, l.slice(0, start, stop, step), v, what);
        Tensor s2 = slice(t, 1, start, stop, step);  // on the inner axis too
        expect_view(s2, l.slice(1, start, stop, step), v, what + " axis 1");
      }
  EXPECT_EQ(live_handles(), live);
}

TEST(Views, SliceErrorsAndChains) {
  std::vector<double> v = iota(60);
  Tensor t = from_values(NDRT_F32, {3, 4, 5}, v);
  ndrt_handle out = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_slice(t.get(), 0, 0, 3, 0, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_slice(t.get(), 3, 0, 3, 1, &out));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_slice(t.get(), 0, 0, 3, 1, nullptr));
  EXPECT_EQ(out, 0);
  Tensor s0 = from_values(NDRT_F32, {}, {1});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_slice(s0.get(), 0, 0, 1, 1, &out));
  // Chains: slices of slices of permutes, with negative steps.
  Layout l = Layout::contiguous({3, 4, 5});
  Tensor a = slice(t, 2, 4, -6, -2);  // [5]: 4,2,0
  Layout la = l.slice(2, 4, -6, -2);
  expect_view(a, la, v, "a");
  Tensor b = permute(a, {2, 0, 1});
  Layout lb = la.permute({2, 0, 1});
  expect_view(b, lb, v, "b");
  Tensor c = slice(b, 2, 3, 0, -2);
  Layout lc = lb.slice(2, 3, 0, -2);
  expect_view(c, lc, v, "c");
  Tensor d = slice(c, 0, 1, 3, 1);
  expect_view(d, lc.slice(0, 1, 3, 1), v, "d");
  // data_ptr points at element [0,...,0] of the view.
  EXPECT_EQ(static_cast<char*>(d.data_ptr()), static_cast<char*>(t.data_ptr()) + 4 * d.offset());
  // Empty slices.
  Tensor e = slice(t, 1, 2, 2, 1);
  EXPECT_EQ(e.shape(), (Shape{3, 0, 5}));
  EXPECT_EQ(e.numel(), 0);
  EXPECT_TRUE(read_values(e).empty());
  Tensor e2 = slice(t, 1, 3, 1, 1);
  EXPECT_EQ(e2.shape(), (Shape{3, 0, 5}));
}

// Extreme starts, stops and steps: Python semantics, no overflow.
TEST(Views, SliceWithExtremeValues) {
  std::vector<double> v = iota(7);
  Tensor t = from_values(NDRT_I64, {7}, v);
  struct C {
    int64_t start, stop, step;
    std::vector<double> want;
  };
  const C cases[] = {
      {0, INT64_MAX, INT64_MAX, {1}},
      {INT64_MAX, INT64_MIN, INT64_MIN, {7}},
      {INT64_MIN, INT64_MAX, 1, {1, 2, 3, 4, 5, 6, 7}},
      {-1, INT64_MIN, -1, {7, 6, 5, 4, 3, 2, 1}},
      {INT64_MIN, INT64_MIN, -1, {}},
      {INT64_MAX, INT64_MAX, 1, {}},
      {3, INT64_MAX, 1000000000000LL, {4}},
  };
  for (const C& c : cases) {
    SCOPED_TRACE("slice [" + std::to_string(c.start) + ":" + std::to_string(c.stop) + ":" + std::to_string(c.step) + "]");
    Tensor s;
    ASSERT_OK(ndrt_tensor_slice(t.get(), 0, c.start, c.stop, c.step, s.out()));
    EXPECT_EQ(s.shape(), (Shape{int64_t(c.want.size())}));
    EXPECT_EQ(read_values(s), c.want);
    if (!c.want.empty()) {
      Tensor n = run("neg", {&s});
      std::vector<double> neg = c.want;
      for (double& x : neg) x = -x;
      EXPECT_EQ(read_values(n), neg);
    }
  }
}

TEST(Views, ExpandFollowsNumpyRules) {
  std::vector<double> v = {1, 2, 3};
  Tensor t = from_values(NDRT_F32, {3, 1}, v);
  Layout l = Layout::contiguous({3, 1});
  Tensor e = expand(t, {2, 3, 4});
  expect_view(e, l.expand({2, 3, 4}), v, "expand [3,1] -> [2,3,4]");
  EXPECT_EQ(e.strides(), (Shape{0, 1, 0}));
  EXPECT_FALSE(e.contiguous());
  Tensor same = expand(t, {3, 1});
  expect_view(same, l, v, "expand to the same shape");
  Tensor zero = expand(t, {3, 0});
  EXPECT_EQ(zero.shape(), (Shape{3, 0}));
  Tensor s = from_values(NDRT_F32, {}, {5});
  Tensor se = expand(s, {2, 2});
  EXPECT_EQ(read_values(se), std::vector<double>(4, 5));
  EXPECT_EQ(se.strides(), (Shape{0, 0}));
  ndrt_handle out = 0;
  const Shape bad1 = {4, 1}, bad2 = {3}, bad3 = {2, 4, 1}, bad4 = {3, -1}, bad5 = {-1, 3, 1};
  for (const Shape& sh : {bad1, bad2, bad3, bad4, bad5}) {
    ndrt_status st = ndrt_tensor_expand(t.get(), int32_t(sh.size()), sh.data(), &out);
    EXPECT_TRUE(st == NDRT_ERR_SHAPE_MISMATCH || st == NDRT_ERR_INVALID_ARGUMENT)
        << "expand [3,1] to " << shape_str(sh) << ": " << describe_status(st);
  }
  EXPECT_EQ(out, 0);
}

TEST(Views, ContiguousCopiesOnlyWhenNeeded) {
  std::vector<double> v = iota(12);
  Tensor t = from_values(NDRT_I64, {3, 4}, v);
  Tensor c = contiguous(t);
  EXPECT_NE(c.get(), t.get()) << "a new handle";
  EXPECT_EQ(c.data_ptr(), t.data_ptr()) << "already contiguous: the same tensor";
  Tensor off = slice(t, 0, 1, 3, 1);  // contiguous with an offset
  EXPECT_TRUE(off.contiguous());
  Tensor coff = contiguous(off);
  EXPECT_EQ(coff.data_ptr(), off.data_ptr());
  Layout l = Layout::contiguous({3, 4});
  for (auto make : std::vector<std::function<Tensor()>>{[&] { return transpose(t, 0, 1); },
                                                        [&] { return slice(t, 1, 3, -5, -2); },
                                                        [&] { return expand(slice(t, 0, 0, 1, 1), {5, 4}); }}) {
    Tensor view = make();
    EXPECT_FALSE(view.contiguous());
    std::vector<double> want = read_values(view);
    Tensor cc = contiguous(view);
    EXPECT_TRUE(cc.contiguous());
    EXPECT_EQ(cc.offset(), 0);
    EXPECT_EQ(cc.strides(), strides_of(cc.shape()));
    EXPECT_NE(cc.data_ptr(), t.data_ptr());
    EXPECT_EQ(read_values(cc), want);
  }
  // Values checked against the model, not only against reading the view.
  Tensor tr = contiguous(transpose(t, 0, 1));
  EXPECT_EQ(read_values(tr), model_values(l.permute({1, 0}), v));
}

TEST(Views, WritesThroughAViewLandInTheBase) {
  std::vector<double> v = iota(20);
  Tensor t = from_values(NDRT_F32, {4, 5}, v);
  Tensor s = slice(transpose(t, 0, 1), 0, 4, -6, -2);  // rows 4,2,0 of the transpose: [3,4]
  Layout ls = Layout::contiguous({4, 5}).permute({1, 0}).slice(0, 4, -6, -2);
  write_values(s, std::vector<double>(12, -1));
  std::vector<double> want = v;
  for (int64_t i : ls.indices()) want[size_t(i)] = -1;
  EXPECT_EQ(read_values(t), want);
  // ...and ops writing into a view, too (copy into a strided view).
  Tensor src = from_values(NDRT_F32, {3, 4}, iota(12, 100));
  run_into("copy", {&src}, s);
  std::vector<int64_t> idx = ls.indices();
  for (size_t k = 0; k < idx.size(); ++k) want[size_t(idx[k])] = 100 + double(k);
  EXPECT_EQ(read_values(t), want);
  // Writes to a broadcast view are refused, or land in the single shared element.
  Tensor e = expand(slice(t, 0, 0, 1, 1), {3, 5});
  ndrt_status st = ndrt_tensor_write(e.get(), std::vector<float>(15, 7.0f).data(), 60);
  EXPECT_TRUE(st == NDRT_ERR_INVALID_ARGUMENT || st == NDRT_OK) << describe_status(st);
}

TEST(Views, ViewsKeepStorageAliveAfterTheBaseIsReleased) {
  ASSERT_OK(ndrt_memory_trim(NDRT_CPU));
  int64_t in_use0 = stats().in_use;
  std::vector<double> v = iota(1000);
  Tensor base = from_values(NDRT_F64, {10, 100}, v);
  int64_t with_base = stats().in_use;
  EXPECT_GE(with_base - in_use0, 8000);
  Tensor view = slice(permute(base, {1, 0}), 0, 99, -101, -3);
  Layout l = Layout::contiguous({10, 100}).permute({1, 0}).slice(0, 99, -101, -3);
  Tensor view2 = reshape(base, {1000});
  base.reset();
  EXPECT_EQ(stats().in_use, with_base) << "storage freed while views live";
  EXPECT_EQ(read_values(view), model_values(l, v));
  view.reset();
  EXPECT_EQ(stats().in_use, with_base);
  EXPECT_EQ(read_values(view2), v);
  view2.reset();
  EXPECT_EQ(stats().in_use, in_use0) << "storage not freed after the last view";
}

TEST(Views, StridedReadsAndWritesOfEveryDtype) {
  std::mt19937 rng(3);
  for (ndrt_dtype d : kAllDtypes)
    for (Kind k : kAllKinds) {
      SCOPED_TRACE(std::string(dtype_str(d)) + " " + kind_str(k));
      Operand o = make_operand(d, {3, 4, 5}, k, default_gen(d), rng);
      EXPECT_EQ(read_values(o.view), o.vals);
      if (k == Kind::Expanded) continue;
      std::vector<double> nv;
      for (size_t i = 0; i < o.vals.size(); ++i) nv.push_back(d == NDRT_BOOL ? double(i % 2) : double(i % 90) + 1);
      write_values(o.view, nv);
      EXPECT_EQ(read_values(o.view), nv);
      std::vector<double> want = o.base_vals;
      std::vector<int64_t> idx = o.layout.indices();
      for (size_t i = 0; i < idx.size(); ++i) want[size_t(idx[i])] = nv[i];
      EXPECT_EQ(read_values(o.base), want);
    }
}

TEST(Views, DescriptionQueries) {
  Tensor t = create(NDRT_BF16, {2, 3, 4});
  EXPECT_EQ(t.dtype(), NDRT_BF16);
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.device(), NDRT_CPU);
  EXPECT_EQ(t.offset(), 0);
  EXPECT_EQ(t.strides(), (Shape{12, 4, 1}));
  int64_t small[2];
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_shape(t.get(), small, 2));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_strides(t.get(), small, 2));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_shape(t.get(), nullptr, 8));
  Tensor s = create(NDRT_F32, {});
  int64_t none[1] = {-7};
  EXPECT_OK(ndrt_tensor_shape(s.get(), none, 1));
  EXPECT_EQ(none[0], -7) << "rank 0 writes no extent";
  EXPECT_EQ(s.numel(), 1);
  Tensor z = create(NDRT_F32, {0, 5});
  EXPECT_EQ(z.numel(), 0);
  EXPECT_TRUE(z.contiguous());
}

}  // namespace

// Shapes whose non-zero extents multiply past 2^59 are refused before any product is formed, even
// when a zero extent makes the element count 0 (the strides of [2^62, 4, 0] do not fit int64).
TEST(Views, ExtentsNextToAZeroAreBoundedLikeAnyShape) {
  const int64_t big = int64_t(1) << 62;
  const Shape huge_with_zero = {big, 4, 0}, fine_with_zero = {int64_t(1) << 40, 0, 7};
  ndrt_handle h = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_create(NDRT_F32, 3, huge_with_zero.data(), NDRT_CPU, &h));
  EXPECT_NE(std::string(ndrt_last_error()).find("too many elements"), std::string::npos) << ndrt_last_error();
  EXPECT_EQ(h, 0);
  ASSERT_OK(ndrt_tensor_create(NDRT_F32, 3, fine_with_zero.data(), NDRT_CPU, &h));
  Tensor ok(h);
  EXPECT_EQ(ok.numel(), 0);
  // The same bound for views: reshape and expand of an empty tensor.
  Tensor empty = create(NDRT_F32, {0});
  Tensor v;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_reshape(empty.get(), 3, huge_with_zero.data(), v.out()));
  Tensor one = create(NDRT_F32, {1, 1, 1});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_expand(one.get(), 3, huge_with_zero.data(), v.out()));
  const Shape two_huge = {big, big, 0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_tensor_expand(one.get(), 3, two_huge.data(), v.out()));
  // And for op outputs whose shape comes from attributes (fill's shape attribute).
  ndrt_handle outs[1] = {0};
  int32_t op = -1;
  ASSERT_OK(ndrt_op_find("fill", &op));
  const int64_t ints[] = {NDRT_F32, 3, big, 4, 0};
  const double floats[] = {1.0};
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, ndrt_exec(op, nullptr, 0, outs, 1, ints, 5, floats, 1));
  EXPECT_EQ(outs[0], 0);
}

// A size-0 allocation has no memory (null data); a view of it at a non-zero offset must never form
// null + offset (undefined behaviour), and ops over it do nothing.
TEST(Views, EmptyViewsAtAnOffsetOfEmptyStorage) {
  Tensor base = create(NDRT_F32, {4, 0});
  Tensor tail = slice(base, 0, 2, 4, 1);
  int64_t off = -1;
  ASSERT_OK(ndrt_tensor_offset(tail.get(), &off));
  EXPECT_GT(off, 0);
  Tensor sum = run("add", {&tail, &tail});
  EXPECT_EQ(sum.shape(), (Shape{2, 0}));
  Tensor c = contiguous(tail);
  EXPECT_EQ(c.numel(), 0);
  EXPECT_EQ(read_bytes(tail).size(), 0u);
}

// Kernels load elements as their type: wrapped memory must be aligned to the element size.
TEST(Views, WrapRefusesMisalignedData) {
  alignas(8) unsigned char buf[64] = {};
  const int64_t shape[] = {4};
  ndrt_handle h = 0;
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT,
                ndrt_tensor_wrap(NDRT_F32, 1, shape, nullptr, buf + 1, 32, nullptr, nullptr, &h));
  EXPECT_NE(std::string(ndrt_last_error()).find("aligned"), std::string::npos) << ndrt_last_error();
  EXPECT_EQ(h, 0);
  ASSERT_OK(ndrt_tensor_wrap(NDRT_U8, 1, shape, nullptr, buf + 1, 32, nullptr, nullptr, &h));  // bytes: any address
  EXPECT_OK(ndrt_tensor_release(h));
  ASSERT_OK(ndrt_tensor_wrap(NDRT_F32, 1, shape, nullptr, buf + 4, 32, nullptr, nullptr, &h));
  EXPECT_OK(ndrt_tensor_release(h));
}
