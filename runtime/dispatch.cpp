// ndrt_exec: validate, infer, allocate missing outputs, pick the kernel by table index, run.
// With given outputs this path does no heap allocation and no string work (unless profiling).
#include <cstring>
#include <thread>

#include "config.hpp"
#include "device.hpp"
#include "error.hpp"
#include "fp_mode.hpp"
#include "handles.hpp"
#include "profiler.hpp"
#include "registry.hpp"

namespace ndrt {

namespace {

void decode_attrs(const OpDef& op, Attrs& a, const int64_t* ints, int32_t n_ints, const double* floats,
                  int32_t n_floats) {
  if ((n_ints > 0 && !ints) || (n_floats > 0 && !floats))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute array is NULL with a nonzero count", op.name);
  if (n_ints < 0 || n_floats < 0) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: negative attribute count", op.name);
  int32_t ii = 0, fi = 0;
  a.list_used = 0;
  for (size_t k = 0; k < op.attrs.size(); ++k) {
    const AttrDef& d = op.attrs[k];
    if (d.type == AttrType::Float) {
      a.f[k] = fi < n_floats ? floats[fi++] : d.f;
      continue;
    }
    bool given = ii < n_ints;
    if (!given && d.required) fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' is required", op.name, d.name);
    if (d.type != AttrType::Ints) {
      int64_t v = given ? ints[ii++] : d.i;
      if (d.type == AttrType::Bool && v != 0 && v != 1)
        fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' is a bool, got %lld", op.name, d.name, (long long)v);
      if (d.type == AttrType::DType && !dtype_valid(ndrt_dtype(v)))
        fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' is not a valid dtype (%lld)", op.name, d.name, (long long)v);
      a.i[k] = v;
      continue;
    }
    const int64_t* src = d.ints.data();
    int64_t n = int64_t(d.ints.size());
    if (given) {
      n = ints[ii++];
      if (n < 0 || n > n_ints - ii)
        fail(NDRT_ERR_INVALID_ARGUMENT, "%s: attribute '%s' announces %lld values but %d remain", op.name, d.name,
             (long long)n, int(n_ints - ii));
      src = ints + ii;
      ii += int32_t(n);
    }
    if (a.list_used + n > kMaxListValues)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: list attributes hold more than %d values", op.name, kMaxListValues);
    a.list_begin[k] = a.list_used;
    a.list_len[k] = int32_t(n);
    if (n) std::memcpy(a.list + a.list_used, src, size_t(n) * sizeof(int64_t));
    a.list_used += int32_t(n);
  }
  if (ii != n_ints || fi != n_floats)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %d int and %d float attribute values given, %d and %d used (see ndrt_op_describe)",
         op.name, int(n_ints), int(n_floats), int(ii), int(fi));
}

// Outputs the caller gives must be writable views of exactly the inferred shape and dtype.
void check_given_output(const OpContext& c, int i) {
  const Tensor& t = *c.out[i];
  const OutSpec& s = c.spec[i];
  if (t.dtype != s.dtype)
    fail(NDRT_ERR_DTYPE_MISMATCH, "%s: output %d has dtype %s, the op produces %s", c.op->name, i,
         dtype_name(t.dtype), dtype_name(s.dtype));
  if (t.shape != s.shape)
    fail(NDRT_ERR_SHAPE_MISMATCH, "%s: output %d has shape %s, the op produces %s", c.op->name, i,
         t.shape.str().c_str(), s.shape.str().c_str());
  for (int d = 0; d < t.rank(); ++d)
    if (t.strides.d[d] == 0 && t.shape.d[d] > 1)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: output %d is a broadcast view (stride 0 on axis %d) and cannot be written",
           c.op->name, i, d);
  for (int j = 0; j < c.n_in; ++j) {
    const Tensor& x = *c.in[j];
    if (!x.overlaps(t)) continue;
    if (!(c.op->inplace && x.same_view(t)))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: output %d shares memory with input %d%s", c.op->name, i, j,
           c.op->inplace ? " but is not the same view" : " and the op does not run in place");
  }
  // Two given outputs on the same bytes would overwrite each other.
  for (int q = 0; q < i; ++q)
    if (c.out[q] && c.out[q]->overlaps(t))
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: outputs %d and %d share memory", c.op->name, q, i);
}

