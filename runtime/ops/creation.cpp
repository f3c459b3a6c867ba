// fill, copy, cast; arange, linspace, eye.
#include <cmath>

#include "../error.hpp"
#include "ops.hpp"

namespace ndrt {

namespace {

enum { kFillValue = 0, kFillDtype = 1, kFillShape = 2 };

void infer_fill(OpContext& c) {
  if (c.out[0]) {  // a given output decides shape and dtype
    c.spec[0] = {c.out[0]->dtype, c.out[0]->shape};
  } else {
    const Attrs& a = c.attrs;
    c.spec[0].dtype = a.get_dtype(kFillDtype);
    c.spec[0].shape = make_dims("fill", a.list_size(kFillShape), a.list_data(kFillShape));
  }
  c.key_dtype = c.spec[0].dtype;
}

void infer_same(OpContext& c) { c.spec[0] = {c.in[0]->dtype, c.in[0]->shape}; }

void infer_cast(OpContext& c) { c.spec[0] = {c.attrs.get_dtype(0), c.in[0]->shape}; }

// Generated outputs (arange, linspace, eye): the shape comes from the attributes; the dtype from the
// attribute, or from a given output (as fill). The kernel is keyed by that dtype.
void set_generated(OpContext& c, ndrt_dtype attr_dtype, const Dims& shape) {
  c.spec[0] = {c.out[0] ? c.out[0]->dtype : attr_dtype, shape};
  c.key_dtype = c.spec[0].dtype;
}

// Range of an integer dtype; false for the other dtypes.
bool int_range(ndrt_dtype d, double& lo, double& hi) {
  switch (d) {
    case NDRT_I8: lo = -128, hi = 127; return true;
    case NDRT_U8: lo = 0, hi = 255; return true;
    case NDRT_I32: lo = -2147483648.0, hi = 2147483647.0; return true;
    case NDRT_I64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; return true;  // below 2^63
    default: return false;
  }
}

enum { kArangeStart = 0, kArangeStop = 1, kArangeStep = 2, kArangeDtype = 3 };

void infer_arange(OpContext& c) {
  const Attrs& a = c.attrs;
  double start = a.get_float(kArangeStart), stop = a.get_float(kArangeStop), step = a.get_float(kArangeStep);
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    fail(NDRT_ERR_INVALID_ARGUMENT, "arange: start, stop and step must be finite (got %g, %g, %g)", start, stop, step);
  if (step == 0) fail(NDRT_ERR_INVALID_ARGUMENT, "arange: step is 0");
  double len = std::ceil((stop - start) / step);
  if (!(len < 9.2e18)) fail(NDRT_ERR_INVALID_ARGUMENT, "arange: [%g, %g) in steps of %g has too many elements", start, stop, step);
  int64_t n = len > 0 ? int64_t(len) : 0;
  Dims s = make_dims("arange", 1, &n);
  set_generated(c, a.get_dtype(kArangeDtype), s);
  double lo, hi;
  if (n > 0 && int_range(c.spec[0].dtype, lo, hi)) {
    double last = start + double(n - 1) * step;
    if (start != std::floor(start) || step != std::floor(step))
      fail(NDRT_ERR_INVALID_ARGUMENT, "arange: start %g and step %g must be integers for dtype %s", start, step,
           dtype_name(c.spec[0].dtype));
    if (start < lo || start > hi || last < lo || last > hi)
      fail(NDRT_ERR_INVALID_ARGUMENT, "arange: values %g..%g do not fit dtype %s", start, last,
           dtype_name(c.spec[0].dtype));
  }
}

enum { kLinStart = 0, kLinStop = 1, kLinNum = 2, kLinDtype = 3, kLinEndpoint = 4 };

void infer_linspace(OpContext& c) {
  const Attrs& a = c.attrs;
  double start = a.get_float(kLinStart), stop = a.get_float(kLinStop);
  int64_t num = a.get_int(kLinNum);
  if (!std::isfinite(start) || !std::isfinite(stop))
    fail(NDRT_ERR_INVALID_ARGUMENT, "linspace: start and stop must be finite (got %g, %g)", start, stop);
  if (num < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "linspace: num is %lld, must be >= 0", (long long)num);
  Dims s = make_dims("linspace", 1, &num);
  set_generated(c, a.get_dtype(kLinDtype), s);
  require_float(c, c.spec[0].dtype);
}

enum { kEyeN = 0, kEyeM = 1, kEyeK = 2, kEyeDtype = 3 };

void infer_eye(OpContext& c) {
  const Attrs& a = c.attrs;
  int64_t n = a.get_int(kEyeN), m = a.get_int(kEyeM);
  if (n < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "eye: n is %lld, must be >= 0", (long long)n);
  if (m < -1) fail(NDRT_ERR_INVALID_ARGUMENT, "eye: m is %lld, must be >= 0 (or -1 for m = n)", (long long)m);
  int64_t shape[2] = {n, m == -1 ? n : m};
  set_generated(c, a.get_dtype(kEyeDtype), make_dims("eye", 2, shape));
}

AttrDef required(AttrDef d) {
  d.required = true;
  return d;
}

}  // namespace

void define_creation_ops(Registry& r) {
  r.define({"fill",
            "Every element of y set to `value` (converted to y's dtype; for bool, nonzero is true). "
            "With y given, its shape and dtype are used and the dtype/shape attributes are ignored.",
            {},
            {"y"},
            {attr_float("value", 0.0), attr_dtype("dtype", NDRT_F32), attr_ints("shape", {})},
            infer_fill});
  r.define({"copy", "y = x elementwise; x and y may have any strides (y a view of other storage).", {"x"}, {"y"}, {},
            infer_same});
  r.define({"cast",
            "y = x converted to `dtype`. Floats to integers truncate toward zero (out-of-range values are "
            "undefined as in C); to f16/bf16 rounds to nearest even; to bool is x != 0.",
            {"x"},
            {"y"},
            {attr_dtype("dtype", 0)},
            infer_cast});
  r.define({"arange",
            "y[i] = start + i * step for i in [0, n), n = max(0, ceil((stop - start) / step)): the numbers from "
            "start up to (not including) stop, as numpy.arange. Each value is computed in f64 then converted to "
            "`dtype` (f16/bf16 round to nearest even). Integer dtypes need integral start and step and values "
            "that fit the dtype. With y given, its dtype is used (the dtype attribute is ignored) and its shape "
            "must be [n]. Errors: step 0, non-finite start/stop/step.",
            {},
            {"y"},
            {attr_float("start", 0.0), attr_float("stop", 0.0), attr_float("step", 1.0), attr_dtype("dtype", NDRT_F32)},
            infer_arange});
  r.define({"linspace",
            "y = `num` evenly spaced numbers from start to stop, stop included when `endpoint` (then "
            "step = (stop - start) / (num - 1), else (stop - start) / num), as numpy.linspace. Computed in f64 "
            "from both ends (y[i] = start + i * step in the first half, stop - (num - 1 - i) * step in the "
            "second) so y[0] == start and, with endpoint, y[num-1] == stop exactly; then rounded to `dtype` "
            "(floating-point dtypes). num = 1 gives [start]. With y given, its dtype is used and its shape must "
            "be [num].",
            {},
            {"y"},
            {attr_float("start", 0.0), attr_float("stop", 1.0), required(attr_int("num", 0)),
             attr_dtype("dtype", NDRT_F32), attr_bool("endpoint", true)},
            infer_linspace});
  r.define({"eye",
            "y = the [n, m] matrix with ones on diagonal k and zeros elsewhere: y[i][j] = (j - i == k). k = 0 is "
            "the main diagonal, k > 0 above it, k < 0 below (numpy.eye). m = -1 means m = n. Every dtype (bool: "
            "true on the diagonal). With y given, its dtype is used and its shape must be [n, m].",
            {},
            {"y"},
            {required(attr_int("n", 0)), attr_int("m", -1), attr_int("k", 0), attr_dtype("dtype", NDRT_F32)},
            infer_eye});
}

}  // namespace ndrt
