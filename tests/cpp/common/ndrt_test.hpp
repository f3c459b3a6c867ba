// Shared helpers for the GoogleTest suite. Everything here goes through the public C ABI
// (include/ndrt/ndrt.h) except the small-float reference, which is the test's own, independent of
// the runtime's Half/BFloat16.
//
// Conventions:
//  - nt::Tensor owns one handle and releases it (checking the status) when it dies.
//  - Helpers that cannot return a gtest assertion throw nt::Failure; gtest reports an exception
//    thrown in a test body as a failure with its message, so a helper failing ends the test.
//  - Values travel as std::vector<double> in row-major order of the logical shape; every dtype
//    the tests use is exactly representable in double (i64 values stay below 2^53).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/small_float.hpp"
#include "ndrt/ndrt.h"

namespace nt {

using Shape = std::vector<int64_t>;

// ---------------------------------------------------------------------------------------------
// Status checking
// ---------------------------------------------------------------------------------------------
struct Failure : std::runtime_error {
  ndrt_status status;
  Failure(ndrt_status s, const std::string& m) : std::runtime_error(m), status(s) {}
};

std::string describe_status(ndrt_status s);  // "NDRT_ERR_X (message)"
void check(ndrt_status s, const char* expr, const char* file, int line);

#define NT_CHECK(expr) ::nt::check((expr), #expr, __FILE__, __LINE__)

#define EXPECT_STATUS(expected, expr)                                                            \
  do {                                                                                           \
    ndrt_status nt_s_ = (expr);                                                                  \
    EXPECT_EQ((ndrt_status)(expected), nt_s_)                                                    \
        << #expr << " returned " << ::nt::describe_status(nt_s_) << ", expected "                \
        << ndrt_status_name(expected);                                                           \
  } while (0)
#define ASSERT_STATUS(expected, expr)                                                            \
  do {                                                                                           \
    ndrt_status nt_s_ = (expr);                                                                  \
    ASSERT_EQ((ndrt_status)(expected), nt_s_)                                                    \
        << #expr << " returned " << ::nt::describe_status(nt_s_) << ", expected "                \
        << ndrt_status_name(expected);                                                           \
  } while (0)
#define EXPECT_OK(expr) EXPECT_STATUS(NDRT_OK, expr)
#define ASSERT_OK(expr) ASSERT_STATUS(NDRT_OK, expr)

// ---------------------------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------------------------
size_t itemsize(ndrt_dtype d);
const char* dtype_str(ndrt_dtype d);
inline bool is_float(ndrt_dtype d) { return d == NDRT_F32 || d == NDRT_F64 || d == NDRT_F16 || d == NDRT_BF16; }
inline bool is_int(ndrt_dtype d) { return d == NDRT_I8 || d == NDRT_U8 || d == NDRT_I32 || d == NDRT_I64; }
extern const ndrt_dtype kAllDtypes[9];

// True when v is exactly representable in d (bool: 0 or 1).
bool representable(double v, ndrt_dtype d);

// Encode/decode one element. Integers: v must be integral and in range. Bool decodes the raw byte
// (so a poisoned bool shows up as 90, not 1).
void encode(ndrt_dtype d, double v, void* dst);
double decode(ndrt_dtype d, const void* src);
std::vector<uint8_t> encode_all(ndrt_dtype d, const std::vector<double>& v);
std::vector<double> decode_all(ndrt_dtype d, const std::vector<uint8_t>& bytes);

// Poison: NaN for floats, bytes 0x5A for everything else (i32 0x5A5A5A5A ...).
void poison_element(ndrt_dtype d, void* dst);
std::vector<uint8_t> poison_bytes(ndrt_dtype d, int64_t n);
bool is_poison(ndrt_dtype d, const void* src);

int64_t numel_of(const Shape& s);
std::string shape_str(const Shape& s);

// ---------------------------------------------------------------------------------------------
// Tensor handle (RAII)
// ---------------------------------------------------------------------------------------------
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(ndrt_handle h) : h_(h) {}
  Tensor(Tensor&& o) noexcept : h_(o.h_) { o.h_ = 0; }
  Tensor& operator=(Tensor&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = o.h_;
      o.h_ = 0;
    }
    return *this;
  }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() { reset(); }

  ndrt_handle get() const { return h_; }
  // For C calls that produce a handle: releases the current one, returns the slot to write.
  ndrt_handle* out() {
    reset();
    return &h_;
  }
  ndrt_handle take() {
    ndrt_handle h = h_;
    h_ = 0;
    return h;
  }
  void reset();
  explicit operator bool() const { return h_ != 0; }

  ndrt_dtype dtype() const;
  int32_t rank() const;
  Shape shape() const;
  Shape strides() const;
  int64_t offset() const;
  int64_t numel() const;
  ndrt_device device() const;
  bool contiguous() const;
  void* data_ptr() const;

 private:
  ndrt_handle h_ = 0;
};

