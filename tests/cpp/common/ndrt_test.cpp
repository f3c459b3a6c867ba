#include "ndrt_test.hpp"

#include <algorithm>
#include <cfenv>
#include <map>
#include <mutex>
#include <sstream>

namespace nt {

// ---------------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------------
std::string describe_status(ndrt_status s) {
  std::string r = ndrt_status_name(s);
  if (s != NDRT_OK) {
    const char* m = ndrt_last_error();
    r += " (";
    r += m ? m : "<null message>";
    r += ")";
  }
  return r;
}

void check(ndrt_status s, const char* expr, const char* file, int line) {
  if (s == NDRT_OK) return;
  std::ostringstream o;
  o << file << ":" << line << ": " << expr << " returned " << describe_status(s);
  throw Failure(s, o.str());
}

// ---------------------------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------------------------
const ndrt_dtype kAllDtypes[9] = {NDRT_F32, NDRT_F64, NDRT_F16, NDRT_BF16, NDRT_I8,
                                  NDRT_U8,  NDRT_I32, NDRT_I64, NDRT_BOOL};

size_t itemsize(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: case NDRT_I64: return 8;
    case NDRT_F32: case NDRT_I32: return 4;
    case NDRT_F16: case NDRT_BF16: return 2;
    case NDRT_I8: case NDRT_U8: case NDRT_BOOL: return 1;
  }
  throw Failure(NDRT_ERR_INVALID_ARGUMENT, "test: bad dtype " + std::to_string(d));
}

const char* dtype_str(ndrt_dtype d) {
  switch (d) {
    case NDRT_F32: return "f32";
    case NDRT_F64: return "f64";
    case NDRT_F16: return "f16";
    case NDRT_BF16: return "bf16";
    case NDRT_I8: return "i8";
    case NDRT_U8: return "u8";
    case NDRT_I32: return "i32";
    case NDRT_I64: return "i64";
    case NDRT_BOOL: return "bool";
  }
  return "?";
}

bool representable(double v, ndrt_dtype d) {
  if (std::isnan(v)) return is_float(d);
  switch (d) {
    case NDRT_F64: return true;
    case NDRT_F32: return std::isinf(v) || double(float(v)) == v;
    case NDRT_F16: return f16_to_double(f16_from_double(v)) == v;
    case NDRT_BF16: return bf16_to_double(bf16_from_double(v)) == v;
    case NDRT_I8: return v == std::trunc(v) && v >= -128 && v <= 127;
    case NDRT_U8: return v == std::trunc(v) && v >= 0 && v <= 255;
    case NDRT_I32: return v == std::trunc(v) && v >= -2147483648.0 && v <= 2147483647.0;
    case NDRT_I64: return v == std::trunc(v) && std::fabs(v) <= 9007199254740992.0;
    case NDRT_BOOL: return v == 0 || v == 1;
  }
  return false;
}

void encode(ndrt_dtype d, double v, void* p) {
  switch (d) {
    case NDRT_F32: { float f = float(v); std::memcpy(p, &f, 4); return; }
    case NDRT_F64: std::memcpy(p, &v, 8); return;
    case NDRT_F16: { uint16_t h = f16_from_double(v); std::memcpy(p, &h, 2); return; }
    case NDRT_BF16: { uint16_t h = bf16_from_double(v); std::memcpy(p, &h, 2); return; }
    case NDRT_I8: { int8_t x = int8_t(v); std::memcpy(p, &x, 1); return; }
    case NDRT_U8: { uint8_t x = uint8_t(v); std::memcpy(p, &x, 1); return; }
    case NDRT_I32: { int32_t x = int32_t(v); std::memcpy(p, &x, 4); return; }
    case NDRT_I64: { int64_t x = int64_t(v); std::memcpy(p, &x, 8); return; }
    case NDRT_BOOL: { uint8_t x = v != 0 ? 1 : 0; std::memcpy(p, &x, 1); return; }
  }
  throw Failure(NDRT_ERR_INVALID_ARGUMENT, "encode: bad dtype");
}

