// fill and copy: every dtype they have kernels for, every layout and output kind.
#include <algorithm>
#include <cmath>

#include "common/ndrt_test.hpp"

using namespace nt;

namespace {

// A value exactly representable in d, not 0, and not the poison pattern.
double fill_value(ndrt_dtype d) {
  switch (d) {
    case NDRT_F32: return 1.25;
    case NDRT_F64: return -3.5;
    case NDRT_F16: return 1.5;
    case NDRT_BF16: return -2.5;
    case NDRT_I8: return -100;
    case NDRT_U8: return 200;
    case NDRT_I32: return -7;
    case NDRT_I64: return 1e12;
    case NDRT_BOOL: return 1;
  }
  return 0;
}

TEST(Fill, KernelsCoverEveryDtype) {
  std::vector<ndrt_dtype> have = cpu_dtypes("fill");
  for (ndrt_dtype d : kAllDtypes)
    EXPECT_NE(std::find(have.begin(), have.end(), d), have.end()) << "fill has no cpu kernel for " << dtype_str(d);
}

TEST(Fill, EveryDtypeShapeAndOutputKind) {
  for (ndrt_dtype d : cpu_dtypes("fill")) {
    const double v = fill_value(d);
    for (const Shape& s : std::vector<Shape>{{3, 5, 7}, {}, {0, 4}, {1}, {2, 1, 3, 1}})
      for (OutKind ok : kAllOutKinds) {
        std::string what = std::string("fill ") + dtype_str(d) + " " + shape_str(s) + ", " + out_kind_str(ok);
        SCOPED_TRACE(what);
        // With a given output its dtype and shape win; the attributes say something else on purpose.
        Attrs a = ok == OutKind::Fresh ? fill_attrs(v, d, s) : fill_attrs(v, d == NDRT_F32 ? NDRT_I8 : NDRT_F32, {9});
        std::vector<double> got = run_out("fill", {}, a, d, s, ok);
        expect_close(got, std::vector<double>(size_t(numel_of(s)), v), d, {0, 0}, what);
      }
  }
}

TEST(Fill, ConvertsTheValueToTheOutputDtype) {
  EXPECT_EQ(read_values(run("fill", {}, fill_attrs(0.5, NDRT_BOOL, {3}))), std::vector<double>(3, 1.0));
  EXPECT_EQ(read_values(run("fill", {}, fill_attrs(-2.0, NDRT_BOOL, {2}))), std::vector<double>(2, 1.0));
  EXPECT_EQ(read_values(run("fill", {}, fill_attrs(0.0, NDRT_BOOL, {2}))), std::vector<double>(2, 0.0));
  EXPECT_EQ(read_values(run("fill", {}, fill_attrs(0.1, NDRT_F32, {1})))[0], double(0.1f));
  EXPECT_EQ(read_values(run("fill", {}, fill_attrs(0.1, NDRT_F64, {1})))[0], 0.1);
  EXPECT_EQ(read_values(run("fill", {}, fill_attrs(1.0 / 3, NDRT_F16, {1})))[0], f16_to_double(f16_from_double(1.0 / 3)));
  std::vector<double> inf = read_values(run("fill", {}, fill_attrs(HUGE_VAL, NDRT_F32, {2})));
  EXPECT_EQ(inf[0], HUGE_VAL);
  std::vector<double> nan = read_values(run("fill", {}, fill_attrs(std::nan(""), NDRT_F64, {2})));
  EXPECT_TRUE(std::isnan(nan[1]));
}

TEST(Fill, DefaultsAndBadAttributes) {
  Tensor t = run("fill", {});  // value 0, f32, rank 0
  EXPECT_EQ(t.dtype(), NDRT_F32);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(read_values(t), std::vector<double>{0.0});
  int64_t live = live_handles();
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("fill", {}, nullptr, fill_attrs(1, NDRT_F32, {2, -1})));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("fill", {}, nullptr, fill_attrs(1, 0, {2})));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("fill", {}, nullptr, fill_attrs(1, 10, {2})));
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("fill", {}, nullptr, fill_attrs(1, NDRT_F32, {1, 1, 1, 1, 1, 1, 1, 1, 1})));
  Attrs two_floats = fill_attrs(1, NDRT_F32, {2});
  two_floats.floats.push_back(2);
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("fill", {}, nullptr, two_floats));
  Tensor x = create(NDRT_F32, {2});
  EXPECT_STATUS(NDRT_ERR_INVALID_ARGUMENT, try_run("fill", {&x}, nullptr, fill_attrs(1, NDRT_F32, {2})));
  EXPECT_EQ(live_handles(), live + 1);
}