// Creation and transfer.
Tensor create(ndrt_dtype d, const Shape& s, ndrt_device dev = NDRT_DEVICE_CURRENT);
Tensor from_bytes(ndrt_dtype d, const Shape& s, const void* data, size_t nbytes,
                  ndrt_device dev = NDRT_DEVICE_CURRENT);
Tensor from_values(ndrt_dtype d, const Shape& s, const std::vector<double>& v,
                   ndrt_device dev = NDRT_DEVICE_CURRENT);
std::vector<uint8_t> read_bytes(const Tensor& t);
std::vector<double> read_values(const Tensor& t);
void write_values(const Tensor& t, const std::vector<double>& v);
void write_bytes(const Tensor& t, const std::vector<uint8_t>& b);

// Views and copies (throw on failure).
Tensor retain(const Tensor& t);
Tensor reshape(const Tensor& t, const Shape& s);
Tensor permute(const Tensor& t, const std::vector<int32_t>& perm);
Tensor transpose(const Tensor& t, int32_t a, int32_t b);
Tensor slice(const Tensor& t, int32_t axis, int64_t start, int64_t stop, int64_t step);
Tensor expand(const Tensor& t, const Shape& s);
Tensor contiguous(const Tensor& t);
Tensor cast(const Tensor& t, ndrt_dtype d);

// ---------------------------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------------------------
int32_t op_id(const char* name);  // throws when absent
std::string op_describe(const char* name);
// dtypes with a cpu kernel, from ndrt_op_describe's "kernels":{"cpu":[...]}.
std::vector<ndrt_dtype> cpu_dtypes(const char* name);

bool has_cpu_kernel(const char* op, ndrt_dtype d);

// In a test body: fails when `op` lacks a cpu kernel for `d` and `required`, skips when it lacks
// one otherwise (dtypes beyond the documented minimum are tested where the build has them).
#define NT_REQUIRE_KERNEL_OR_SKIP(op, d, required)                                                      \
  do {                                                                                                  \
    if (!::nt::has_cpu_kernel((op), (d))) {                                                             \
      if (required) FAIL() << (op) << " has no cpu kernel for " << ::nt::dtype_str(d);                  \
      GTEST_SKIP() << (op) << " has no cpu kernel for " << ::nt::dtype_str(d) << " in this build";      \
    }                                                                                                   \
  } while (0)

struct Attrs {
  std::vector<int64_t> ints;
  std::vector<double> floats;
};

// Raw exec: outputs given (0 = runtime allocates; the new handle is written back).
ndrt_status exec(const char* op, const std::vector<ndrt_handle>& in, std::vector<ndrt_handle>& out,
                 const Attrs& a = {});
// One-output op, runtime-allocated output; throws on failure.
Tensor run(const char* op, const std::vector<const Tensor*>& in, const Attrs& a = {});
// One-output op into a given output; throws on failure.
void run_into(const char* op, const std::vector<const Tensor*>& in, const Tensor& out, const Attrs& a = {});
// Same, returning the status.
ndrt_status try_run(const char* op, const std::vector<const Tensor*>& in, Tensor* out, const Attrs& a = {});

// Attribute encoders.
inline Attrs reduce_attrs(const std::vector<int64_t>& axes, bool keepdims) {
  Attrs a;
  a.ints.push_back(int64_t(axes.size()));
  a.ints.insert(a.ints.end(), axes.begin(), axes.end());
  a.ints.push_back(keepdims ? 1 : 0);
  return a;
}
inline Attrs fill_attrs(double value, ndrt_dtype d, const Shape& s) {
  Attrs a;
  a.floats.push_back(value);
  a.ints.push_back(d);
  a.ints.push_back(int64_t(s.size()));
  a.ints.insert(a.ints.end(), s.begin(), s.end());
  return a;
}