double decode(ndrt_dtype d, const void* p) {
  switch (d) {
    case NDRT_F32: { float f; std::memcpy(&f, p, 4); return f; }
    case NDRT_F64: { double f; std::memcpy(&f, p, 8); return f; }
    case NDRT_F16: { uint16_t h; std::memcpy(&h, p, 2); return f16_to_double(h); }
    case NDRT_BF16: { uint16_t h; std::memcpy(&h, p, 2); return bf16_to_double(h); }
    case NDRT_I8: { int8_t x; std::memcpy(&x, p, 1); return x; }
    case NDRT_U8: { uint8_t x; std::memcpy(&x, p, 1); return x; }
    case NDRT_I32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    case NDRT_I64: { int64_t x; std::memcpy(&x, p, 8); return double(x); }
    case NDRT_BOOL: { uint8_t x; std::memcpy(&x, p, 1); return x; }
  }
  throw Failure(NDRT_ERR_INVALID_ARGUMENT, "decode: bad dtype");
}

std::vector<uint8_t> encode_all(ndrt_dtype d, const std::vector<double>& v) {
  size_t is = itemsize(d);
  std::vector<uint8_t> b(v.size() * is);
  for (size_t i = 0; i < v.size(); ++i) encode(d, v[i], b.data() + i * is);
  return b;
}

std::vector<double> decode_all(ndrt_dtype d, const std::vector<uint8_t>& b) {
  size_t is = itemsize(d);
  std::vector<double> v(b.size() / is);
  for (size_t i = 0; i < v.size(); ++i) v[i] = decode(d, b.data() + i * is);
  return v;
}

void poison_element(ndrt_dtype d, void* p) {
  switch (d) {
    case NDRT_F32: { uint32_t u = 0x7fc00000u; std::memcpy(p, &u, 4); return; }
    case NDRT_F64: { uint64_t u = 0x7ff8000000000000ull; std::memcpy(p, &u, 8); return; }
    case NDRT_F16: { uint16_t u = 0x7e00u; std::memcpy(p, &u, 2); return; }
    case NDRT_BF16: { uint16_t u = 0x7fc0u; std::memcpy(p, &u, 2); return; }
    default: std::memset(p, 0x5a, itemsize(d)); return;
  }
}

std::vector<uint8_t> poison_bytes(ndrt_dtype d, int64_t n) {
  size_t is = itemsize(d);
  std::vector<uint8_t> b(size_t(n) * is);
  for (int64_t i = 0; i < n; ++i) poison_element(d, b.data() + size_t(i) * is);
  return b;
}

bool is_poison(ndrt_dtype d, const void* p) {
  uint8_t want[8];
  poison_element(d, want);
  return std::memcmp(want, p, itemsize(d)) == 0;
}

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

// ---------------------------------------------------------------------------------------------
// Tensor
// ---------------------------------------------------------------------------------------------
void Tensor::reset() {
  if (!h_) return;
  ndrt_handle h = h_;
  h_ = 0;
  ndrt_status s = ndrt_tensor_release(h);
  if (s != NDRT_OK) ADD_FAILURE() << "ndrt_tensor_release(" << h << ") returned " << describe_status(s);
}

ndrt_dtype Tensor::dtype() const {
  ndrt_dtype d = 0;
  NT_CHECK(ndrt_tensor_dtype(h_, &d));
  return d;
}
int32_t Tensor::rank() const {
  int32_t r = -1;
  NT_CHECK(ndrt_tensor_rank(h_, &r));
  return r;
}
Shape Tensor::shape() const {
  int64_t buf[NDRT_MAX_RANK];
  int32_t r = rank();
  NT_CHECK(ndrt_tensor_shape(h_, buf, NDRT_MAX_RANK));
  return Shape(buf, buf + r);
}
Shape Tensor::strides() const {
  int64_t buf[NDRT_MAX_RANK];
  int32_t r = rank();
  NT_CHECK(ndrt_tensor_strides(h_, buf, NDRT_MAX_RANK));
  return Shape(buf, buf + r);
}
int64_t Tensor::offset() const {
  int64_t o = -1;
  NT_CHECK(ndrt_tensor_offset(h_, &o));
  return o;
}
int64_t Tensor::numel() const {
  int64_t n = -1;
  NT_CHECK(ndrt_tensor_numel(h_, &n));
  return n;
}
ndrt_device Tensor::device() const {
  ndrt_device d = -1;
  NT_CHECK(ndrt_tensor_device(h_, &d));
  return d;
}
bool Tensor::contiguous() const {
  int32_t c = -1;
  NT_CHECK(ndrt_tensor_is_contiguous(h_, &c));
  return c != 0;
}
void* Tensor::data_ptr() const {
  void* p = nullptr;
  NT_CHECK(ndrt_tensor_data_ptr(h_, &p));
  return p;
}