TEST(Fill, LargeOutputsAreFullyWritten) {
  Shape s = {513, 1027};
  std::vector<double> got = run_out("fill", {}, fill_attrs(-0.75, NDRT_F32, s), NDRT_F32, s, OutKind::Fresh);
  expect_close(got, std::vector<double>(got.size(), -0.75), NDRT_F32, {0, 0}, "large fill");
  Tensor big = create(NDRT_F64, {1100, 700});
  Tensor view = slice(transpose(big, 0, 1), 0, -1, -701, -1);  // [700,1100], reversed rows, column-major
  run_into("fill", {}, view, fill_attrs(2.5, NDRT_F64, {}));
  std::vector<double> all = read_values(big);
  EXPECT_EQ(std::count(all.begin(), all.end(), 2.5), int64_t(all.size()));
}

TEST(Copy, KernelsCoverEveryDtype) {
  std::vector<ndrt_dtype> have = cpu_dtypes("copy");
  for (ndrt_dtype d : kAllDtypes)
    EXPECT_NE(std::find(have.begin(), have.end(), d), have.end()) << "copy has no cpu kernel for " << dtype_str(d);
}

TEST(Copy, EveryDtypeLayoutAndOutputKind) {
  std::mt19937 rng(8);
  for (ndrt_dtype d : cpu_dtypes("copy"))
    for (const Shape& s : std::vector<Shape>{{3, 5, 7}, {}, {0, 3}, {6, 1, 4}})
      for (Kind k : kAllKinds)
        for (OutKind ok : kAllOutKinds) {
          std::string what = std::string("copy ") + dtype_str(d) + " " + shape_str(s) + " " + kind_str(k) + ", " +
                              out_kind_str(ok);
          SCOPED_TRACE(what);
          Operand x = make_operand(d, s, k, default_gen(d), rng);
          expect_close(run_out("copy", {&x.view}, {}, d, s, ok), x.vals, d, {0, 0}, what);
        }
}

TEST(Copy, LargeStridedCopies) {
  std::mt19937 rng(9);
  for (ndrt_dtype d : {NDRT_F32, NDRT_I8, NDRT_F64}) {
    Operand x = make_operand(d, {257, 1031}, Kind::Permuted, default_gen(d), rng);
    expect_close(run_out("copy", {&x.view}, {}, d, {257, 1031}, OutKind::GivenView), x.vals, d, {0, 0}, "large copy");
  }
}

TEST(Copy, MismatchedOutputsAreRefused) {
  Tensor x = from_values(NDRT_F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor wrong_dtype = create(NDRT_F64, {2, 3});
  EXPECT_STATUS(NDRT_ERR_DTYPE_MISMATCH, try_run("copy", {&x}, &wrong_dtype));
  Tensor wrong_shape = create(NDRT_F32, {3, 2});
  EXPECT_STATUS(NDRT_ERR_SHAPE_MISMATCH, try_run("copy", {&x}, &wrong_shape));
  // Overlapping source and destination: refused, or done as if the source were read first.
  Tensor sq = from_values(NDRT_F32, {2, 2}, {1, 2, 3, 4});
  Tensor sqt = transpose(sq, 0, 1);
  ndrt_status s = try_run("copy", {&sq}, &sqt);
  EXPECT_TRUE(s == NDRT_ERR_INVALID_ARGUMENT || s == NDRT_OK) << describe_status(s);
  if (s == NDRT_OK) {
    EXPECT_EQ(read_values(sq), (std::vector<double>{1, 3, 2, 4}));
  }
}

}  // namespace
