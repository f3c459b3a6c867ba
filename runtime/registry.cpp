#include "registry.hpp"

#include <cstring>

#include "config.hpp"
#include "cuda_backend.hpp"
#include "error.hpp"
#include "ops/ops.hpp"

namespace ndrt {

const char* backend_name(Backend b) { return b == kCuda ? "cuda" : "cpu"; }

AttrDef attr_int(const char* name, int64_t def) { return {name, AttrType::Int, def, 0, {}, false}; }
AttrDef attr_float(const char* name, double def) { return {name, AttrType::Float, 0, def, {}, false}; }
AttrDef attr_bool(const char* name, bool def) { return {name, AttrType::Bool, def ? 1 : 0, 0, {}, false}; }
AttrDef attr_dtype(const char* name, ndrt_dtype def) { return {name, AttrType::DType, def, 0, {}, def == 0}; }
AttrDef attr_ints(const char* name, std::vector<int64_t> def) { return {name, AttrType::Ints, 0, 0, std::move(def), false}; }

OpDef& Registry::define(OpDef def) {
  if (find(def.name) >= 0) fail(NDRT_ERR_INTERNAL, "op '%s' defined twice", def.name);
  if (def.inputs.size() > size_t(kMaxInputs) || def.outputs.size() > size_t(kMaxOutputs) ||
      def.attrs.size() > size_t(kMaxAttrs) || !def.infer)
    fail(NDRT_ERR_INTERNAL, "op '%s' definition exceeds the registry's limits", def.name);
  ops_.push_back(new OpDef(std::move(def)));
  return *ops_.back();
}

void Registry::kernel(const char* op, Backend b, std::initializer_list<ndrt_dtype> dtypes, KernelFn fn,
                      const char* impl) {
  int32_t id = find(op);
  if (id < 0) fail(NDRT_ERR_INTERNAL, "kernel for undefined op '%s'", op);
  for (ndrt_dtype d : dtypes) {
    ops_[size_t(id)]->kernels[b][d] = fn;
    ops_[size_t(id)]->impl[b][d] = impl;
  }
}

int32_t Registry::find(const char* name) const {
  for (size_t i = 0; i < ops_.size(); ++i)
    if (std::strcmp(ops_[i]->name, name) == 0) return int32_t(i);
  return -1;
}

namespace {

void json_string(std::string& o, const char* s) {
  o += '"';
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') o += '\\';
    if (*s == '\n') {
      o += "\\n";
      continue;
    }
    o += *s;
  }
  o += '"';
}

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::Int: return "int";
    case AttrType::Float: return "float";
    case AttrType::Bool: return "bool";
    case AttrType::DType: return "dtype";
    case AttrType::Ints: return "ints";
  }
  return "?";
}

}  // namespace

std::string Registry::describe(int32_t id) const {
  const OpDef& op = get(id);
  std::string o = "{\"id\":" + std::to_string(id) + ",\"name\":";
  json_string(o, op.name);
  o += ",\"doc\":";
  json_string(o, op.doc);
  // Entries from `first_optional` on are marked "optional":true (trailing optional inputs).
  auto names = [&](const char* key, const std::vector<const char*>& v, size_t first_optional) {
    o += ",\"";
    o += key;
    o += "\":[";
    for (size_t i = 0; i < v.size(); ++i) {
      o += i ? ",{\"name\":" : "{\"name\":";
      json_string(o, v[i]);
      if (i >= first_optional) o += ",\"optional\":true";
      o += "}";
    }
    o += "]";
  };
  names("inputs", op.inputs, op.inputs.size() - size_t(op.optional_inputs));
  names("outputs", op.outputs, op.outputs.size());
  o += std::string(",\"variadic\":") + (op.variadic ? "true" : "false");
  o += std::string(",\"inplace\":") + (op.inplace ? "true" : "false");
  o += ",\"attrs\":[";
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    const AttrDef& a = op.attrs[i];
    o += i ? ",{\"name\":" : "{\"name\":";
    json_string(o, a.name);
    o += ",\"type\":\"";
    o += attr_type_name(a.type);
    o += "\"";
    if (a.required) {
      o += ",\"required\":true";
    } else {
      o += ",\"default\":";
      switch (a.type) {
        case AttrType::Int: o += std::to_string(a.i); break;
        case AttrType::Bool: o += a.i ? "true" : "false"; break;
        case AttrType::DType: o += std::string("\"") + dtype_name(ndrt_dtype(a.i)) + "\""; break;
        case AttrType::Float: {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.17g", a.f);
          o += buf;
          break;
        }
        case AttrType::Ints:
          o += "[";
          for (size_t j = 0; j < a.ints.size(); ++j) o += (j ? "," : "") + std::to_string(a.ints[j]);
          o += "]";
          break;
      }
    }
    o += "}";
  }
  o += "],\"kernels\":{";
  bool first_backend = true;
  for (int b = 0; b < kNumBackends; ++b) {
    std::string list;
    for (int d = 1; d < kNumDtypes; ++d)
      if (op.kernels[b][d]) list += std::string(list.empty() ? "\"" : ",\"") + dtype_name(d) + "\"";
    if (list.empty()) continue;
    o += std::string(first_backend ? "\"" : ",\"") + backend_name(Backend(b)) + "\":[" + list + "]";
    first_backend = false;
  }
  o += "}}";
  return o;
}

namespace {

void register_from_cuda_module(void* registry, const char* op, int32_t dtype, void* fn, const char* impl) {
  auto& r = *static_cast<Registry*>(registry);
  if (r.find(op) < 0) fail(NDRT_ERR_INTERNAL, "cuda module registers a kernel for unknown op '%s'", op);
  if (!dtype_valid(dtype)) fail(NDRT_ERR_INTERNAL, "cuda module registers %s for invalid dtype %d", op, int(dtype));
  r.kernel(op, kCuda, {dtype}, reinterpret_cast<KernelFn>(fn), impl);
}

// Adds the cuda module's kernels (nothing when the module is not loaded).
void register_cuda_kernels(Registry& r) {
  const ndrt_cuda_backend* b = cuda_backend();
  if (!b) return;
  try {
    b->register_kernels(&r, register_from_cuda_module);
  } catch (const Error& e) {  // a module/runtime mismatch: keep the cpu working, say why
    log(NDRT_LOG_ERROR, "cuda kernels not all registered: %s", e.what());
  }
}

}  // namespace

const Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: ops may run during static destruction
    define_all_ops(*reg);
    for (int32_t id = 0; id < reg->count(); ++id) {
      const OpDef& op = reg->get(id);
      if (op.optional_inputs < 0 || size_t(op.optional_inputs) > op.inputs.size() ||
          (op.variadic && op.optional_inputs > 0))
        fail(NDRT_ERR_INTERNAL, "op '%s': %d optional inputs of %d%s", op.name, int(op.optional_inputs),
             int(op.inputs.size()), op.variadic ? " (variadic ops take none)" : "");
    }
    register_cpu_kernels(*reg);
    register_cuda_kernels(*reg);
    register_conv1d_kernels(*reg);
    return reg;
  }();
  return *r;
}

}  // namespace ndrt