Tensor create(ndrt_dtype d, const Shape& s, ndrt_device dev) {
  Tensor t;
  NT_CHECK(ndrt_tensor_create(d, int32_t(s.size()), s.data(), dev, t.out()));
  return t;
}

Tensor from_bytes(ndrt_dtype d, const Shape& s, const void* data, size_t nbytes, ndrt_device dev) {
  Tensor t;
  static const uint8_t dummy = 0;
  NT_CHECK(ndrt_tensor_from_host(d, int32_t(s.size()), s.data(), data ? data : &dummy, nbytes, dev, t.out()));
  return t;
}

Tensor from_values(ndrt_dtype d, const Shape& s, const std::vector<double>& v, ndrt_device dev) {
  if (int64_t(v.size()) != numel_of(s))
    throw Failure(NDRT_ERR_INVALID_ARGUMENT, "from_values: " + std::to_string(v.size()) + " values for shape " + shape_str(s));
  std::vector<uint8_t> b = encode_all(d, v);
  return from_bytes(d, s, b.data(), b.size(), dev);
}

std::vector<uint8_t> read_bytes(const Tensor& t) {
  std::vector<uint8_t> b(size_t(t.numel()) * itemsize(t.dtype()));
  uint8_t dummy;
  NT_CHECK(ndrt_tensor_read(t.get(), b.empty() ? &dummy : b.data(), b.size()));
  return b;
}

std::vector<double> read_values(const Tensor& t) { return decode_all(t.dtype(), read_bytes(t)); }

void write_bytes(const Tensor& t, const std::vector<uint8_t>& b) {
  uint8_t dummy = 0;
  NT_CHECK(ndrt_tensor_write(t.get(), b.empty() ? &dummy : b.data(), b.size()));
}

void write_values(const Tensor& t, const std::vector<double>& v) { write_bytes(t, encode_all(t.dtype(), v)); }

Tensor retain(const Tensor& t) {
  Tensor r;
  NT_CHECK(ndrt_tensor_retain(t.get(), r.out()));
  return r;
}
Tensor reshape(const Tensor& t, const Shape& s) {
  Tensor r;
  NT_CHECK(ndrt_tensor_reshape(t.get(), int32_t(s.size()), s.data(), r.out()));
  return r;
}
Tensor permute(const Tensor& t, const std::vector<int32_t>& perm) {
  Tensor r;
  NT_CHECK(ndrt_tensor_permute(t.get(), int32_t(perm.size()), perm.data(), r.out()));
  return r;
}
Tensor transpose(const Tensor& t, int32_t a, int32_t b) {
  Tensor r;
  NT_CHECK(ndrt_tensor_transpose(t.get(), a, b, r.out()));
  return r;
}
Tensor slice(const Tensor& t, int32_t axis, int64_t start, int64_t stop, int64_t step) {
  Tensor r;
  NT_CHECK(ndrt_tensor_slice(t.get(), axis, start, stop, step, r.out()));
  return r;
}
Tensor expand(const Tensor& t, const Shape& s) {
  Tensor r;
  NT_CHECK(ndrt_tensor_expand(t.get(), int32_t(s.size()), s.data(), r.out()));
  return r;
}
Tensor contiguous(const Tensor& t) {
  Tensor r;
  NT_CHECK(ndrt_tensor_contiguous(t.get(), r.out()));
  return r;
}
Tensor cast(const Tensor& t, ndrt_dtype d) {
  Tensor r;
  NT_CHECK(ndrt_tensor_cast(t.get(), d, r.out()));
  return r;
}