std::string shapes_of(const OpContext& c) {
  std::string s;
  for (int i = 0; i < c.n_in; ++i) s += (i ? "," : "") + c.in[i]->shape.str();
  s += " -> ";
  for (int i = 0; i < c.n_out; ++i) s += (i ? "," : "") + c.out[i]->shape.str();
  return s;
}

void run_kernel(OpContext& c) {
  Backend b = backend_of(c.device);
  KernelFn k = c.key_dtype > 0 && c.key_dtype < kNumDtypes ? c.op->kernels[b][c.key_dtype] : nullptr;
  if (!k) {
    std::string have;
    for (int d = 1; d < kNumDtypes; ++d)
      if (c.op->kernels[b][d]) have += std::string(have.empty() ? "" : ", ") + dtype_name(d);
    fail(NDRT_ERR_NOT_SUPPORTED, "%s: no %s kernel for dtype %s (%s has: %s)", c.op->name, backend_name(b),
         dtype_name(c.key_dtype), backend_name(b), have.empty() ? "none" : have.c_str());
  }
  c.impl = c.op->impl[b][c.key_dtype];
  // Off (the default), dispatch does not touch the floating-point mode at all.
  const bool flush = b == kCpu && config().cpu_flush_denormals.load(std::memory_order_relaxed);
  FpModeScope fp(flush, kFlushDenormalBits);
  if (__builtin_expect(!profiler_enabled(), 1)) {
    k(c);
    return;
  }
  int64_t t0 = profiler_now_ns();
  k(c);
  int64_t t1 = profiler_now_ns();
  profiler_record({c.op->name, backend_name(b), c.impl, dtype_name(c.key_dtype), shapes_of(c), t0, t1 - t0,
                   profiler_thread_id()});
}

// Unpins on scope exit whatever was pinned.
struct PinSet {
  ndrt_handle h[kMaxInputs + kMaxOutputs];
  int n = 0;
  Tensor* pin(ndrt_handle handle, const char* what) {
    Tensor* t = handles().pin(handle, what);
    h[n++] = handle;
    return t;
  }
  ~PinSet() {
    for (int i = 0; i < n; ++i) handles().unpin(h[i]);
  }
};

}  // namespace