// ---------------------------------------------------------------------------------------------
// Host-side model of a strided view (the test's reference for views)
// ---------------------------------------------------------------------------------------------
struct Layout {
  Shape shape, strides;
  int64_t offset = 0;
  static Layout contiguous(const Shape& s);
  int64_t numel() const { return numel_of(shape); }
  // Base element index of each logical element, in row-major order.
  std::vector<int64_t> indices() const;
  Layout permute(const std::vector<int32_t>& perm) const;
  Layout slice(int32_t axis, int64_t start, int64_t stop, int64_t step) const;  // Python semantics
  Layout expand(const Shape& s) const;                                         // numpy rules
};

// Compares a runtime view's shape/strides/offset with the model (offset only when numel > 0).
void expect_layout(const Tensor& t, const Layout& l, const std::string& what);

// ---------------------------------------------------------------------------------------------
// Operands: a tensor in some memory layout plus its logical values
// ---------------------------------------------------------------------------------------------
enum class Kind { Contig, Permuted, Strided, Expanded, Offset };
const char* kind_str(Kind k);
constexpr Kind kAllKinds[] = {Kind::Contig, Kind::Permuted, Kind::Strided, Kind::Expanded, Kind::Offset};

using Gen = std::function<double(std::mt19937&)>;
// Values never 0: uniform in [lo, hi] with |x| >= min_abs, rounded to d (floats) or integral (ints).
Gen uniform_gen(ndrt_dtype d, double lo, double hi, double min_abs = 0.0);
Gen default_gen(ndrt_dtype d);  // floats [-2,2] with |x| >= 0.05; ints [-50,50] nonzero

struct Operand {
  ndrt_dtype dtype = 0;
  Tensor base, view;
  Layout layout;                  // view layout in base
  std::vector<double> base_vals;  // base contents
  std::vector<double> vals;       // logical contents of the view, row-major
};
// Builds a tensor of logical shape `s` laid out as `k`:
//  Contig: a plain tensor. Permuted: a base with reversed axes, permuted back (column-major).
//  Strided: every axis sliced with step 2, axis 0 with step -2 (reversed).
//  Expanded: even-numbered axes come from a size-1 base axis (stride 0).
//  Offset: axis 0 sliced from 1 (contiguous with a nonzero offset).
Operand make_operand(ndrt_dtype d, const Shape& s, Kind k, const Gen& gen, std::mt19937& rng);

// ---------------------------------------------------------------------------------------------
// Outputs: runtime-allocated, given, or given as a non-contiguous view of a bigger tensor
// ---------------------------------------------------------------------------------------------
enum class OutKind { Fresh, Given, GivenView };
const char* out_kind_str(OutKind k);
constexpr OutKind kAllOutKinds[] = {OutKind::Fresh, OutKind::Given, OutKind::GivenView};

// Runs a one-output op with the output of kind `k` (poisoned before the run) and returns the
// output's logical values. For GivenView it also checks that no element of the bigger tensor
// outside the view changed, and that reading the view directly agrees with the base.
// Failures are reported with ADD_FAILURE; throws when the op itself fails.
std::vector<double> run_out(const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                            ndrt_dtype out_dtype, const Shape& out_shape, OutKind k);

// Fills the size-class cache with a poisoned chunk of exactly the size a fresh output of
// (d, s) will take, so an element the kernel forgets to write is caught.
void poison_cache(ndrt_dtype d, const Shape& s);

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------
struct Tol {
  double rtol = 0, atol = 0;
};
Tol default_tol(ndrt_dtype d);
// got vs want; element i passes when |got-want| <= atol + rtol*|want| (+ extra[i] when given).
// NaN wants NaN; ints (tol 0) must match exactly; a poisoned element always fails.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, ndrt_dtype d, Tol tol,
                  const std::string& what, const std::vector<double>* extra = nullptr);

// Row-major helpers.
Shape strides_of(const Shape& s);
std::vector<int64_t> unravel(int64_t flat, const Shape& s);
// numpy broadcast of two shapes (throws Failure when they do not broadcast).
Shape broadcast(const Shape& a, const Shape& b);
// Index into a tensor of shape `src` broadcast to `dst` for the dst multi-index `idx`.
int64_t broadcast_index(const std::vector<int64_t>& idx, const Shape& dst, const Shape& src);
// Row-major values of `vals` (shape `src`) broadcast to `dst`.
std::vector<double> broadcast_values(const std::vector<double>& vals, const Shape& src, const Shape& dst);

// Memory stats of a device (throws).
ndrt_memory_stats stats(ndrt_device dev = NDRT_CPU);
int64_t live_handles();

}  // namespace nt