// ---------------------------------------------------------------------------------------------
// Ops
// ---------------------------------------------------------------------------------------------
int32_t op_id(const char* name) {
  static std::mutex mu;
  static std::map<std::string, int32_t> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  int32_t id = -1;
  ndrt_status s = ndrt_op_find(name, &id);
  if (s != NDRT_OK) throw Failure(s, std::string("ndrt_op_find(\"") + name + "\") returned " + describe_status(s));
  cache[name] = id;
  return id;
}

std::string op_describe(const char* name) {
  int32_t id = op_id(name);
  size_t needed = 0;
  NT_CHECK(ndrt_op_describe(id, nullptr, 0, &needed));
  std::string buf(needed, '\0');
  size_t needed2 = 0;
  NT_CHECK(ndrt_op_describe(id, &buf[0], buf.size(), &needed2));
  if (needed2 != needed) throw Failure(NDRT_ERR_INTERNAL, "op_describe: size changed between calls");
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

std::vector<ndrt_dtype> cpu_dtypes(const char* name) {
  std::string j = op_describe(name);
  std::vector<ndrt_dtype> r;
  size_t k = j.find("\"kernels\"");
  if (k == std::string::npos) return r;
  size_t c = j.find("\"cpu\"", k);
  if (c == std::string::npos) return r;
  size_t open = j.find('[', c), close = j.find(']', c);
  if (open == std::string::npos || close == std::string::npos) return r;
  std::string list = j.substr(open + 1, close - open - 1);
  for (ndrt_dtype d : kAllDtypes)
    if (list.find(std::string("\"") + dtype_str(d) + "\"") != std::string::npos) r.push_back(d);
  return r;
}

bool has_cpu_kernel(const char* op, ndrt_dtype d) {
  std::vector<ndrt_dtype> have = cpu_dtypes(op);
  return std::find(have.begin(), have.end(), d) != have.end();
}

ndrt_status exec(const char* op, const std::vector<ndrt_handle>& in, std::vector<ndrt_handle>& out, const Attrs& a) {
  return ndrt_exec(op_id(op), in.data(), int32_t(in.size()), out.data(), int32_t(out.size()), a.ints.data(),
                   int32_t(a.ints.size()), a.floats.data(), int32_t(a.floats.size()));
}

namespace {
std::vector<ndrt_handle> handles_of(const std::vector<const Tensor*>& in) {
  std::vector<ndrt_handle> h;
  for (const Tensor* t : in) h.push_back(t->get());
  return h;
}
}  // namespace

Tensor run(const char* op, const std::vector<const Tensor*>& in, const Attrs& a) {
  std::vector<ndrt_handle> out = {0};
  ndrt_status s = exec(op, handles_of(in), out, a);
  if (s != NDRT_OK) throw Failure(s, std::string("exec ") + op + " returned " + describe_status(s));
  return Tensor(out[0]);
}

void run_into(const char* op, const std::vector<const Tensor*>& in, const Tensor& o, const Attrs& a) {
  std::vector<ndrt_handle> out = {o.get()};
  ndrt_status s = exec(op, handles_of(in), out, a);
  if (s != NDRT_OK) throw Failure(s, std::string("exec ") + op + " (given output) returned " + describe_status(s));
  if (out[0] != o.get()) ADD_FAILURE() << op << ": a given output handle was replaced";
}

ndrt_status try_run(const char* op, const std::vector<const Tensor*>& in, Tensor* o, const Attrs& a) {
  const ndrt_handle given = o ? o->get() : 0;
  std::vector<ndrt_handle> out = {given};
  ndrt_status s = exec(op, handles_of(in), out, a);
  if (given) {
    if (out[0] != given) ADD_FAILURE() << op << ": a given output handle was replaced";
  } else if (out[0]) {
    if (s != NDRT_OK) {
      ADD_FAILURE() << op << ": failed with " << ndrt_status_name(s) << " but left a new handle behind";
      ndrt_tensor_release(out[0]);
    } else if (o) {
      *o = Tensor(out[0]);
    } else {
      ndrt_tensor_release(out[0]);
    }
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Layout model
// ---------------------------------------------------------------------------------------------
Shape strides_of(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= s[i] > 0 ? s[i] : 1;
  }
  return st;
}

std::vector<int64_t> unravel(int64_t flat, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (size_t i = s.size(); i-- > 0;) {
    idx[i] = s[i] ? flat % s[i] : 0;
    flat = s[i] ? flat / s[i] : 0;
  }
  return idx;
}

Layout Layout::contiguous(const Shape& s) {
  Layout l;
  l.shape = s;
  l.strides = strides_of(s);
  return l;
}

std::vector<int64_t> Layout::indices() const {
  int64_t n = numel();
  std::vector<int64_t> r(size_t(n > 0 ? n : 0));
  if (n <= 0) return r;
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t pos = offset;
  for (int64_t k = 0; k < n; ++k) {
    r[size_t(k)] = pos;
    for (size_t i = shape.size(); i-- > 0;) {
      ++idx[i];
      pos += strides[i];
      if (idx[i] < shape[i]) break;
      pos -= strides[i] * shape[i];
      idx[i] = 0;
    }
  }
  return r;
}

Layout Layout::permute(const std::vector<int32_t>& perm) const {
  Layout l;
  l.offset = offset;
  for (int32_t p : perm) {
    l.shape.push_back(shape[size_t(p)]);
    l.strides.push_back(strides[size_t(p)]);
  }
  return l;
}

Layout Layout::slice(int32_t axis, int64_t start, int64_t stop, int64_t step) const {
  Layout l = *this;
  const int64_t L = shape[size_t(axis)];
  auto adjust = [&](int64_t x) {
    if (x < 0) {
      x += L;
      if (x < 0) x = step < 0 ? -1 : 0;
    } else if (x >= L) {
      x = step < 0 ? L - 1 : L;
    }
    return x;
  };
  start = adjust(start);
  stop = adjust(stop);
  int64_t len;
  if (step < 0)
    len = stop < start ? (start - stop - 1) / (-step) + 1 : 0;
  else
    len = start < stop ? (stop - start - 1) / step + 1 : 0;
  if (len > 0) l.offset += start * strides[size_t(axis)];
  l.shape[size_t(axis)] = len;
  l.strides[size_t(axis)] = strides[size_t(axis)] * step;
  return l;
}

Layout Layout::expand(const Shape& s) const {
  Layout l;
  l.offset = offset;
  l.shape = s;
  l.strides.assign(s.size(), 0);
  size_t lead = s.size() - shape.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if (i < lead) continue;
    size_t j = i - lead;
    if (shape[j] == s[i])
      l.strides[i] = shape[j] == 1 ? 0 : strides[j];
    else if (shape[j] == 1)
      l.strides[i] = 0;
    else
      throw Failure(NDRT_ERR_SHAPE_MISMATCH, "model expand: bad shape");
  }
  return l;
}

void expect_layout(const Tensor& t, const Layout& l, const std::string& what) {
  EXPECT_EQ(shape_str(t.shape()), shape_str(l.shape)) << what << ": shape";
  if (l.numel() == 0) return;
  // Strides of size-1 axes do not matter; compare the others.
  Shape got = t.strides(), want = l.strides;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i)
    if (l.shape[i] == 1) got[i] = want[i] = 0;
  EXPECT_EQ(shape_str(got), shape_str(want)) << what << ": strides (size-1 axes ignored)";
  EXPECT_EQ(t.offset(), l.offset) << what << ": offset";
}

