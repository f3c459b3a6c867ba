// Op registry. An op is defined once (runtime/ops/*.cpp: name, doc, inputs (trailing ones may be
// optional), outputs, attributes with defaults, shape/dtype inference) and gets kernels per
// backend x dtype from kernels/<backend>/.
// Ops are numbered in registration order; ndrt_exec indexes the table by that number.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tensor.hpp"

namespace ndrt {

enum Backend : int32_t { kCpu = 0, kCuda = 1, kNumBackends = 2 };
inline Backend backend_of(ndrt_device d) { return NDRT_DEVICE_TYPE_OF(d) == NDRT_DEVICE_TYPE_CUDA ? kCuda : kCpu; }
const char* backend_name(Backend b);

constexpr int kMaxInputs = 64;   // variadic ops (concat) take up to this many
constexpr int kMaxOutputs = 8;
constexpr int kMaxAttrs = 16;
constexpr int kMaxListValues = 64;  // all list attributes of one call together
constexpr int kNumDtypes = NDRT_BOOL + 1;

enum class AttrType : int32_t { Int, Float, Bool, DType, Ints };

struct AttrDef {
  const char* name;
  AttrType type;
  int64_t i = 0;               // default for Int, Bool, DType
  double f = 0;                // default for Float
  std::vector<int64_t> ints;   // default for Ints
  bool required = false;       // no default: the caller must give it
};
// Short constructors for op definitions.
AttrDef attr_int(const char* name, int64_t def);
AttrDef attr_float(const char* name, double def);
AttrDef attr_bool(const char* name, bool def);
AttrDef attr_dtype(const char* name, ndrt_dtype def);  // def 0: required
AttrDef attr_ints(const char* name, std::vector<int64_t> def);

// Decoded attribute values of one call, in fixed storage (no heap on the dispatch path).
struct Attrs {
  int64_t i[kMaxAttrs];
  double f[kMaxAttrs];
  int32_t list_begin[kMaxAttrs], list_len[kMaxAttrs];
  int64_t list[kMaxListValues];
  int32_t list_used = 0;
  int64_t get_int(int k) const { return i[k]; }
  bool get_bool(int k) const { return i[k] != 0; }
  ndrt_dtype get_dtype(int k) const { return ndrt_dtype(i[k]); }
  double get_float(int k) const { return f[k]; }
  int32_t list_size(int k) const { return list_len[k]; }
  const int64_t* list_data(int k) const { return list + list_begin[k]; }
};

struct OpDef;

struct OutSpec {
  ndrt_dtype dtype = 0;
  Dims shape;
};

// Everything a shape function and a kernel see of one call.
struct OpContext {
  const OpDef* op = nullptr;
  ndrt_device device = NDRT_CPU;
  int32_t n_in = 0, n_out = 0;
  Tensor* in[kMaxInputs];
  // During inference: the caller's given outputs, or null. During the kernel: every output.
  Tensor* out[kMaxOutputs];
  OutSpec spec[kMaxOutputs];  // set by inference
  ndrt_dtype key_dtype = 0;   // selects the kernel; inference sets it (default: input 0's dtype)
  Attrs attrs;
  const char* impl = nullptr;  // kernels name the implementation that ran, for the profiler
};

using InferFn = void (*)(OpContext&);
using KernelFn = void (*)(OpContext&);

struct OpDef {
  const char* name;
  const char* doc;
  std::vector<const char*> inputs;
  std::vector<const char*> outputs;
  std::vector<AttrDef> attrs;
  InferFn infer = nullptr;
  bool variadic = false;  // the last input takes one or more tensors
  bool inplace = false;   // an output may be the very same view as an input
  // The last `optional_inputs` inputs may be left out (from the end: a caller gives a prefix of
  // them); the shape function and kernels see c.n_in. Not with variadic.
  int32_t optional_inputs = 0;
  KernelFn kernels[kNumBackends][kNumDtypes] = {};
  const char* impl[kNumBackends][kNumDtypes] = {};
};

class Registry {
 public:
  // Defines an op; its id is its position.
  OpDef& define(OpDef def);
  // Registers a kernel for each listed dtype; `impl` names the implementation for the profiler.
  void kernel(const char* op, Backend b, std::initializer_list<ndrt_dtype> dtypes, KernelFn fn, const char* impl);
  int32_t find(const char* name) const;  // -1 if absent
  int32_t count() const { return int32_t(ops_.size()); }
  const OpDef& get(int32_t id) const { return *ops_[size_t(id)]; }
  OpDef& get_mut(int32_t id) { return *ops_[size_t(id)]; }
  std::string describe(int32_t id) const;

 private:
  std::vector<OpDef*> ops_;  // stable addresses
};

// The process registry, built (all op definitions and cpu kernels) on first use.
const Registry& registry();

// Runs one op (ndrt_exec's body).
void exec(int32_t op_id, const ndrt_handle* inputs, int32_t n_in, ndrt_handle* outputs, int32_t n_out,
          const int64_t* ints, int32_t n_ints, const double* floats, int32_t n_floats);

// Runs an op by name on tensors held by the runtime itself (tensor API helpers such as cast).
// `out` is allocated from inference.
Tensor run_internal(const char* op, std::initializer_list<Tensor*> inputs, const int64_t* ints, int32_t n_ints);
// The same into a given output (checked as ndrt_exec checks given outputs).
void run_internal_into(const char* op, std::initializer_list<Tensor*> inputs, const int64_t* ints, int32_t n_ints,
                       Tensor& out);

}  // namespace ndrt