void exec(int32_t op_id, const ndrt_handle* inputs, int32_t n_in, ndrt_handle* outputs, int32_t n_out,
          const int64_t* ints, int32_t n_ints, const double* floats, int32_t n_floats) {
  const Registry& reg = registry();
  if (op_id < 0 || op_id >= reg.count())
    fail(NDRT_ERR_UNKNOWN_OP, "exec: op id %d is not registered (0..%d)", int(op_id), int(reg.count() - 1));
  const OpDef& op = reg.get(op_id);
  int32_t want_in = int32_t(op.inputs.size()), min_in = want_in - op.optional_inputs;
  bool arity_ok = op.variadic ? (n_in >= want_in && n_in <= kMaxInputs) : (n_in >= min_in && n_in <= want_in);
  if (!arity_ok || n_out != int32_t(op.outputs.size())) {
    if (min_in < want_in || op.variadic)  // trailing optional inputs, or up to kMaxInputs
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: takes %d to %d input(s) and %d output(s), got %d and %d", op.name,
           int(min_in), int(op.variadic ? kMaxInputs : want_in), int(op.outputs.size()), int(n_in), int(n_out));
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: takes %d input(s) and %d output(s), got %d and %d", op.name, int(want_in),
         int(op.outputs.size()), int(n_in), int(n_out));
  }
  if ((n_in > 0 && !inputs) || (n_out > 0 && !outputs))
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: input or output handle array is NULL", op.name);

  OpContext c;
  c.op = &op;
  c.n_in = n_in;
  c.n_out = n_out;
  decode_attrs(op, c.attrs, ints, n_ints, floats, n_floats);
  c.device = thread_device();

  PinSet pins;
  for (int i = 0; i < n_in; ++i) {
    c.in[i] = pins.pin(inputs[i], op.name);
    if (c.in[i]->device() != c.device)
      fail(NDRT_ERR_DEVICE_MISMATCH, "%s: input %d lives on %s but this thread runs on %s (move it with to_device)",
           op.name, i, device_name(c.in[i]->device()).c_str(), device_name(c.device).c_str());
  }
  for (int i = 0; i < n_out; ++i) {
    c.out[i] = outputs[i] ? pins.pin(outputs[i], op.name) : nullptr;
    if (c.out[i] && c.out[i]->device() != c.device)
      fail(NDRT_ERR_DEVICE_MISMATCH, "%s: output %d lives on %s but this thread runs on %s", op.name, i,
           device_name(c.out[i]->device()).c_str(), device_name(c.device).c_str());
  }
  c.key_dtype = n_in > 0 ? c.in[0]->dtype : 0;
  op.infer(c);

  Tensor fresh[kMaxOutputs];
  for (int i = 0; i < n_out; ++i) {
    if (c.out[i]) {
      check_given_output(c, i);
    } else {
      fresh[i] = alloc_tensor(c.spec[i].dtype, c.spec[i].shape, c.device);
      c.out[i] = &fresh[i];
    }
  }
  run_kernel(c);

  // Hand the new outputs out; if that fails half-way, take back the ones already handed out.
  int handed = 0;
  try {
    for (int i = 0; i < n_out; ++i)
      if (!outputs[i]) {
        outputs[i] = handles().insert(std::move(fresh[i]));
        ++handed;
      }
  } catch (...) {
    for (int i = 0; i < n_out && handed > 0; ++i)
      if (outputs[i] && c.out[i] == &fresh[i]) {
        handles().release(outputs[i]);
        outputs[i] = 0;
        --handed;
      }
    throw;
  }
}

namespace {
// run_internal's body: out == null allocates the output from inference.
Tensor run_internal_impl(const char* name, std::initializer_list<Tensor*> inputs, const int64_t* ints, int32_t n_ints,
                         Tensor* given) {
  const Registry& reg = registry();
  int32_t id = reg.find(name);
  if (id < 0) fail(NDRT_ERR_INTERNAL, "internal op '%s' missing", name);
  const OpDef& op = reg.get(id);
  OpContext c;
  c.op = &op;
  c.n_in = int32_t(inputs.size());
  c.n_out = 1;
  int i = 0;
  for (Tensor* t : inputs) c.in[i++] = t;
  decode_attrs(op, c.attrs, ints, n_ints, nullptr, 0);
  c.device = c.in[0]->device();
  c.out[0] = given;
  c.key_dtype = c.in[0]->dtype;
  op.infer(c);
  Tensor out;
  if (given) {
    check_given_output(c, 0);
  } else {
    out = alloc_tensor(c.spec[0].dtype, c.spec[0].shape, c.device);
    c.out[0] = &out;
  }
  run_kernel(c);
  return out;
}
}  // namespace

Tensor run_internal(const char* name, std::initializer_list<Tensor*> inputs, const int64_t* ints, int32_t n_ints) {
  return run_internal_impl(name, inputs, ints, n_ints, nullptr);
}

void run_internal_into(const char* name, std::initializer_list<Tensor*> inputs, const int64_t* ints, int32_t n_ints,
                       Tensor& out) {
  run_internal_impl(name, inputs, ints, n_ints, &out);
}

}  // namespace ndrt