// ---------------------------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------------------------
const char* kind_str(Kind k) {
  switch (k) {
    case Kind::Contig: return "contiguous";
    case Kind::Permuted: return "permuted";
    case Kind::Strided: return "strided(neg step)";
    case Kind::Expanded: return "expanded";
    case Kind::Offset: return "offset";
  }
  return "?";
}

Gen uniform_gen(ndrt_dtype d, double lo, double hi, double min_abs) {
  return [=](std::mt19937& rng) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (;;) {
      double x = u(rng);
      if (std::fabs(x) < min_abs) continue;
      switch (d) {
        case NDRT_F32: x = double(float(x)); break;
        case NDRT_F16: x = f16_to_double(f16_from_double(x)); break;
        case NDRT_BF16: x = bf16_to_double(bf16_from_double(x)); break;
        case NDRT_F64: break;
        case NDRT_BOOL: x = x > (lo + hi) / 2 ? 1 : 0; return x;
        default: x = std::round(x); break;
      }
      if (x == 0) continue;
      return x;
    }
  };
}

Gen default_gen(ndrt_dtype d) {
  switch (d) {
    case NDRT_F32: case NDRT_F64: case NDRT_F16: case NDRT_BF16: return uniform_gen(d, -2, 2, 0.05);
    case NDRT_U8: return uniform_gen(d, 1, 100);
    case NDRT_BOOL: return uniform_gen(d, 0, 1);
    default: return uniform_gen(d, -50, 50);
  }
}

namespace {
std::vector<double> gen_values(int64_t n, const Gen& g, std::mt19937& rng) {
  std::vector<double> v(size_t(n > 0 ? n : 0));
  for (double& x : v) x = g(rng);
  return v;
}
}  // namespace

Operand make_operand(ndrt_dtype d, const Shape& s, Kind k, const Gen& gen, std::mt19937& rng) {
  Operand o;
  o.dtype = d;
  const size_t r = s.size();
  if (r == 0 && k != Kind::Contig) k = Kind::Contig;
  switch (k) {
    case Kind::Contig: {
      o.layout = Layout::contiguous(s);
      o.base_vals = gen_values(numel_of(s), gen, rng);
      o.base = from_values(d, s, o.base_vals);
      o.view = retain(o.base);
      break;
    }
    case Kind::Permuted: {
      Shape rev(s.rbegin(), s.rend());
      std::vector<int32_t> perm;
      for (size_t i = r; i-- > 0;) perm.push_back(int32_t(i));
      o.base_vals = gen_values(numel_of(rev), gen, rng);
      o.base = from_values(d, rev, o.base_vals);
      o.layout = Layout::contiguous(rev).permute(perm);
      o.view = permute(o.base, perm);
      break;
    }
    case Kind::Strided: {
      Shape b(r);
      for (size_t i = 0; i < r; ++i) b[i] = 2 * s[i] + 1;
      o.base_vals = gen_values(numel_of(b), gen, rng);
      o.base = from_values(d, b, o.base_vals);
      o.layout = Layout::contiguous(b);
      Tensor cur = retain(o.base);
      for (size_t i = 0; i < r; ++i) {
        int64_t start = i == 0 ? 2 * s[i] - 1 : 1, stop = i == 0 ? 0 : 2 * s[i] + 1, step = i == 0 ? -2 : 2;
        o.layout = o.layout.slice(int32_t(i), start, stop, step);
        cur = slice(cur, int32_t(i), start, stop, step);
      }
      o.view = std::move(cur);
      break;
    }
    case Kind::Expanded: {
      Shape b = s;
      for (size_t i = 0; i < r; i += 2) b[i] = 1;
      o.base_vals = gen_values(numel_of(b), gen, rng);
      o.base = from_values(d, b, o.base_vals);
      o.layout = Layout::contiguous(b).expand(s);
      o.view = expand(o.base, s);
      break;
    }
    case Kind::Offset: {
      Shape b = s;
      b[0] += 1;
      o.base_vals = gen_values(numel_of(b), gen, rng);
      o.base = from_values(d, b, o.base_vals);
      o.layout = Layout::contiguous(b).slice(0, 1, b[0], 1);
      o.view = slice(o.base, 0, 1, b[0], 1);
      break;
    }
  }
  std::vector<int64_t> idx = o.layout.indices();
  o.vals.resize(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) o.vals[i] = o.base_vals[size_t(idx[i])];
  expect_layout(o.view, o.layout, std::string("operand ") + kind_str(k) + " " + shape_str(s));
  return o;
}

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------
const char* out_kind_str(OutKind k) {
  switch (k) {
    case OutKind::Fresh: return "runtime-allocated output";
    case OutKind::Given: return "given output";
    case OutKind::GivenView: return "given non-contiguous view output";
  }
  return "?";
}

void poison_cache(ndrt_dtype d, const Shape& s) {
  if (numel_of(s) == 0) return;
  Tensor p = create(d, s);
  write_bytes(p, poison_bytes(d, numel_of(s)));
}  // released here: the chunk goes back to the cache, the next allocation of its class reuses it

namespace {
bool same_values(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
}  // namespace

std::vector<double> run_out(const char* op, const std::vector<const Tensor*>& in, const Attrs& a,
                            ndrt_dtype od, const Shape& os, OutKind k) {
  const size_t is = itemsize(od);
  switch (k) {
    case OutKind::Fresh: {
      poison_cache(od, os);
      Tensor o = run(op, in, a);
      EXPECT_EQ(o.dtype(), od) << op << ": output dtype";
      EXPECT_EQ(shape_str(o.shape()), shape_str(os)) << op << ": output shape";
      EXPECT_TRUE(o.contiguous()) << op << ": a runtime-allocated output should be contiguous";
      return read_values(o);
    }
    case OutKind::Given: {
      Tensor o = create(od, os);
      write_bytes(o, poison_bytes(od, numel_of(os)));
      run_into(op, in, o, a);
      return read_values(o);
    }
    case OutKind::GivenView: {
      // A bigger tensor with reversed axes (each one longer), permuted back and sliced: axis 0 with
      // step -1, the others from 1. Rank 0: element 2 of a [5] tensor.
      const size_t r = os.size();
      Shape big;
      Layout l;
      if (r == 0) {
        big = {5};
        l = Layout::contiguous(big).slice(0, 2, 3, 1);
        l.shape.clear();
        l.strides.clear();
      } else {
        for (size_t i = r; i-- > 0;) big.push_back(os[i] + 1);
        std::vector<int32_t> perm;
        for (size_t i = r; i-- > 0;) perm.push_back(int32_t(i));
        l = Layout::contiguous(big).permute(perm);
        l = l.slice(0, os[0], 0, -1);
        for (size_t i = 1; i < r; ++i) l = l.slice(int32_t(i), 1, os[i] + 1, 1);
      }
      const int64_t nbig = numel_of(big);
      std::vector<uint8_t> bytes(size_t(nbig) * is);
      for (int64_t i = 0; i < nbig; ++i) encode(od, od == NDRT_BOOL ? 1.0 : double(i % 100 + 1), &bytes[size_t(i) * is]);
      std::vector<int64_t> idx = l.indices();
      for (int64_t j : idx) poison_element(od, &bytes[size_t(j) * is]);
      Tensor base = from_bytes(od, big, bytes.data(), bytes.size());
      Tensor view;
      if (r == 0) {
        Tensor s1 = slice(base, 0, 2, 3, 1);
        view = reshape(s1, {});
      } else {
        std::vector<int32_t> perm;
        for (size_t i = r; i-- > 0;) perm.push_back(int32_t(i));
        view = permute(base, perm);
        view = slice(view, 0, os[0], 0, -1);
        for (size_t i = 1; i < r; ++i) view = slice(view, int32_t(i), 1, os[i] + 1, 1);
      }
      expect_layout(view, l, std::string(op) + ": output view");
      run_into(op, in, view, a);
      std::vector<uint8_t> after = read_bytes(base);
      std::vector<char> inside(size_t(nbig), 0);
      for (int64_t j : idx) inside[size_t(j)] = 1;
      int bad = 0;
      for (int64_t i = 0; i < nbig; ++i) {
        if (inside[size_t(i)]) continue;
        if (std::memcmp(&after[size_t(i) * is], &bytes[size_t(i) * is], is) != 0 && bad++ < 5)
          ADD_FAILURE() << op << ": element " << i << " of the bigger tensor " << shape_str(big)
                        << " lies outside the output view but was changed (was " << decode(od, &bytes[size_t(i) * is])
                        << ", now " << decode(od, &after[size_t(i) * is]) << ")";
      }
      std::vector<double> vals(idx.size());
      for (size_t i = 0; i < idx.size(); ++i) vals[i] = decode(od, &after[size_t(idx[i]) * is]);
      std::vector<double> direct = read_values(view);
      EXPECT_EQ(direct.size(), vals.size());
      for (size_t i = 0; i < direct.size() && i < vals.size(); ++i)
        if (!same_values(direct[i], vals[i])) {
          ADD_FAILURE() << op << ": reading the output view gives " << direct[i] << " at " << i
                        << " but its storage holds " << vals[i];
          break;
        }
      return vals;
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------------
Tol default_tol(ndrt_dtype d) {
  switch (d) {
    case NDRT_F32: return {1e-5, 1e-6};
    case NDRT_F64: return {1e-12, 1e-14};
    case NDRT_F16: return {2e-3, 1e-4};
    case NDRT_BF16: return {1.6e-2, 1e-3};
    default: return {0, 0};
  }
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, ndrt_dtype d, Tol tol,
                  const std::string& what, const std::vector<double>* extra) {
  if (got.size() != want.size()) {
    ADD_FAILURE() << what << ": " << got.size() << " values, expected " << want.size();
    return;
  }
  int bad = 0;
  std::ostringstream o;
  o.precision(17);
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w))
      ok = std::isnan(g);
    else if (std::isinf(w) || (tol.rtol == 0 && tol.atol == 0 && !extra))
      ok = g == w;
    else
      ok = std::fabs(g - w) <= tol.atol + tol.rtol * std::fabs(w) + (extra ? (*extra)[i] : 0.0);
    if (!ok) {
      if (bad < 10) o << "\n  [" << i << "] got " << g << ", want " << w;
      ++bad;
    }
  }
  if (bad)
    ADD_FAILURE() << what << " (" << dtype_str(d) << "): " << bad << " of " << got.size()
                  << " elements differ (rtol " << tol.rtol << ", atol " << tol.atol << ")" << o.str();
}

Shape broadcast(const Shape& a, const Shape& b) {
  size_t r = std::max(a.size(), b.size());
  Shape o(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t ia = int64_t(i) - int64_t(r - a.size()), ib = int64_t(i) - int64_t(r - b.size());
    int64_t da = ia >= 0 ? a[size_t(ia)] : 1, db = ib >= 0 ? b[size_t(ib)] : 1;
    if (da != db && da != 1 && db != 1)
      throw Failure(NDRT_ERR_SHAPE_MISMATCH, "model: " + shape_str(a) + " and " + shape_str(b) + " do not broadcast");
    o[i] = da == 1 ? db : da;
  }
  return o;
}

int64_t broadcast_index(const std::vector<int64_t>& idx, const Shape& dst, const Shape& src) {
  size_t lead = dst.size() - src.size();
  int64_t flat = 0;
  for (size_t j = 0; j < src.size(); ++j) flat = flat * src[j] + (src[j] == 1 ? 0 : idx[lead + j]);
  return flat;
}

std::vector<double> broadcast_values(const std::vector<double>& vals, const Shape& src, const Shape& dst) {
  Layout l = Layout::contiguous(src).expand(dst);
  std::vector<int64_t> idx = l.indices();
  std::vector<double> r(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) r[i] = vals[size_t(idx[i])];
  return r;
}

ndrt_memory_stats stats(ndrt_device dev) {
  ndrt_memory_stats s{};
  NT_CHECK(ndrt_memory_stats_get(dev, &s));
  return s;
}

int64_t live_handles() {
  int64_t n = -1;
  NT_CHECK(ndrt_live_handles(&n));
  return n;
}

}  // namespace nt
