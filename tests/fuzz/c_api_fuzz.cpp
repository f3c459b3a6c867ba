// Coverage-guided fuzzing of the whole public C ABI (libFuzzer; see README.md in this folder).
//
// Each input is decoded as a sequence of at most kMaxCalls calls: tensor creation (create, from_host,
// wrap with caller strides and a release callback), views, copies and casts, device moves, reads and
// writes of any size, ndrt_exec of every op with arbitrary handles (live, released, zero, invented),
// arbitrary attribute arrays and aliased outputs, retain/release, configuration, logging, events,
// the profiler, memory statistics and the (MPI-less, failing fast) distributed calls. The harness
// holds at most kSlots tensor handles, each at most kMaxTensorBytes of memory, so calls stay fast.
//
// Invariants (a violation aborts, which libFuzzer records as a crash):
//  - every failing call leaves a non-empty message of its own in ndrt_last_error() (a sentinel
//    message is planted before each call), and its status is a known one, never NDRT_ERR_INTERNAL;
//  - a handle that is not live is never accepted; a live handle is always described consistently;
//  - ndrt_exec leaves the output array as it was when it fails and hands out fresh, distinct
//    handles when it succeeds; text buffers follow the size/NUL contract and are left untouched
//    when too small;
//  - a wrapped buffer's release callback runs exactly once, after the last view died, and never
//    for a failed wrap;
//  - after each input, once the harness has released all it holds, ndrt_live_handles and the cpu
//    pool's in-use and wrapped bytes are back where they were when the input started.
//
// Only the public header is used. The distributed calls run with NDRT_MPI_LIBRARY pointing nowhere,
// so each fails fast with NDRT_ERR_NOT_CONFIGURED (or an argument error) and Open MPI is never
// loaded. Configuration changes, the log and pressure callbacks, the profiler and the thread's
// device are put back after every input.
//
//   ndrt_c_api_fuzz --make-seeds=DIR   writes the seed corpus (tests/fuzz/corpus) and exits.
//   NDRT_FUZZ_TRACE=1                  prints every fuzzed call (to replay a finding);
//   NDRT_FUZZ_STATS=1                  prints at exit how often each op ran successfully.
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <unistd.h>

#include "ndrt/ndrt.h"

namespace {

constexpr int kMaxCalls = 64;
constexpr int kSlots = 16;
constexpr int kDead = 16;
constexpr int kEvents = 8;
constexpr int64_t kMaxTensorBytes = 64 * 1024;
constexpr int64_t kMaxElementsTouched = 64 * 1024;  // elements an element-wise call may visit
constexpr int kShapeCap = 256;  // shape/stride arrays hold any rank a byte can name

// ------------------------------------------------------------------------------------------------
// Counters and failure reporting

uint64_t g_calls = 0;      // fuzzed C ABI calls
uint64_t g_aux_calls = 0;  // the harness's own calls (sentinels, descriptions, clean-up)
uint64_t g_inputs = 0;
uint64_t g_ok = 0, g_failed = 0;

[[noreturn]] void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "\n==ndrt-fuzz== INVARIANT VIOLATED: ");
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
  std::abort();
}

void print_op_stats();

void print_totals() {
  if (std::getenv("NDRT_FUZZ_STATS")) print_op_stats();
  std::fprintf(stderr, "==ndrt-fuzz== %llu inputs, %llu fuzzed C ABI calls (%llu ok, %llu failed), %llu harness calls\n",
               (unsigned long long)g_inputs, (unsigned long long)g_calls, (unsigned long long)g_ok,
               (unsigned long long)g_failed, (unsigned long long)g_aux_calls);
}

// The sentinel: ndrt_op_describe of an op id the fuzzed calls never pass (do_ops_meta avoids it).
constexpr int32_t kSentinelOpId = -123456789;
std::string g_sentinel;  // the message it leaves

// Plants the sentinel message, so that a failing call that does not set its own is caught.
void arm() {
  ++g_aux_calls;
  if (ndrt_op_describe(kSentinelOpId, nullptr, 0, nullptr) != NDRT_ERR_UNKNOWN_OP) die("the sentinel call did not fail");
}

bool is_sentinel(const char* m) {
  size_t n = g_sentinel.size();
  for (size_t i = 0; i < n; ++i)  // (no strcmp: libFuzzer hooks it, and this runs for every failing call)
    if (m[i] != g_sentinel[i]) return false;
  return m[n] == '\0';
}

bool known_status(ndrt_status s) { return std::strcmp(ndrt_status_name(s), "NDRT_UNKNOWN_STATUS") != 0; }

bool g_trace = false;  // NDRT_FUZZ_TRACE=1: print every fuzzed call (to replay a finding)

ndrt_status check(ndrt_status s, const char* what, bool aux = false) {
  ++(aux ? g_aux_calls : g_calls);
  if (g_trace && !aux)
    std::fprintf(stderr, "[call] %s -> %s%s%s\n", what, ndrt_status_name(s), s ? ": " : "", s ? ndrt_last_error() : "");
  if (s == NDRT_OK) {
    if (!aux) ++g_ok;
    return s;
  }
  if (!aux) ++g_failed;
  if (!known_status(s)) die("%s returned status %d, which ndrt_status_name does not know", what, int(s));
  const char* m = ndrt_last_error();
  if (!m) die("%s returned %s and ndrt_last_error() is NULL", what, ndrt_status_name(s));
  if (s == NDRT_ERR_INTERNAL) die("%s returned NDRT_ERR_INTERNAL: %s", what, m);
  if (!*m) die("%s returned %s with an empty message", what, ndrt_status_name(s));
  if (is_sentinel(m)) die("%s returned %s without setting its own message", what, ndrt_status_name(s));
  return s;
}

// A fuzzed call: sentinel, call, checks.
#define CALL(expr) (arm(), check((expr), #expr))
// One of the harness's own calls, which must succeed.
#define MUST(expr)                                                                                      \
  do {                                                                                                  \
    ndrt_status s_ = check((expr), #expr, true);                                                        \
    if (s_ != NDRT_OK) die("harness call %s failed: %s: %s", #expr, ndrt_status_name(s_), ndrt_last_error()); \
  } while (0)

// ------------------------------------------------------------------------------------------------
// Input decoding: bytes are consumed from the front; an exhausted input reads as zeros.

struct Reader {
  const uint8_t* p;
  size_t n;
  size_t i = 0;
  bool empty() const { return i >= n; }
  uint8_t u8() { return i < n ? p[i++] : 0; }
  uint32_t pick(uint32_t k) { return k ? u8() % k : 0; }
  bool coin() { return u8() & 1; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v |= uint64_t(u8()) << (8 * b);
    return v;
  }
  int64_t i64() { return int64_t(u64()); }
  double f64() {
    uint64_t v = u64();
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  // A string of up to `max` bytes (length byte first); may hold any byte but NUL.
  std::string str(size_t max) {
    size_t len = pick(uint32_t(max + 1));
    std::string s;
    for (size_t k = 0; k < len; ++k) {
      char c = char(u8());
      s += c ? c : '?';
    }
    return s;
  }
};

// Writer for the seed corpus: the same primitives, in the same order.
struct Writer {
  std::vector<uint8_t> b;
  Writer& u8(int v) {
    b.push_back(uint8_t(v));
    return *this;
  }
  Writer& u64(uint64_t v) {
    for (int k = 0; k < 8; ++k) b.push_back(uint8_t(v >> (8 * k)));
    return *this;
  }
};

const int64_t kSpecialInts[] = {
    0, 1, 2, 3, -1, -2, 4, 5, 7, 8, 16, 64, 255, 256, 65536, -65536,
    INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, int64_t(1) << 62, -(int64_t(1) << 62), int64_t(1) << 59,
    (int64_t(1) << 59) + 1, int64_t(1) << 32, int64_t(1) << 31, INT32_MAX, INT32_MIN, int64_t(1) << 40,
    int64_t(3) << 61, -(int64_t(1) << 59), (int64_t(1) << 61) + 1};
constexpr int kNumSpecialInts = int(sizeof kSpecialInts / sizeof kSpecialInts[0]);

// A small value most of the time, a hostile one sometimes, raw bytes rarely.
int64_t fuzz_int(Reader& r) {
  uint8_t m = r.u8();
  if (m < 160) return int64_t(m % 11) - 3;  // -3..7
  if (m < 250) return kSpecialInts[m % kNumSpecialInts];
  return r.i64();
}


// Extents: 0..8 mostly, hostile sometimes.
int64_t fuzz_dim(Reader& r) {
  uint8_t m = r.u8();
  if (m < 200) return int64_t(m % 9);
  int64_t v = m < 252 ? kSpecialInts[m % kNumSpecialInts] : r.i64();
  return v;
}

double fuzz_double(Reader& r) {
  static const double kSpecial[] = {0.0, 1.0, -1.0, 0.5, 2.0, -0.0, 1e-7, 1e-300, 4.9e-324, 1e30, -1e30, 3e9,
                                    -3e9, 9.3e18, -9.3e18, 1.8e19, 65504.0, 65520.0, 3.4e38, 3.5e38, 1e308,
                                    std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                                    std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                                    0.1, 0.9, 1.5, 255.5, 127.5, -128.5, 2147483648.0};
  uint8_t m = r.u8();
  if (m < 120) return double(int(m % 9) - 4) * 0.5;
  if (m < 248) return kSpecial[m % (sizeof kSpecial / sizeof kSpecial[0])];
  return r.f64();
}

ndrt_dtype fuzz_dtype(Reader& r) {
  uint8_t m = r.u8();
  if (m < 243) return ndrt_dtype(1 + m % 9);
  static const ndrt_dtype kBad[] = {0, 10, -1, 127, INT32_MAX, INT32_MIN, 255, 11};
  return kBad[m % 8];
}

ndrt_device fuzz_device(Reader& r) {
  static const ndrt_device kDevices[] = {NDRT_DEVICE_CURRENT,
                                         NDRT_CPU,
                                         NDRT_DEVICE_CURRENT,
                                         NDRT_CPU,
                                         NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 0),
                                         NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 1),
                                         NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 0xffff),
                                         NDRT_DEVICE(NDRT_DEVICE_TYPE_CUDA, 7),
                                         NDRT_DEVICE(2, 0),
                                         NDRT_DEVICE(0x7fff, 0),
                                         -2,
                                         INT32_MIN,
                                         INT32_MAX,
                                         NDRT_DEVICE(NDRT_DEVICE_TYPE_CPU, 64)};
  uint8_t m = r.u8();
  if (m < 250) return kDevices[m % (sizeof kDevices / sizeof kDevices[0])];
  return ndrt_device(r.u64());
}

int64_t dtype_size(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: case NDRT_I64: return 8;
    case NDRT_F32: case NDRT_I32: return 4;
    case NDRT_F16: case NDRT_BF16: return 2;
    case NDRT_I8: case NDRT_U8: case NDRT_BOOL: return 1;
    default: return 0;
  }
}

// numel * itemsize of a shape, or -1 when it overflows or is not a valid shape.
int64_t shape_bytes(ndrt_dtype d, int32_t rank, const int64_t* shape) {
  if (rank < 0 || rank > NDRT_MAX_RANK || dtype_size(d) == 0) return -1;
  int64_t n = dtype_size(d);
  bool zero = false;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0) return -1;
    if (shape[i] == 0) zero = true;
    else if (__builtin_mul_overflow(n, shape[i], &n)) return -1;
  }
  return zero ? 0 : n;
}

// Fills host data for a tensor of `d`: raw input bytes, hostile values of the dtype, small values.
void fill(Reader& r, std::vector<uint8_t>& buf, ndrt_dtype d) {
  uint8_t mode = r.pick(4);
  size_t item = size_t(dtype_size(d) ? dtype_size(d) : 1);
  if (mode == 0) {  // raw bytes from the input, repeated
    size_t k = 1 + r.pick(32);
    std::vector<uint8_t> pat(k);
    for (auto& b : pat) b = r.u8();
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = pat[i % k];
    return;
  }
  if (mode == 3) {
    std::fill(buf.begin(), buf.end(), uint8_t(0));
    return;
  }
  uint32_t seed = r.u8();
  for (size_t e = 0; e * item < buf.size(); ++e) {
    uint32_t v = (seed + uint32_t(e) * 7u) % 16u;
    uint8_t* p = &buf[e * item];
    size_t room = buf.size() - e * item < item ? buf.size() - e * item : item;
    uint8_t tmp[8] = {};
    if (mode == 1) {  // hostile values
      switch (d) {
        case NDRT_F32: {
          static const float kV[] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 3e9f, -3e9f, 1e19f, 2.2e9f, 0.5f,
                                     -0.0f, 65504.f, 1e-45f, 255.5f, -129.f, 3.4e38f};
          std::memcpy(tmp, &kV[v], 4);
          break;
        }
        case NDRT_F64: {
          static const double kV[] = {NAN, INFINITY, -INFINITY, 1e300, -1e300, 3e9, -3e9, 9.3e18, 1.9e19, 0.5,
                                      -0.0, 65520.0, 5e-324, 255.5, -129.0, 3.5e38};
          std::memcpy(tmp, &kV[v], 8);
          break;
        }
        case NDRT_F16: {
          static const uint16_t kV[] = {0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7bff, 0xfbff, 0x0001, 0x8001,
                                        0x7c01, 0x3c00, 0x8000, 0x5bf8, 0x0400, 0x7fff, 0xd808, 0x3800};
          std::memcpy(tmp, &kV[v], 2);
          break;
        }
        case NDRT_BF16: {
          static const uint16_t kV[] = {0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f7f, 0xff7f, 0x0001, 0x4f80,
                                        0x5f80, 0xdf00, 0x8000, 0x4f00, 0xcf00, 0x7fff, 0x3f00, 0x7f81};
          std::memcpy(tmp, &kV[v], 2);
          break;
        }
        case NDRT_I64: {
          static const int64_t kV[] = {INT64_MIN, INT64_MAX, -1, 0, 1, INT32_MAX, INT32_MIN, int64_t(1) << 62,
                                       -(int64_t(1) << 40), 255, 256, -129, 2, 3, 1000000007, -7};
          std::memcpy(tmp, &kV[v], 8);
          break;
        }
        case NDRT_I32: {
          static const int32_t kV[] = {INT32_MIN, INT32_MAX, -1, 0, 1, 65536, -65536, 255, 256, -129, 2, 3, 7,
                                       -7, 1 << 30, -(1 << 30)};
          std::memcpy(tmp, &kV[v], 4);
          break;
        }
        default: {  // i8, u8, bool: bytes other than 0 and 1 included
          static const uint8_t kV[] = {0, 1, 2, 255, 128, 127, 0x80, 3, 0xfe, 1, 0, 7, 64, 200, 1, 0};
          tmp[0] = kV[v];
          break;
        }
      }
    } else {  // small values: -3..3 for floats, 0..3 for integers (indices, lengths), 0/1 for bool
      int s = int(v % 7) - 3, k = int(v % 4);
      switch (d) {
        case NDRT_F32: { float f = float(s); std::memcpy(tmp, &f, 4); break; }
        case NDRT_F64: { double f = double(s); std::memcpy(tmp, &f, 8); break; }
        case NDRT_F16: { static const uint16_t kV[] = {0xc200, 0xc000, 0xbc00, 0, 0x3c00, 0x4000, 0x4200}; std::memcpy(tmp, &kV[s + 3], 2); break; }
        case NDRT_BF16: { static const uint16_t kV[] = {0xc040, 0xc000, 0xbf80, 0, 0x3f80, 0x4000, 0x4040}; std::memcpy(tmp, &kV[s + 3], 2); break; }
        case NDRT_I64: { int64_t x = k; std::memcpy(tmp, &x, 8); break; }
        case NDRT_I32: { int32_t x = k; std::memcpy(tmp, &x, 4); break; }
        case NDRT_BOOL: tmp[0] = uint8_t(k & 1); break;
        default: tmp[0] = uint8_t(k); break;
      }
    }
    std::memcpy(p, tmp, room);
  }
}

// ------------------------------------------------------------------------------------------------
// What the harness holds

struct Slot {
  ndrt_handle h = 0;
  bool big = false;  // a view with more than kMaxElementsTouched elements: metadata calls only
};

struct Wrapped {
  void* buf = nullptr;    // what we allocated
  void* data = nullptr;   // what we passed (buf + misalignment)
  int released = 0;       // release callback runs
  bool with_callback = false;
  bool ok = false;        // the wrap succeeded
  bool reenter = false;   // the callback calls into ndrt
};

struct State {
  Slot slots[kSlots];
  ndrt_handle dead[kDead] = {};
  int dead_next = 0;
  ndrt_event events[kEvents] = {};
  ndrt_event dead_events[kDead] = {};
  int dead_event_next = 0;
  std::vector<Wrapped*> wrapped;
  bool in_callback = false;
};
State g;

struct OpInfo {
  std::string name;
  int n_in = 0, n_out = 0;
  int n_opt = 0;  // trailing optional inputs ("optional":true): a call gives n_in - k of them, k <= n_opt
  bool variadic = false, inplace = false;
  std::vector<std::string> attr_types;  // "int", "float", "bool", "dtype", "ints"
};
std::vector<OpInfo> g_ops;
std::vector<uint64_t> g_op_ok;  // successful execs per op (NDRT_FUZZ_STATS=1 prints them at exit)

const ndrt_api* g_api = nullptr;

struct ConfigEntry {
  std::string key, value;
};
std::vector<ConfigEntry> g_config_baseline;

bool is_live(ndrt_handle h) {
  if (h == 0) return false;
  for (const Slot& s : g.slots)
    if (s.h == h) return true;
  return false;
}

void forget(ndrt_handle h) {  // h was released
  for (Slot& s : g.slots)
    if (s.h == h) s = Slot();
  g.dead[g.dead_next] = h;
  g.dead_next = (g.dead_next + 1) % kDead;
}

void aux_release(ndrt_handle h) {
  MUST(ndrt_tensor_release(h));
  forget(h);
}

// Checks a live handle's description; returns its element count and whether it is contiguous.
void describe(ndrt_handle h, int64_t& numel, int32_t& contiguous, ndrt_dtype& dtype) {
  int32_t rank = -1;
  int64_t shape[NDRT_MAX_RANK], strides[NDRT_MAX_RANK];
  ndrt_device dev = -1;
  MUST(ndrt_tensor_dtype(h, &dtype));
  MUST(ndrt_tensor_rank(h, &rank));
  MUST(ndrt_tensor_numel(h, &numel));
  MUST(ndrt_tensor_is_contiguous(h, &contiguous));
  MUST(ndrt_tensor_device(h, &dev));
  if (dtype_size(dtype) == 0) die("live handle %lld has dtype %d", (long long)h, int(dtype));
  if (rank < 0 || rank > NDRT_MAX_RANK) die("live handle %lld has rank %d", (long long)h, int(rank));
  if (contiguous != 0 && contiguous != 1) die("is_contiguous gave %d", int(contiguous));
  if (dev != NDRT_CPU) die("tensor on device %d in a cpu-only process", int(dev));
  MUST(ndrt_tensor_shape(h, shape, rank));
  MUST(ndrt_tensor_strides(h, strides, rank));
  int64_t n = 1;
  bool zero = false;
  for (int i = 0; i < rank; ++i) {
    if (shape[i] < 0) die("live handle %lld has extent %lld", (long long)h, (long long)shape[i]);
    if (shape[i] == 0) zero = true;
    else if (__builtin_mul_overflow(n, shape[i], &n)) die("live handle %lld: element count overflows", (long long)h);
  }
  if (zero) n = 0;
  if (n != numel) die("live handle %lld: numel %lld, shape gives %lld", (long long)h, (long long)numel, (long long)n);
  if (numel > (int64_t(1) << 59)) die("live handle %lld holds %lld elements (more than 2^59)", (long long)h, (long long)numel);
}

// Takes a handle the runtime just handed out: stores it (or releases it when it is too large).
void adopt(ndrt_handle h, int dest) {
  if (h == 0) die("a call succeeded and returned handle 0");
  if (is_live(h)) die("a new handle %lld equals a live one", (long long)h);
  int64_t numel;
  int32_t contiguous;
  ndrt_dtype dtype;
  describe(h, numel, contiguous, dtype);
  // Dense memory beyond the bound is let go at once; big views (expand, stride-0 wraps) are kept
  // for metadata calls only.
  if (contiguous && numel * dtype_size(dtype) > kMaxTensorBytes) {
    MUST(ndrt_tensor_release(h));
    forget(h);
    return;
  }
  Slot* s = nullptr;
  for (int k = 0; k < kSlots && !s; ++k)
    if (g.slots[(dest + k) % kSlots].h == 0) s = &g.slots[(dest + k) % kSlots];
  if (!s) {
    s = &g.slots[dest % kSlots];
    aux_release(s->h);
  }
  s->h = h;
  s->big = numel > kMaxElementsTouched;
  if (g_trace) {
    int32_t rank;
    int64_t shape[NDRT_MAX_RANK], strides[NDRT_MAX_RANK], offset;
    MUST(ndrt_tensor_rank(h, &rank));
    MUST(ndrt_tensor_shape(h, shape, NDRT_MAX_RANK));
    MUST(ndrt_tensor_strides(h, strides, NDRT_MAX_RANK));
    MUST(ndrt_tensor_offset(h, &offset));
    std::string sh, st;
    for (int i = 0; i < rank; ++i) sh += std::to_string(shape[i]) + (i + 1 < rank ? "," : ""), st += std::to_string(strides[i]) + (i + 1 < rank ? "," : "");
    std::fprintf(stderr, "  slot %d <- handle %llx: dtype %d shape [%s] strides [%s] offset %lld\n", int(s - g.slots),
                 (unsigned long long)h, int(dtype), sh.c_str(), st.c_str(), (long long)offset);
  }
}

// A handle argument: a slot (live or empty), a released handle, 0, or an invented one.
ndrt_handle pick_handle(Reader& r, bool* big = nullptr) {
  uint8_t m = r.u8();
  if (big) *big = false;
  if (m < 192) {
    const Slot& s = g.slots[m % kSlots];
    if (big) *big = s.big;
    return s.h;
  }
  switch (m % 8) {
    case 0: case 1: return g.dead[m % kDead];
    case 2: return 0;
    case 3: return -1;
    case 4: {  // a live slot's handle with another generation
      ndrt_handle h = g.slots[r.u8() % kSlots].h;
      return h + (int64_t(1 + r.pick(3)) << 32);
    }
    case 5: return int64_t(1 + r.pick(64));            // a plausible slot index, generation 0
    case 6: return (int64_t(1) << 32) | (1 + r.pick(64)); // generation 1
    default: return r.i64();
  }
}

int pick_dest(Reader& r) { return int(r.pick(kSlots)); }

// Handles that the call would accept: every non-zero handle argument must be live.
bool all_live(const ndrt_handle* h, int n) {
  for (int i = 0; i < n; ++i)
    if (!is_live(h[i])) return false;
  return true;
}

// `live`: whether h was live when the call began (a pressure callback may release it during it).
void expect_failure_if_dead(ndrt_status s, bool live, ndrt_handle h, const char* what) {
  if (s == NDRT_OK && !live) die("%s accepted handle %lld, which is not live", what, (long long)h);
}

// ------------------------------------------------------------------------------------------------
// Callbacks

int g_log_lines = 0;
bool g_log_to_stderr = false;
void quiet_log(int32_t level, const char* message, void*) {
  if (level < NDRT_LOG_ERROR || level > NDRT_LOG_DEBUG) die("log callback got level %d", int(level));
  if (!message) die("log callback got a NULL message");
  (void)std::strlen(message);
  ++g_log_lines;
}

// A callback that calls back into ndrt (calls that cannot fail).
void reentrant_probe() {
  int64_t live = 0;
  MUST(ndrt_live_handles(&live));
  ndrt_memory_stats st;
  MUST(ndrt_memory_stats_get(NDRT_CPU, &st));
  char buf[64];
  size_t needed = 0;
  MUST(ndrt_config_get("log.level", buf, sizeof buf, &needed));
}

void reentrant_log(int32_t level, const char* message, void* user) {
  quiet_log(level, message, user);
  if (g.in_callback) return;
  g.in_callback = true;
  reentrant_probe();
  g.in_callback = false;
}

int g_pressure_calls = 0;
void pressure_cb(int64_t in_use, void* user) {
  if (in_use < 0) die("pressure callback got %lld bytes in use", (long long)in_use);
  ++g_pressure_calls;
  if (!user || g.in_callback) return;
  g.in_callback = true;
  if (user == &g) {
    reentrant_probe();
  } else {  // a garbage-collected host frees what it no longer needs, even tensors in use by the call
    for (int k = 0; k < kSlots; ++k) {
      Slot& s = g.slots[(g_pressure_calls + k) % kSlots];
      if (s.h) {
        aux_release(s.h);
        break;
      }
    }
  }
  g.in_callback = false;
}

void release_cb(void* data, void* user) {
  auto* w = static_cast<Wrapped*>(user);
  if (!w) die("release callback got user NULL");
  if (data != w->data) die("release callback got data %p, the wrap passed %p", data, w->data);
  if (w->released++) die("release callback ran twice for %p", data);
  if (w->reenter && !g.in_callback) {
    g.in_callback = true;
    reentrant_probe();
    g.in_callback = false;
  }
  // Freed at once, so that a later use of the memory by the runtime is a use-after-free for ASan.
  std::free(w->buf);
  w->buf = nullptr;
}

// ------------------------------------------------------------------------------------------------
// Text-buffer contract (op_describe, config_get, profiler_summary)

template <class F>
void text_call(Reader& r, const char* what, F call) {
  size_t needed = 0;
  uint8_t mode = r.pick(8);
  if (mode == 0) {  // size query
    ndrt_status s = CALL(call(nullptr, 0, &needed));
    if (s == NDRT_OK && needed == 0) die("%s: size query gave 0", what);
    return;
  }
  if (mode == 1) {  // both NULL
    CALL(call(nullptr, 0, nullptr));
    return;
  }
  if (mode == 2) {  // NULL buffer with a capacity
    CALL(call(nullptr, 1 + r.pick(64), &needed));
    return;
  }
  size_t cap = mode == 3 ? r.pick(16) : mode == 4 ? 4096 : 1 << 16;
  std::vector<char> buf(cap + 1, char(0x5a));
  size_t* np = mode == 5 ? nullptr : &needed;
  ndrt_status s = CALL(call(cap ? buf.data() : nullptr, cap, np));
  if (s == NDRT_OK && cap) {
    size_t len = strnlen(buf.data(), cap);
    if (len == cap) die("%s: text not NUL-terminated within its capacity", what);
    if (np && needed != len + 1) die("%s: needed %zu but wrote %zu+1 bytes", what, needed, len);
  } else if (s == NDRT_ERR_INVALID_ARGUMENT && cap && np && needed > cap) {
    for (size_t i = 0; i < cap; ++i)
      if (buf[i] != char(0x5a)) die("%s: a too-small buffer was written", what);
  }
  if (buf[cap] != char(0x5a)) die("%s wrote past its capacity", what);
}

// ------------------------------------------------------------------------------------------------
// The calls

enum Op : uint8_t {
  kCreate, kFromHost, kFromHostLike, kWrap, kRead, kWrite, kRetain, kRelease, kQuery, kReshape, kPermute,
  kTranspose, kSlice, kExpand, kContiguous, kCast, kToDevice, kExec, kExecInplace, kConfigSet, kConfigGet,
  kLogCallback, kEvent, kProfiler, kMemory, kDevice, kOpsMeta, kMisc, kComm, kExec2, kExec3, kCastLike,
  kNumOps
};

// A rank (0..4 mostly, up to 255 or -1 rarely) and its extents, in an array of kShapeCap entries.
void read_shape(Reader& r, int32_t& rank, int64_t* shape) {
  uint8_t m = r.u8();
  rank = m < 240 ? int32_t(m % 5) : m < 250 ? int32_t(5 + m % 4) : m == 250 ? 9 : m == 251 ? -1 : int32_t(r.u8());
  for (int i = 0; i < kShapeCap; ++i) shape[i] = i < rank && i < 12 ? fuzz_dim(r) : 1;
}

// Too large to hold but small enough that the allocation could succeed: not worth the time.
bool mid_size(int64_t bytes) { return bytes > kMaxTensorBytes && bytes < (int64_t(1) << 38); }

void do_create(Reader& r) {
  ndrt_dtype d = fuzz_dtype(r);
  int32_t rank;
  int64_t shape[kShapeCap];
  read_shape(r, rank, shape);
  ndrt_device dev = fuzz_device(r);
  bool null_shape = r.u8() == 7, null_out = r.u8() == 7;
  int dest = pick_dest(r);
  if (mid_size(shape_bytes(d, rank, shape))) return;
  ndrt_handle h = 0;
  ndrt_status s = CALL(ndrt_tensor_create(d, rank, null_shape ? nullptr : shape, dev, null_out ? nullptr : &h));
  if (s == NDRT_OK) {
    if (null_out) die("tensor_create succeeded with out NULL");
    adopt(h, dest);
  }
}

// nbytes to pass and the buffer behind it: the right size mostly, wrong ones sometimes. False when
// the right size is too large to back with a buffer (the call is skipped).
bool pick_nbytes(Reader& r, int64_t want, size_t& nbytes, size_t& buf_size) {
  uint8_t m = r.u8();
  int64_t n = want;
  if (m >= 200) {
    switch (m % 6) {
      case 0: n = want - 1; break;
      case 1: n = want + 1; break;
      case 2: n = 0; break;
      case 3: n = want > (int64_t(1) << 61) ? want - 3 : want * 2; break;
      case 4: n = want / 2; break;
      default: n = int64_t(r.pick(64)); break;
    }
  }
  if (n < 0) n = 0;
  if (n <= 2 * kMaxTensorBytes) {
    nbytes = buf_size = size_t(n);
    return true;
  }
  if (n == want) return false;
  nbytes = size_t(n);  // a wrong size, refused before any byte is touched
  buf_size = 16;
  return true;
}

void do_from_host(Reader& r, ndrt_dtype d, int32_t rank, const int64_t* shape, int dest, bool null_shape) {
  ndrt_device dev = fuzz_device(r);
  int64_t want = shape_bytes(d, rank, shape);
  if (mid_size(want)) return;
  size_t buf_size = 0, nbytes = 0;
  if (!pick_nbytes(r, want < 0 ? 0 : want, nbytes, buf_size)) return;
  std::vector<uint8_t> data(buf_size);
  fill(r, data, d);
  bool null_data = r.u8() == 9;
  ndrt_handle h = 0;
  ndrt_status s = CALL(ndrt_tensor_from_host(d, rank, null_shape ? nullptr : shape, null_data ? nullptr : data.data(),
                                             nbytes, dev, &h));
  if (s == NDRT_OK) {
    if (int64_t(nbytes) != want) die("tensor_from_host accepted %zu bytes for %lld", nbytes, (long long)want);
    adopt(h, dest);
    // What went in comes out.
    if (buf_size && !null_data && buf_size == nbytes) {
      std::vector<uint8_t> back(buf_size);
      MUST(ndrt_tensor_read(h, back.data(), back.size()));
      if (std::memcmp(back.data(), data.data(), buf_size) != 0) die("tensor_from_host then tensor_read differ");
    }
  }
}

// Shape and dtype of a live handle (false when not live).
bool shape_of(ndrt_handle h, ndrt_dtype& d, int32_t& rank, int64_t* shape) {
  if (!is_live(h)) return false;
  MUST(ndrt_tensor_dtype(h, &d));
  MUST(ndrt_tensor_rank(h, &rank));
  MUST(ndrt_tensor_shape(h, shape, NDRT_MAX_RANK));
  return true;
}

void do_from_host_like(Reader& r) {
  ndrt_handle src = g.slots[r.pick(kSlots)].h;
  ndrt_dtype d = NDRT_F32;
  int32_t rank = 2;
  int64_t shape[kShapeCap] = {2, 3, 1, 1, 1, 1, 1, 1};
  shape_of(src, d, rank, shape);
  uint8_t dm = r.u8();
  if (dm >= 128) d = fuzz_dtype(r);
  switch (r.pick(8)) {  // shape edits that keep ops' shape rules within reach
    case 1:
      if (rank >= 2) std::swap(shape[rank - 1], shape[rank - 2]);
      break;
    case 2:
      if (rank > 0) {
        for (int i = 0; i + 1 < rank; ++i) shape[i] = shape[i + 1];
        --rank;
      }
      break;
    case 3:
      if (rank < NDRT_MAX_RANK) shape[rank++] = 1;
      break;
    case 4:
      if (rank > 0) shape[rank - 1] = int64_t(r.pick(6));
      break;
    case 5:
      if (rank > 0) shape[0] = 1;
      break;
    case 6:
      if (rank < NDRT_MAX_RANK) {
        for (int i = rank; i > 0; --i) shape[i] = shape[i - 1];
        shape[0] = int64_t(1 + r.pick(4));
        ++rank;
      }
      break;
    default: break;
  }
  do_from_host(r, d, rank, shape, pick_dest(r), false);
}

void do_wrap(Reader& r) {
  ndrt_dtype d = fuzz_dtype(r);
  int32_t rank;
  int64_t shape[kShapeCap], strides[kShapeCap];
  read_shape(r, rank, shape);
  uint8_t sm = r.pick(4);  // strides: NULL, row-major, permuted/padded, fuzzed
  int64_t run = 1;
  for (int i = 0; i < kShapeCap; ++i) strides[i] = 1;
  for (int i = NDRT_MAX_RANK - 1; i >= 0; --i) {
    strides[i] = run;
    int64_t e = i < rank && shape[i] > 0 && shape[i] < 1024 ? shape[i] : 1;
    run = run * e > (int64_t(1) << 40) ? run : run * e;
  }
  int n_strides = rank < NDRT_MAX_RANK ? rank : NDRT_MAX_RANK;
  if (sm == 2)  // padded (x2, x3) or broadcast (0)
    for (int i = 0; i < n_strides; ++i) {
      int64_t k = 1 + r.pick(3);
      strides[i] *= r.u8() == 3 ? 0 : k;
    }
  if (sm == 3)
    for (int i = 0; i < n_strides; ++i) strides[i] = fuzz_int(r);
  // Buffer size: up to 63 bytes, or up to kMaxTensorBytes (two bytes).
  size_t size = 0;
  if (r.pick(4) == 0) {
    size = r.pick(64);
  } else {
    size_t lo = r.u8(), hi = r.u8();
    size = 1 + (lo | hi << 8) % size_t(kMaxTensorBytes);
  }
  uint8_t misalign = r.u8() >= 240 ? uint8_t(1 + r.pick(7)) : 0;
  uint8_t cm = r.pick(8);  // capacity: what we own, less, 0
  size_t capacity = cm == 0 ? 0 : cm == 1 ? size / 2 : size;
  uint8_t rel = r.pick(4);  // 0: no callback; 1, 2: freeing callback; 3: one that also calls ndrt
  bool null_data = r.u8() == 5;
  int dest = pick_dest(r);

  auto* w = new Wrapped;
  w->buf = std::malloc(size + misalign + 1);
  w->data = null_data ? nullptr : static_cast<char*>(w->buf) + misalign;
  w->with_callback = rel != 0;
  w->reenter = rel == 3;
  std::vector<uint8_t> init(size);
  fill(r, init, d);
  if (size) std::memcpy(static_cast<char*>(w->buf) + misalign, init.data(), size);
  g.wrapped.push_back(w);
  ndrt_handle h = 0;
  if (g_trace) {
    std::string t;
    for (int i = 0; i < rank && i < NDRT_MAX_RANK; ++i) t += std::to_string(shape[i]) + ":" + std::to_string(strides[i]) + " ";
    std::fprintf(stderr, "wrap dtype %d rank %d [%s] strides %s size %zu capacity %zu misalign %d\n", int(d), int(rank),
                 t.c_str(), sm ? "given" : "NULL", size, capacity, int(misalign));
  }
  ndrt_status s = CALL(ndrt_tensor_wrap(d, rank, shape, sm == 0 ? nullptr : strides, w->data, capacity,
                                        rel ? release_cb : nullptr, w, &h));
  if (s != NDRT_OK) {
    if (w->released) die("tensor_wrap failed and still ran the release callback");
    std::free(w->buf);
    w->buf = nullptr;
    return;
  }
  w->ok = true;
  adopt(h, dest);  // may release it at once (then the callback has run)
}

void do_read_write(Reader& r, bool write) {
  bool big = false;
  ndrt_handle h = pick_handle(r, &big);
  int64_t want = 0;
  bool live = is_live(h);
  if (live) {
    int64_t numel;
    ndrt_dtype d;
    MUST(ndrt_tensor_numel(h, &numel));
    MUST(ndrt_tensor_dtype(h, &d));
    want = numel * dtype_size(d);
  }
  size_t buf_size = 0, nbytes = 0;
  if (!pick_nbytes(r, want, nbytes, buf_size) || (big && int64_t(nbytes) == want)) return;
  std::vector<uint8_t> buf(buf_size + 1, 0xa5);
  if (write) {
    ndrt_dtype d = NDRT_U8;
    if (is_live(h)) MUST(ndrt_tensor_dtype(h, &d));
    std::vector<uint8_t> data(buf_size);
    fill(r, data, d);
    if (buf_size) std::memcpy(buf.data(), data.data(), buf_size);
  }
  bool null_buf = r.u8() == 3;
  void* p = null_buf ? nullptr : buf.data();
  ndrt_status s = write ? CALL(ndrt_tensor_write(h, p, nbytes)) : CALL(ndrt_tensor_read(h, p, nbytes));
  expect_failure_if_dead(s, live, h, write ? "tensor_write" : "tensor_read");
  if (s == NDRT_OK && int64_t(nbytes) != want) die("tensor_%s accepted %zu bytes for %lld", write ? "write" : "read", nbytes, (long long)want);
  if (buf[buf_size] != 0xa5) die("tensor_read wrote past nbytes");
}

void do_retain(Reader& r) {
  ndrt_handle h = pick_handle(r);
  bool null_out = r.u8() == 7;
  int dest = pick_dest(r);
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_retain(h, null_out ? nullptr : &out));
  expect_failure_if_dead(s, live, h, "tensor_retain");
  if (s == NDRT_OK) adopt(out, dest);
}

void do_release(Reader& r) {
  ndrt_handle h = pick_handle(r);
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_release(h));
  if (live && s != NDRT_OK) die("tensor_release of live handle %lld failed: %s", (long long)h, ndrt_last_error());
  if (!live && s != NDRT_ERR_INVALID_HANDLE)
    die("tensor_release of handle %lld, not live, gave %s", (long long)h, ndrt_status_name(s));
  if (s == NDRT_OK) forget(h);
}

void do_query(Reader& r) {
  ndrt_handle h = pick_handle(r);
  uint8_t which = r.pick(9);
  bool null_out = r.u8() == 11;
  int32_t cap = int32_t(r.u8() < 200 ? NDRT_MAX_RANK : int(r.pick(10)) - 1);
  ndrt_status s = NDRT_OK;
  int64_t i64buf[NDRT_MAX_RANK + 1];
  bool live = is_live(h);
  i64buf[NDRT_MAX_RANK] = 0x5a5a;
  switch (which) {
    case 0: { ndrt_dtype v; s = CALL(ndrt_tensor_dtype(h, null_out ? nullptr : &v)); break; }
    case 1: { int32_t v; s = CALL(ndrt_tensor_rank(h, null_out ? nullptr : &v)); break; }
    case 2: s = CALL(ndrt_tensor_shape(h, null_out ? nullptr : i64buf, cap)); break;
    case 3: s = CALL(ndrt_tensor_strides(h, null_out ? nullptr : i64buf, cap)); break;
    case 4: { int64_t v; s = CALL(ndrt_tensor_offset(h, null_out ? nullptr : &v)); break; }
    case 5: { int64_t v; s = CALL(ndrt_tensor_numel(h, null_out ? nullptr : &v)); break; }
    case 6: { ndrt_device v; s = CALL(ndrt_tensor_device(h, null_out ? nullptr : &v)); break; }
    case 7: { int32_t v; s = CALL(ndrt_tensor_is_contiguous(h, null_out ? nullptr : &v)); break; }
    default: {
      void* v = nullptr;
      s = CALL(ndrt_tensor_data_ptr(h, null_out ? nullptr : &v));
      break;
    }
  }
  expect_failure_if_dead(s, live, h, "tensor description");
  if (s == NDRT_OK && null_out) die("a tensor description call succeeded with out NULL");
  if (i64buf[NDRT_MAX_RANK] != 0x5a5a) die("tensor_shape/strides wrote past its capacity");
  if (live && !null_out && (which < 2 || which > 3) && s != NDRT_OK)
    die("a description call failed on live handle %lld: %s", (long long)h, ndrt_last_error());
}

void do_reshape(Reader& r) {
  bool big;
  ndrt_handle h = pick_handle(r, &big);
  int32_t rank;
  int64_t shape[kShapeCap];
  uint8_t m = r.pick(4);
  if (m == 0) {  // anything
    read_shape(r, rank, shape);
  } else {  // a factorisation of the element count around one -1
    int64_t numel = 0;
    if (is_live(h)) MUST(ndrt_tensor_numel(h, &numel));
    rank = int32_t(1 + r.pick(4));
    for (int i = 0; i < NDRT_MAX_RANK; ++i) shape[i] = 1;
    int infer = int(r.pick(uint32_t(rank)));
    for (int i = 0; i < rank; ++i) shape[i] = i == infer ? -1 : (m == 1 ? 1 : int64_t(1 + r.pick(4)));
    if (m == 3) shape[infer] = numel;
    if (r.u8() > 240) shape[r.pick(uint32_t(rank))] = fuzz_dim(r);
  }
  bool null_shape = r.u8() == 1;
  int dest = pick_dest(r);
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_reshape(h, rank, null_shape ? nullptr : shape, &out));
  expect_failure_if_dead(s, live, h, "tensor_reshape");
  if (s == NDRT_OK) adopt(out, dest);
}

void do_permute(Reader& r) {
  ndrt_handle h = pick_handle(r);
  int32_t rank = 0;
  if (is_live(h)) MUST(ndrt_tensor_rank(h, &rank));
  if (r.u8() > 230) rank = int32_t(r.pick(11)) - 1;
  int32_t perm[NDRT_MAX_RANK + 2];
  for (int i = 0; i < NDRT_MAX_RANK + 2; ++i) perm[i] = i;
  uint8_t m = r.pick(4);
  if (rank > 0 && rank <= NDRT_MAX_RANK + 2) {
    if (m == 3) {
      for (int i = 0; i < rank; ++i) perm[i] = int32_t(int8_t(r.u8()));
    } else {
      for (int i = rank - 1; i > 0; --i) std::swap(perm[i], perm[r.pick(uint32_t(i + 1))]);
    }
  }
  bool null_perm = r.u8() == 1;
  int dest = pick_dest(r);
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_permute(h, rank, null_perm ? nullptr : perm, &out));
  expect_failure_if_dead(s, live, h, "tensor_permute");
  if (s == NDRT_OK) adopt(out, dest);
}

int32_t fuzz_axis(Reader& r) {
  uint8_t m = r.u8();
  if (m < 240) return int32_t(m % 19) - 9;
  static const int32_t kAxes[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, 1 << 20, -(1 << 20), 64, -64, 9};
  return kAxes[m % 8];
}

void do_transpose(Reader& r) {
  ndrt_handle h = pick_handle(r);
  int32_t a = fuzz_axis(r), b = fuzz_axis(r);
  int dest = pick_dest(r);
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_transpose(h, a, b, &out));
  expect_failure_if_dead(s, live, h, "tensor_transpose");
  if (s == NDRT_OK) adopt(out, dest);
}

void do_slice(Reader& r) {
  ndrt_handle h = pick_handle(r);
  int32_t axis = fuzz_axis(r);
  int64_t start = fuzz_int(r), stop = fuzz_int(r), step = fuzz_int(r);
  int dest = pick_dest(r);
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_slice(h, axis, start, stop, step, &out));
  expect_failure_if_dead(s, live, h, "tensor_slice");
  if (s == NDRT_OK) adopt(out, dest);
}

void do_expand(Reader& r) {
  ndrt_handle h = pick_handle(r);
  ndrt_dtype d;
  int32_t rank = 0;
  int64_t shape[kShapeCap];
  if (!shape_of(h, d, rank, shape) || r.u8() > 220) {
    read_shape(r, rank, shape);
  } else {
    int extra = int(r.pick(3));
    if (rank + extra > NDRT_MAX_RANK) extra = NDRT_MAX_RANK - rank;
    for (int i = rank - 1; i >= 0; --i) shape[i + extra] = shape[i];
    rank += extra;
    for (int i = 0; i < rank; ++i)
      if (i < extra || (shape[i] == 1 && r.coin())) shape[i] = fuzz_dim(r);
  }
  int dest = pick_dest(r);
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s = CALL(ndrt_tensor_expand(h, rank, shape, &out));
  expect_failure_if_dead(s, live, h, "tensor_expand");
  if (s == NDRT_OK) adopt(out, dest);
}

void do_copy_like(Reader& r, int kind) {
  bool big;
  ndrt_handle h = pick_handle(r, &big);
  ndrt_dtype d = fuzz_dtype(r);
  ndrt_device dev = fuzz_device(r);
  int dest = pick_dest(r);
  if (big) return;
  ndrt_handle out = 0;
  bool live = is_live(h);
  ndrt_status s;
  if (kind == 0) s = CALL(ndrt_tensor_contiguous(h, &out));
  else if (kind == 1) s = CALL(ndrt_tensor_cast(h, d, &out));
  else s = CALL(ndrt_tensor_to_device(h, dev, &out));
  expect_failure_if_dead(s, live, h, "tensor_contiguous/cast/to_device");
  if (s == NDRT_OK) adopt(out, dest);
}

// Cast round trip with a check: every dtype to every dtype, values read back.
void do_cast_chain(Reader& r) {
  bool big;
  ndrt_handle h = pick_handle(r, &big);
  if (big || !is_live(h)) return;
  ndrt_dtype d1 = ndrt_dtype(1 + r.pick(9)), d2 = ndrt_dtype(1 + r.pick(9));
  ndrt_handle a = 0, b = 0;
  if (CALL(ndrt_tensor_cast(h, d1, &a)) != NDRT_OK) return;
  ndrt_status s = CALL(ndrt_tensor_cast(a, d2, &b));
  int64_t numel;
  MUST(ndrt_tensor_numel(a, &numel));
  if (s == NDRT_OK) {
    std::vector<uint8_t> buf(size_t(numel * dtype_size(d2)));
    CALL(ndrt_tensor_read(b, buf.data(), buf.size()));
    if (d2 == NDRT_BOOL)
      for (uint8_t v : buf)
        if (v > 1) die("cast to bool produced byte %u", unsigned(v));
    MUST(ndrt_tensor_release(b));
  }
  MUST(ndrt_tensor_release(a));
}

void fuzz_attrs(Reader& r, const OpInfo* op, std::vector<int64_t>& ints, std::vector<double>& floats) {
  uint8_t m = r.u8();
  if (op && m < 224) {  // by the schema: a prefix of the attributes
    size_t k = op->attr_types.size();
    size_t n = m < 112 ? 0 : m < 200 ? k : r.pick(uint32_t(k + 1));
    for (size_t a = 0; a < n; ++a) {
      const std::string& t = op->attr_types[a];
      if (t == "float") {
        floats.push_back(fuzz_double(r));
      } else if (t == "bool") {
        uint8_t b = r.u8();
        ints.push_back(b < 250 ? b % 2 : fuzz_int(r));
      } else if (t == "dtype") {
        ints.push_back(fuzz_dtype(r));
      } else if (t == "ints") {
        uint8_t c = r.u8();
        int64_t count = c < 240 ? c % 5 : c < 250 ? 5 + c % 4 : c == 250 ? 65 : c == 251 ? -1 : c == 252 ? 1000 : int64_t(r.pick(70));
        ints.push_back(count);
        int64_t give = count < 0 ? 0 : count > 70 ? 2 : count;
        for (int64_t v = 0; v < give; ++v) ints.push_back(fuzz_int(r));
      } else {
        ints.push_back(fuzz_int(r));
      }
    }
    return;
  }
  size_t ni = r.pick(12), nf = r.pick(4);
  for (size_t i = 0; i < ni; ++i) ints.push_back(fuzz_int(r));
  for (size_t i = 0; i < nf; ++i) floats.push_back(fuzz_double(r));
}

void do_exec(Reader& r, bool inplace) {
  int32_t n_ops = int32_t(g_ops.size());
  uint8_t om = r.u8();
  int32_t op_id;
  if (om < 250) {
    op_id = int32_t((om | (uint32_t(r.u8()) << 8)) % uint32_t(n_ops));
  } else {
    static const int32_t kBad[] = {-1, INT32_MIN, INT32_MAX, 0};
    op_id = om == 250 ? n_ops : kBad[om % 4];
  }
  const OpInfo* op = op_id >= 0 && op_id < n_ops ? &g_ops[size_t(op_id)] : nullptr;
  int want_in = op ? op->n_in : 1, want_out = op ? op->n_out : 1;
  uint8_t am = r.u8();
  int n_in = want_in, n_out = want_out;
  if (op && op->variadic) n_in = want_in + int(r.pick(4));
  if (op && op->n_opt) n_in = want_in - int(r.pick(uint32_t(op->n_opt) + 1));  // leave optional inputs out
  if (am >= 232) {
    switch (am % 8) {
      case 0: n_in = want_in - 1; break;
      case 1: n_in = want_in + 1; break;
      case 2: n_out = want_out - 1; break;
      case 3: n_out = want_out + 1; break;
      case 4: n_in = 65; break;
      case 5: n_in = 64; break;
      case 6: n_in = -1; break;
      default: n_out = 9; break;
    }
  }
  bool null_in = r.u8() == 0xee, null_out = r.u8() == 0xee;
  ndrt_handle in[70] = {}, out[10] = {}, out_given[10] = {};
  bool any_big = false;
  int nin_fill = n_in < 0 ? 0 : n_in > 70 ? 70 : n_in;
  int nout_fill = n_out < 0 ? 0 : n_out > 10 ? 10 : n_out;
  for (int i = 0; i < nin_fill; ++i) {
    bool big = false;
    in[i] = i < 16 ? pick_handle(r, &big) : in[i % 16];
    any_big |= big;
  }
  for (int i = 0; i < nout_fill; ++i) {
    uint8_t k = r.u8();
    if (inplace && i == 0 && nin_fill > 0) out[i] = in[r.pick(uint32_t(nin_fill < 16 ? nin_fill : 16))];
    else if (k < 200) out[i] = 0;
    else if (k < 216 && nin_fill > 0) out[i] = in[k % nin_fill];
    else if (k < 224 && i > 0) out[i] = out[i - 1];
    else out[i] = pick_handle(r);
    for (int s = 0; s < kSlots; ++s)
      if (out[i] && g.slots[s].h == out[i] && g.slots[s].big) any_big = true;
  }
  std::vector<int64_t> ints;
  std::vector<double> floats;
  fuzz_attrs(r, op, ints, floats);
  uint8_t cm = r.u8();  // attribute array edge cases
  int32_t n_ints = int32_t(ints.size()), n_floats = int32_t(floats.size());
  const int64_t* ip = ints.empty() ? nullptr : ints.data();
  const double* fp = floats.empty() ? nullptr : floats.data();
  if (cm >= 240) {
    switch (cm % 4) {
      case 0: n_ints = n_ints ? n_ints : 1, ip = nullptr; break;
      case 1: n_ints = -1; break;
      case 2: n_floats = n_floats ? n_floats : 1, fp = nullptr; break;
      default: n_floats = -1; break;
    }
  }
  int dest = pick_dest(r);
  if (any_big) return;  // would visit more elements than this harness allows itself
  for (int i = 0; i < nout_fill; ++i) out_given[i] = out[i];
  // Liveness before the call (a pressure callback may release handles during it).
  bool inputs_live = all_live(in, nin_fill), outputs_live[10];
  for (int i = 0; i < nout_fill; ++i) outputs_live[i] = is_live(out[i]);
  if (g_trace) {
    std::string t = "exec " + (op ? op->name : std::to_string(op_id)) + " in";
    for (int i = 0; i < nin_fill && i < 16; ++i) t += " " + std::to_string(in[i]);
    t += " out";
    for (int i = 0; i < nout_fill; ++i) t += " " + std::to_string(out[i]);
    t += " ints";
    for (int i = 0; i < n_ints && ip; ++i) t += " " + std::to_string(ip[i]);
    t += " floats";
    for (int i = 0; i < n_floats && fp; ++i) t += " " + std::to_string(fp[i]);
    std::fprintf(stderr, "%s (n_in %d n_out %d)\n", t.c_str(), n_in, n_out);
  }
  ndrt_status s = CALL(ndrt_exec(op_id, null_in ? nullptr : in, n_in, null_out ? nullptr : out, n_out, ip, n_ints, fp,
                                 n_floats));
  if (s != NDRT_OK) {
    for (int i = 0; i < nout_fill; ++i)
      if (out[i] != out_given[i]) die("exec of op %d failed (%s) but changed output %d", int(op_id), ndrt_last_error(), i);
    return;
  }
  if (!op) die("exec of unknown op %d succeeded", int(op_id));
  ++g_op_ok[size_t(op_id)];
  if (!inputs_live) die("exec of %s accepted an input handle that is not live", op->name.c_str());
  for (int i = 0; i < n_out; ++i) {
    if (out_given[i] == 0) continue;
    if (out[i] != out_given[i]) die("exec of %s changed given output %d", op->name.c_str(), i);
    if (!outputs_live[i]) die("exec of %s accepted output handle %lld, which is not live", op->name.c_str(), (long long)out[i]);
  }
  for (int i = 0; i < n_out; ++i) {
    if (out_given[i] != 0) continue;
    for (int j = 0; j < i; ++j)
      if (out[j] == out[i]) die("exec of %s handed out handle %lld twice", op->name.c_str(), (long long)out[i]);
  }
  for (int i = 0; i < n_out; ++i)
    if (out_given[i] == 0) adopt(out[i], dest + i);
}

// Keys and values: every key the header documents, and some it does not.
const char* const kKeys[] = {"log.level", "cpu.threads", "cpu.pool", "cpu.blas_library", "cpu.blas_core",
                             "cpu.virtual_devices", "memory.host.max_cached_bytes", "memory.host.max_chunk_bytes",
                             "cuda.virtual_devices", "cuda.allow_multi_gpu", "memory.cuda.max_cached_bytes",
                             "memory.cuda.max_chunk_bytes", "cuda.max_grid_size", "cuda.max_block_size",
                             "cuda.matmul.allow_tf32", "dist.timeout_s", "dist.verify", "profiler.enabled",
                             "backend.priority.cpu", "backend.priority.gpu", "cpu.adapt_threads",
                             // read-only (not snapshot or restored)
                             "cpu.active_threads", "cpu.direct_conv",
                             // not keys
                             "", "log", "LOG.LEVEL", "log.level ", "cpu.threads\n", "memory.host", "profiler.enabled.x"};
constexpr int kNumRealKeys = 21;  // settable ones
constexpr int kNumKeys = int(sizeof kKeys / sizeof kKeys[0]);

const char* const kValues[] = {"0", "1", "2", "3", "-1", "", " 1", "1 ", "01", "0x10", "1e3", "abc", "error", "warn",
                               "info", "debug", "openmp", "ndrt", "auto", "native", "Haswell", "SkylakeX",
                               "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                               "-9223372036854775809", "18446744073709551616", "2147483648", "-2147483649",
                               "4294967296", "64", "65", "32", "1024", "1000", "4097", "31536000", "31536001",
                               "65536", "1048576", "0.5", "+1", "--1", "1\t", "\xff\xfe", "NaN"};
constexpr int kNumValues = int(sizeof kValues / sizeof kValues[0]);

bool harmless(const char* key, const std::string& v) {
  std::string k = key;
  if (k == "cpu.threads") {  // a thread count in the hundreds makes every later op slow
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    return !(n > 4);
  }
  // Only known values for the library path (dlopen of arbitrary files is not the point) and log
  // level (debug logging floods).
  if (k == "cpu.blas_library") return v == "/nonexistent/libopenblas.so.0" || v == "libopenblas.so.0" || v.empty();
  if (k == "log.level") return !g_log_to_stderr || (v != "debug" && v != "info");
  return true;
}

void do_config_set(Reader& r) {
  uint8_t km = r.u8();
  const char* key = km == 255 ? nullptr : kKeys[km % kNumKeys];
  uint8_t vm = r.u8();
  std::string value;
  bool null_value = vm == 255;
  if (vm < 200) value = kValues[vm % kNumValues];
  else if (vm < 230) value = "/nonexistent/libopenblas.so.0";
  else value = r.str(24);
  if (key && !harmless(key, value)) value = "1";
  if (key && !harmless(key, value)) return;
  CALL(ndrt_config_set(key, null_value ? nullptr : value.c_str()));
}

void do_config_get(Reader& r) {
  uint8_t km = r.u8();
  const char* key = km == 255 ? nullptr : kKeys[km % kNumKeys];
  text_call(r, "config_get", [&](char* b, size_t c, size_t* n) { return ndrt_config_get(key, b, c, n); });
}

void do_log_callback(Reader& r) {
  switch (r.pick(4)) {
    case 0:
      // stderr: only at warn or error, so that a fuzzer run does not flood its log
      if (CALL(ndrt_config_set("log.level", "warn")) == NDRT_OK && CALL(ndrt_set_log_callback(nullptr, nullptr)) == NDRT_OK)
        g_log_to_stderr = true;
      break;
    case 1:
      if (CALL(ndrt_set_log_callback(reentrant_log, &g)) == NDRT_OK) g_log_to_stderr = false;
      break;
    default:
      if (CALL(ndrt_set_log_callback(quiet_log, nullptr)) == NDRT_OK) g_log_to_stderr = false;
      break;
  }
}

ndrt_event pick_event(Reader& r) {
  uint8_t m = r.u8();
  if (m < 160) return g.events[m % kEvents];
  if (m < 220) return g.dead_events[m % kDead];
  if (m < 240) return int64_t(m % 8) - 2;
  return r.i64();
}

bool event_live(ndrt_event e) {
  if (e == 0) return false;
  for (ndrt_event x : g.events)
    if (x == e) return true;
  return false;
}

void forget_event(ndrt_event e) {
  for (ndrt_event& x : g.events)
    if (x == e) x = 0;
  g.dead_events[g.dead_event_next] = e;
  g.dead_event_next = (g.dead_event_next + 1) % kDead;
}

void do_event(Reader& r) {
  uint8_t which = r.pick(5);
  ndrt_event e = pick_event(r);
  ndrt_device dev = fuzz_device(r);
  bool null_out = r.u8() == 1;
  ndrt_status s = NDRT_OK;
  switch (which) {
    case 0: {
      ndrt_event out = 0;
      s = CALL(ndrt_event_record(dev, null_out ? nullptr : &out));
      if (s == NDRT_OK && null_out) die("event_record succeeded with out NULL");
      if (s == NDRT_OK) {
        if (event_live(out) || out == 0) die("event_record returned %lld, live or zero", (long long)out);
        int k = int(r.pick(kEvents));
        if (g.events[k]) {
          MUST(ndrt_event_release(g.events[k]));
          forget_event(g.events[k]);
        }
        g.events[k] = out;
      }
      return;
    }
    case 1: s = CALL(ndrt_event_wait(e, dev)); break;
    case 2: s = CALL(ndrt_event_synchronize(e)); break;
    case 3: {
      int32_t done = -1;
      s = CALL(ndrt_event_query(e, null_out ? nullptr : &done));
      if (s == NDRT_OK && done != 1) die("a cpu event is not complete (%d)", int(done));
      break;
    }
    default: {
      bool live = event_live(e);
      s = CALL(ndrt_event_release(e));
      if (live != (s == NDRT_OK)) die("event_release of %s event %lld gave %s", live ? "live" : "dead", (long long)e, ndrt_status_name(s));
      if (s == NDRT_OK) forget_event(e);
      return;
    }
  }
  if (s == NDRT_OK && !event_live(e)) die("an event call accepted event %lld, which is not live", (long long)e);
}

void do_profiler(Reader& r) {
  switch (r.pick(6)) {
    case 0: {
      uint8_t v = r.u8();
      int32_t on = v < 250 ? int32_t(v % 2) : int32_t(v) - 252;
      CALL(ndrt_profiler_enable(on));
      break;
    }
    case 1: CALL(ndrt_profiler_clear()); break;
    case 2: {
      int64_t n = -1;
      ndrt_status s = CALL(ndrt_profiler_count(r.u8() == 1 ? nullptr : &n));
      if (s == NDRT_OK && n < 0) die("profiler_count gave %lld", (long long)n);
      break;
    }
    case 3: {
      static std::string tmp = "/tmp/ndrt_fuzz_trace_" + std::to_string(getpid()) + ".json";
      const char* paths[] = {nullptr, "", "/nonexistent-dir/trace.json", "/tmp", tmp.c_str(), tmp.c_str()};
      CALL(ndrt_profiler_write_trace(paths[r.pick(6)]));
      break;
    }
    default:
      text_call(r, "profiler_summary", [](char* b, size_t c, size_t* n) { return ndrt_profiler_summary(b, c, n); });
      break;
  }
}

void do_memory(Reader& r) {
  ndrt_device dev = fuzz_device(r);
  switch (r.pick(4)) {
    case 0: {
      ndrt_memory_stats st;
      ndrt_status s = CALL(ndrt_memory_stats_get(dev, r.u8() == 1 ? nullptr : &st));
      if (s == NDRT_OK && (st.in_use < 0 || st.cached < 0 || st.peak < st.in_use || st.wrapped < 0))
        die("memory stats inconsistent: in_use %lld cached %lld peak %lld wrapped %lld", (long long)st.in_use,
            (long long)st.cached, (long long)st.peak, (long long)st.wrapped);
      break;
    }
    case 1: CALL(ndrt_memory_trim(dev)); break;
    case 2: CALL(ndrt_memory_reset_peak(dev)); break;
    default: {
      int64_t threshold;
      if (r.coin()) {
        int64_t mant = 1 + r.pick(8);
        threshold = mant << (6 + r.pick(12));
      } else {
        threshold = fuzz_int(r);
      }
      // fn: none, counting, re-entering ndrt, releasing one of our tensors (as a GC'd host would)
      uint8_t f = r.pick(4);
      void* user = f == 2 ? static_cast<void*>(&g) : f == 3 ? static_cast<void*>(g.slots) : nullptr;
      CALL(ndrt_memory_set_pressure_callback(threshold, f == 0 ? nullptr : pressure_cb, user));
      break;
    }
  }
}

void do_device(Reader& r) {
  ndrt_device dev = fuzz_device(r);
  switch (r.pick(6)) {
    case 0: {
      int32_t n = -1;
      int32_t type = r.u8() < 200 ? int32_t(r.pick(3)) : int32_t(fuzz_int(r));
      ndrt_status s = CALL(ndrt_device_count(type, &n));
      if (s == NDRT_OK && n < 0) die("device_count gave %d", int(n));
      break;
    }
    case 1: {
      char buf[40];
      std::memset(buf, 0x5a, sizeof buf);
      size_t cap = r.u8() < 200 ? r.pick(17) : 32;
      ndrt_status s = CALL(ndrt_device_name(dev, r.u8() == 1 ? nullptr : buf, cap));
      if (s == NDRT_OK && strnlen(buf, cap) == cap) die("device_name not NUL-terminated");
      if (buf[cap] != 0x5a) die("device_name wrote past its capacity");
      break;
    }
    case 2: {
      int32_t t = -1;
      ndrt_status s = CALL(ndrt_default_device_type(r.u8() == 1 ? nullptr : &t));
      if (s == NDRT_OK && t != NDRT_DEVICE_TYPE_CPU) die("default device type %d without a GPU", int(t));
      break;
    }
    case 3: {
      ndrt_device d = -1;
      ndrt_status s = CALL(ndrt_thread_device(r.u8() == 1 ? nullptr : &d));
      if (s == NDRT_OK && d != NDRT_CPU) die("thread device %d", int(d));
      break;
    }
    case 4: CALL(ndrt_thread_attach(dev)); break;
    default: CALL(ndrt_synchronize(dev)); break;
  }
}

void do_ops_meta(Reader& r) {
  switch (r.pick(3)) {
    case 0: {
      int32_t n = -1;
      ndrt_status s = CALL(ndrt_op_count(r.u8() == 1 ? nullptr : &n));
      if (s == NDRT_OK && n != int32_t(g_ops.size())) die("op_count changed to %d", int(n));
      break;
    }
    case 1: {
      uint8_t m = r.u8();
      std::string name = m < 200 && !g_ops.empty() ? g_ops[m % g_ops.size()].name : r.str(20);
      if (m >= 200 && m < 220 && !g_ops.empty()) name = g_ops[m % g_ops.size()].name + " ";
      int32_t id = -1;
      ndrt_status s = CALL(ndrt_op_find(m == 255 ? nullptr : name.c_str(), r.u8() == 1 ? nullptr : &id));
      if (s == NDRT_OK && (id < 0 || id >= int32_t(g_ops.size()) || g_ops[size_t(id)].name != name))
        die("op_find('%s') gave id %d", name.c_str(), int(id));
      break;
    }
    default: {
      uint8_t m = r.u8();
      int32_t id = m < 240 ? int32_t(m % (g_ops.size() + 2)) - 1 : int32_t(r.u64());
      if (id == kSentinelOpId) id = INT32_MIN;
      text_call(r, "op_describe", [&](char* b, size_t c, size_t* n) { return ndrt_op_describe(id, b, c, n); });
      break;
    }
  }
}

void do_misc(Reader& r) {
  switch (r.pick(5)) {
    case 0: {
      ++g_calls;
      if (ndrt_abi_version() != NDRT_ABI_VERSION) die("abi version");
      ++g_calls;
      if (!ndrt_version_string() || !*ndrt_version_string()) die("version string");
      break;
    }
    case 1: {
      ndrt_status s = r.u8() < 128 ? ndrt_status(r.u8()) * 5 : ndrt_status(r.u64());
      ++g_calls;
      const char* n = ndrt_status_name(s);
      if (!n || !*n) die("status_name(%d) empty", int(s));
      break;
    }
    case 2: {
      ++g_calls;
      if (!ndrt_last_error()) die("last_error NULL");
      break;
    }
    case 3: {
      uint8_t v = r.u8();
      uint32_t version = v < 128 ? 1 : v < 250 ? uint32_t(v % 4) : uint32_t(r.u64());
      const ndrt_api* api = reinterpret_cast<const ndrt_api*>(&g);  // a non-NULL value to be reset
      ndrt_status s = CALL(ndrt_get_api(version, r.u8() == 1 ? nullptr : &api));
      if (s == NDRT_OK) {
        if (!api || api->version != 1 || api->tensor_create != ndrt_tensor_create || api->exec != ndrt_exec ||
            api->allreduce_async != ndrt_allreduce_async)
          die("get_api(%u) gave a wrong table", version);
        int64_t live = -1;
        CALL(api->live_handles(&live));
      } else if (s == NDRT_ERR_NOT_CONFIGURED && api) {
        die("get_api(%u) failed and left *out non-NULL", version);
      }
      break;
    }
    default: {
      int64_t live = -1;
      CALL(ndrt_live_handles(r.u8() == 1 ? nullptr : &live));
      break;
    }
  }
}

// Distributed calls without MPI: each must fail, fast.
void do_comm(Reader& r) {
  ndrt_comm comm = r.u8() < 200 ? int64_t(r.pick(4)) - 1 : r.i64();
  ndrt_handle t = pick_handle(r), t2 = pick_handle(r);
  int32_t arg = int32_t(fuzz_int(r));
  bool null_out = r.u8() == 1;
  ndrt_status s;
  switch (r.pick(12)) {
    case 0: { ndrt_comm out; s = CALL(ndrt_comm_world(null_out ? nullptr : &out)); break; }
    case 1: { int32_t out; s = CALL(ndrt_comm_rank(comm, null_out ? nullptr : &out)); break; }
    case 2: { int32_t out; s = CALL(ndrt_comm_size(comm, null_out ? nullptr : &out)); break; }
    case 3: { int32_t out; s = CALL(ndrt_comm_local_rank(comm, null_out ? nullptr : &out)); break; }
    case 4: { ndrt_comm out; s = CALL(ndrt_comm_split(comm, arg, arg, null_out ? nullptr : &out)); break; }
    case 5: s = CALL(ndrt_comm_release(comm)); break;
    case 6: s = CALL(ndrt_allreduce(comm, t, arg)); break;
    case 7: s = CALL(ndrt_broadcast(comm, t, arg)); break;
    case 8: s = CALL(ndrt_allgather(comm, t, t2)); break;
    case 9: s = CALL(ndrt_reduce_scatter(comm, t, t2, arg)); break;
    case 10: s = CALL(ndrt_barrier(comm)); break;
    default: {
      ndrt_handle ts[3] = {t, t2, t};
      ndrt_event ev = 0;
      int32_t n = int32_t(r.pick(5)) - 1;
      s = CALL(ndrt_allreduce_async(comm, r.u8() == 1 ? nullptr : ts, n, arg, null_out ? nullptr : &ev));
      break;
    }
  }
  if (s == NDRT_OK) die("a distributed call succeeded in a process without MPI");
}

void run_one(Reader& r) {
  uint8_t op = r.u8() % kNumOps;
  switch (op) {
    case kCreate: do_create(r); break;
    case kFromHost: {
      ndrt_dtype d = fuzz_dtype(r);
      int32_t rank;
      int64_t shape[kShapeCap];
      read_shape(r, rank, shape);
      int dest = pick_dest(r);
      bool null_shape = r.u8() == 1;
      do_from_host(r, d, rank, shape, dest, null_shape);
      break;
    }
    case kFromHostLike: do_from_host_like(r); break;
    case kWrap: do_wrap(r); break;
    case kRead: do_read_write(r, false); break;
    case kWrite: do_read_write(r, true); break;
    case kRetain: do_retain(r); break;
    case kRelease: do_release(r); break;
    case kQuery: do_query(r); break;
    case kReshape: do_reshape(r); break;
    case kPermute: do_permute(r); break;
    case kTranspose: do_transpose(r); break;
    case kSlice: do_slice(r); break;
    case kExpand: do_expand(r); break;
    case kContiguous: do_copy_like(r, 0); break;
    case kCast: do_copy_like(r, 1); break;
    case kToDevice: do_copy_like(r, 2); break;
    case kExec: case kExec2: case kExec3: do_exec(r, false); break;
    case kExecInplace: do_exec(r, true); break;
    case kConfigSet: do_config_set(r); break;
    case kConfigGet: do_config_get(r); break;
    case kLogCallback: do_log_callback(r); break;
    case kEvent: do_event(r); break;
    case kProfiler: do_profiler(r); break;
    case kMemory: do_memory(r); break;
    case kDevice: do_device(r); break;
    case kOpsMeta: do_ops_meta(r); break;
    case kMisc: do_misc(r); break;
    case kComm: do_comm(r); break;
    case kCastLike: do_cast_chain(r); break;
    default: break;
  }
}

// ------------------------------------------------------------------------------------------------
// Set-up, per-input baseline and clean-up

// Minimal reading of ndrt_op_describe's JSON: input/output counts, flags, attribute types.
// Entries of `key` containing `what` ("{\"name\":" counts them all).
int count_in(const std::string& j, const char* key, const char* what) {
  size_t p = j.find(std::string(",\"") + key + "\":[");
  if (p == std::string::npos) die("op description without %s: %s", key, j.c_str());
  size_t end = j.find(']', p);
  int n = 0;
  for (size_t q = j.find(what, p); q != std::string::npos && q < end; q = j.find(what, q + 1)) ++n;
  return n;
}
int count_names(const std::string& j, const char* key) { return count_in(j, key, "{\"name\":"); }

void load_ops() {
  int32_t n = 0;
  MUST(ndrt_op_count(&n));
  for (int32_t id = 0; id < n; ++id) {
    size_t needed = 0;
    MUST(ndrt_op_describe(id, nullptr, 0, &needed));
    std::string j(needed, '\0');
    MUST(ndrt_op_describe(id, &j[0], needed, &needed));
    j.resize(needed - 1);
    OpInfo o;
    size_t p = j.find("\"name\":\"") + 8;
    o.name = j.substr(p, j.find('"', p) - p);
    o.n_in = count_names(j, "inputs");
    o.n_opt = count_in(j, "inputs", ",\"optional\":true");
    o.n_out = count_names(j, "outputs");
    o.variadic = j.find(",\"variadic\":true") != std::string::npos;
    o.inplace = j.find(",\"inplace\":true") != std::string::npos;
    size_t a = j.find(",\"attrs\":[");
    size_t end = j.find("],\"kernels\":");
    for (size_t q = j.find("\"type\":\"", a); q != std::string::npos && q < end; q = j.find("\"type\":\"", q + 1)) {
      size_t b = q + 8;
      o.attr_types.push_back(j.substr(b, j.find('"', b) - b));
    }
    int32_t found = -1;
    MUST(ndrt_op_find(o.name.c_str(), &found));
    if (found != id) die("op_find('%s') = %d, described as %d", o.name.c_str(), int(found), int(id));
    g_ops.push_back(o);
    g_op_ok.push_back(0);
  }
}

void print_op_stats() {
  std::string never;
  for (size_t i = 0; i < g_ops.size(); ++i) {
    std::fprintf(stderr, "  %-32s %llu\n", g_ops[i].name.c_str(), (unsigned long long)g_op_ok[i]);
    if (!g_op_ok[i]) never += " " + g_ops[i].name;
  }
  std::fprintf(stderr, "==ndrt-fuzz== ops never run successfully:%s\n", never.c_str());
}

void snapshot_config() {
  for (int k = 0; k < kNumRealKeys; ++k) {
    size_t needed = 0;
    MUST(ndrt_config_get(kKeys[k], nullptr, 0, &needed));
    std::string v(needed, '\0');
    MUST(ndrt_config_get(kKeys[k], &v[0], needed, &needed));
    v.resize(needed - 1);
    g_config_baseline.push_back({kKeys[k], v});
  }
}

void restore_config() {
  for (const ConfigEntry& e : g_config_baseline) {
    char buf[256];
    size_t needed = 0;
    MUST(ndrt_config_get(e.key.c_str(), buf, sizeof buf, &needed));
    if (e.value != buf) MUST(ndrt_config_set(e.key.c_str(), e.value.c_str()));
  }
}

bool g_initialised = false;

void initialise() {
  // Distributed calls fail fast: Open MPI is never loaded.
  setenv("NDRT_MPI_LIBRARY", "/nonexistent/ndrt-fuzz/libmpi.so.40", 1);
  g_trace = std::getenv("NDRT_FUZZ_TRACE") != nullptr;
  MUST(ndrt_set_log_callback(quiet_log, nullptr));
  if (ndrt_op_describe(kSentinelOpId, nullptr, 0, nullptr) != NDRT_ERR_UNKNOWN_OP) die("the sentinel call did not fail");
  g_sentinel = ndrt_last_error();
  if (g_sentinel.empty()) die("the sentinel call left no message");
  MUST(ndrt_get_api(1, &g_api));
  load_ops();
  // Freed host memory goes back to the system at once, so ASan sees any use after free.
  MUST(ndrt_config_set("memory.host.max_cached_bytes", "0"));
  // A matrix product loads OpenBLAS now: later cpu.blas_* settings then fail as documented
  // instead of redirecting the load.
  int32_t mm = -1;
  if (ndrt_op_find("matmul", &mm) == NDRT_OK) {
    int64_t shape[2] = {2, 2};
    float data[4] = {1, 2, 3, 4};
    ndrt_handle a = 0, out[1] = {0};
    MUST(ndrt_tensor_from_host(NDRT_F32, 2, shape, data, sizeof data, NDRT_CPU, &a));
    ndrt_handle in[2] = {a, a};
    MUST(ndrt_exec(mm, in, 2, out, 1, nullptr, 0, nullptr, 0));
    MUST(ndrt_tensor_release(out[0]));
    MUST(ndrt_tensor_release(a));
  }
  ndrt_device d;
  MUST(ndrt_thread_device(&d));
  snapshot_config();
  std::atexit(print_totals);
  g_initialised = true;
}

void clean_up() {
  for (Slot& s : g.slots)
    if (s.h) {
      MUST(ndrt_tensor_release(s.h));
      s = Slot();
    }
  for (ndrt_event& e : g.events)
    if (e) {
      MUST(ndrt_event_release(e));
      e = 0;
    }
  for (ndrt_handle& h : g.dead) h = 0;
  for (ndrt_event& e : g.dead_events) e = 0;
  MUST(ndrt_set_log_callback(quiet_log, nullptr));
  g_log_to_stderr = false;
  MUST(ndrt_memory_set_pressure_callback(0, nullptr, nullptr));
  MUST(ndrt_profiler_enable(0));
  MUST(ndrt_profiler_clear());
  MUST(ndrt_thread_attach(NDRT_CPU));
  restore_config();
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// Seeds: small call sequences that reach each op with fitting inputs, and the other call families.
// Each writer below emits the bytes its decoder above reads, in the same order.

namespace {

void seed_from_host(Writer& w, ndrt_dtype d, std::initializer_list<int64_t> shape, int dest, int fill_mode) {
  w.u8(kFromHost).u8(d - 1).u8(int(shape.size()));  // dtype, rank
  for (int64_t e : shape) w.u8(int(e));              // extents 0..8
  w.u8(dest).u8(0);                                  // slot, shape not NULL
  w.u8(1).u8(0);                                     // device cpu:0, nbytes right
  w.u8(fill_mode).u8(3).u8(0);                       // fill (1 hostile, 2 small), its seed; data not NULL
}

// Exec of `op_id` on slots 0, 1, ...; outputs allocated (or the first in place on input 0).
void seed_exec(Writer& w, int op_id, bool all_attrs, bool inplace = false) {
  const OpInfo& o = g_ops[size_t(op_id)];
  w.u8(inplace ? kExecInplace : kExec).u8(op_id & 0xff).u8(op_id >> 8).u8(0);  // op, arity as described
  if (o.variadic) w.u8(0);                                                       // no extra inputs
  if (o.n_opt) w.u8(o.n_opt);                                                    // no optional inputs
  w.u8(0).u8(0);                                                                 // arrays not NULL
  for (int i = 0; i < o.n_in - o.n_opt && i < 16; ++i) w.u8(i);                  // slot i
  for (int i = 0; i < o.n_out; ++i) {
    w.u8(0);
    if (inplace && i == 0) w.u8(0);  // in place on input 0
  }
  if (!all_attrs) {
    w.u8(0);  // defaults
  } else {
    w.u8(150);  // every attribute, small values
    for (const std::string& t : o.attr_types) {
      if (t == "float") w.u8(5);                // 0.5
      else if (t == "bool" || t == "dtype") w.u8(0);  // false, f32
      else if (t == "ints") w.u8(1).u8(4);      // [1]
      else w.u8(4);                             // 1
    }
  }
  w.u8(0).u8(8);  // attribute arrays as built, first output to slot 8
}

// Exec of op `name` on the given slots with attribute bytes `attrs` (see the enc_* helpers; empty:
// defaults), outputs allocated from slot `dest` on.
void seed_exec_on(Writer& w, const char* name, std::initializer_list<int> slots, std::initializer_list<int> attrs,
                  int dest) {
  int id = -1;
  for (size_t i = 0; i < g_ops.size(); ++i)
    if (g_ops[i].name == name) id = int(i);
  if (id < 0) return;  // an op this build does not have
  const OpInfo& o = g_ops[size_t(id)];
  w.u8(kExec).u8(id & 0xff).u8(id >> 8).u8(0);
  if (o.variadic) w.u8(int(slots.size()) - o.n_in);
  if (o.n_opt) w.u8(o.n_in - int(slots.size()));  // optional inputs left out
  w.u8(0).u8(0);
  for (int s : slots) w.u8(s);
  for (int i = 0; i < o.n_out; ++i) w.u8(0);
  if (attrs.size() == 0) {
    w.u8(0);
  } else {
    for (int b : attrs) w.u8(b);
  }
  w.u8(0).u8(dest);
}
// Attribute bytes: a prefix of n attributes, then each value.
int enc_int(int v) { return v + 3; }  // -3..7

void write_seed(const std::string& dir, const std::string& name, const Writer& w) {
  std::string path = dir + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) die("cannot write %s", path.c_str());
  std::fwrite(w.b.data(), 1, w.b.size(), f);
  std::fclose(f);
}

int op_id_of(const char* name) {
  for (size_t i = 0; i < g_ops.size(); ++i)
    if (g_ops[i].name == name) return int(i);
  return 0;
}

void make_seeds(const std::string& dir) {
  // Every op, twelve to a seed, on float inputs: [3,3] in slots 0-2, [1,2,3,3] in slot 3.
  const size_t per_seed = 12;
  for (size_t first = 0; first < g_ops.size(); first += per_seed) {
    Writer w;
    seed_from_host(w, NDRT_F32, {3, 3}, 0, 2);
    seed_from_host(w, NDRT_F32, {3, 3}, 1, 2);
    seed_from_host(w, NDRT_F32, {3, 3}, 2, 2);
    seed_from_host(w, NDRT_F32, {1, 2, 3, 3}, 3, 2);
    for (size_t id = first; id < first + per_seed && id < g_ops.size(); ++id) seed_exec(w, int(id), id % 2 == 1);
    char name[32];
    std::snprintf(name, sizeof name, "ops_%03zu", first);
    write_seed(dir, name, w);
  }
  {  // hostile values of every dtype (NaN, inf, huge; bool bytes other than 0/1) cast to every dtype
    Writer w;
    for (int d = 1; d <= 9; ++d) {
      seed_from_host(w, ndrt_dtype(d), {4, 4}, d, 1);
      for (int to = 1; to <= 9; ++to) w.u8(kCastLike).u8(d).u8(to - 1).u8(to % 9);
    }
    write_seed(dir, "casts", w);
  }
  {  // class indices: gather, scatter, one_hot, losses with labels
    Writer w;
    seed_from_host(w, NDRT_F32, {4, 3}, 0, 2);
    seed_from_host(w, NDRT_I64, {2, 3}, 1, 2);  // indices 0..3
    seed_from_host(w, NDRT_F32, {2, 3}, 2, 2);
    w.u8(kFromHost).u8(NDRT_I64 - 1).u8(1).u8(4).u8(3).u8(0).u8(1).u8(0).u8(3).u8(0);  // labels [4], zeros
    w.u8(kFromHost).u8(NDRT_F32 - 1).u8(0).u8(4).u8(0).u8(1).u8(0).u8(2).u8(3).u8(0);  // dy, a scalar
    seed_from_host(w, NDRT_F32, {3}, 5, 2);                                               // class weights [3]
    seed_exec_on(w, "gather", {0, 1}, {}, 8);
    seed_exec_on(w, "gather_bp", {0, 1, 8}, {}, 9);
    seed_exec_on(w, "scatter", {0, 1, 8}, {}, 10);
    seed_exec_on(w, "scatter_add", {0, 1, 8}, {}, 11);
    seed_exec_on(w, "one_hot", {1}, {210, 1, enc_int(4)}, 12);
    seed_exec_on(w, "softmax_cross_entropy", {0, 3}, {}, 13);
    seed_exec_on(w, "softmax_cross_entropy_bp", {0, 3, 4}, {}, 14);
    seed_exec_on(w, "nll_loss", {0, 3}, {}, 15);
    seed_exec_on(w, "nll_loss_bp", {0, 3, 4}, {}, 15);
    seed_exec_on(w, "softmax_cross_entropy_soft", {0, 0}, {}, 15);
    // With class weights (the optional input) and ignore_index: 0 ignores every row (the labels are
    // zeros: mean over nothing), -1 none.
    seed_exec_on(w, "softmax_cross_entropy", {0, 3, 5}, {210, 2, enc_int(1), enc_int(0)}, 13);
    seed_exec_on(w, "softmax_cross_entropy_bp", {0, 3, 4, 5}, {210, 2, enc_int(1), enc_int(0)}, 14);
    seed_exec_on(w, "nll_loss", {0, 3, 5}, {210, 2, enc_int(2), enc_int(-1)}, 15);
    seed_exec_on(w, "nll_loss_bp", {0, 3, 4, 5}, {210, 2, enc_int(2), enc_int(-1)}, 15);
    write_seed(dir, "index_ops", w);
  }
  {  // convolution, pooling, im2col/col2im on NCHW [1,2,4,4]
    Writer w;
    seed_from_host(w, NDRT_F32, {1, 2, 4, 4}, 0, 2);
    seed_from_host(w, NDRT_F32, {3, 2, 2, 2}, 1, 2);
    seed_from_host(w, NDRT_F32, {3}, 2, 2);
    seed_from_host(w, NDRT_F32, {1, 3, 3, 3}, 3, 2);
    seed_from_host(w, NDRT_F32, {1, 2, 2, 2}, 4, 2);
    const std::initializer_list<int> k22 = {210, 1, 2, enc_int(2), enc_int(2)};
    seed_exec_on(w, "conv2d_bias", {0, 1, 2}, {}, 5);
    seed_exec_on(w, "conv2d_bp_data", {0, 1, 3}, {}, 6);
    seed_exec_on(w, "conv2d_bp_weights", {0, 1, 3}, {}, 7);
    seed_exec_on(w, "max_pool2d", {0}, k22, 8);
    seed_exec_on(w, "max_pool2d_bp", {0, 4}, k22, 9);
    seed_exec_on(w, "avg_pool2d", {0}, k22, 10);
    seed_exec_on(w, "avg_pool2d_bp", {0, 4}, k22, 11);
    seed_exec_on(w, "im2col", {0}, k22, 12);
    seed_exec_on(w, "col2im", {12}, {210, 1, 2, enc_int(4), enc_int(4)}, 13);
    write_seed(dir, "conv_ops", w);
  }
  {  // batch and layer normalisation, forward and backward; linear and its gradient
    Writer w;
    seed_from_host(w, NDRT_F32, {2, 3}, 0, 2);
    seed_from_host(w, NDRT_F32, {3}, 1, 2);
    seed_from_host(w, NDRT_F32, {3}, 2, 2);
    w.u8(kFromHost).u8(NDRT_F32 - 1).u8(1).u8(3).u8(3).u8(0).u8(1).u8(0).u8(3).u8(0);  // running mean, zeros
    w.u8(kFromHost).u8(NDRT_F32 - 1).u8(1).u8(3).u8(4).u8(0).u8(1).u8(0).u8(3).u8(0);  // running var, zeros
    seed_exec_on(w, "batch_norm", {0, 1, 2, 3, 4}, {}, 8);        // y 8, mean 9, invstd 10, 11, 12
    seed_exec_on(w, "batch_norm_inference", {0, 1, 2, 3, 4}, {}, 13);
    seed_exec_on(w, "batch_norm_bp", {0, 1, 9, 10, 0}, {}, 5);     // 5, 6, 7
    for (int s : {5, 6, 7, 8, 9, 10, 11, 12, 13}) w.u8(kRelease).u8(s);
    seed_exec_on(w, "layer_norm", {0, 1, 2}, {}, 5);              // y 5, mean 6, invstd 7
    seed_exec_on(w, "layer_norm_bp", {0, 1, 6, 7, 0}, {}, 8);     // 8, 9, 10
    w.u8(kRelease).u8(3).u8(kRelease).u8(4);
    seed_from_host(w, NDRT_F32, {3, 4}, 3, 2);
    seed_from_host(w, NDRT_F32, {4}, 4, 2);
    seed_exec_on(w, "linear", {0, 3, 4}, {}, 11);                 // y [2,4]
    seed_exec_on(w, "linear_bp", {0, 3, 4, 11, 11}, {}, 12);
    write_seed(dir, "norm_linear_ops", w);
  }
  {  // lstm and gru, forward and backward: B 2, T 3, I 2, H 2
    Writer w;
    seed_from_host(w, NDRT_F32, {2, 3, 2}, 0, 2);
    seed_from_host(w, NDRT_F32, {8, 2}, 1, 2);
    seed_from_host(w, NDRT_F32, {8, 2}, 2, 2);
    seed_from_host(w, NDRT_F32, {8}, 3, 2);
    seed_from_host(w, NDRT_F32, {8}, 4, 2);
    seed_from_host(w, NDRT_F32, {2, 2}, 5, 2);
    seed_from_host(w, NDRT_F32, {2, 2}, 6, 2);
    seed_from_host(w, NDRT_I64, {2}, 7, 2);  // lengths 0..3
    seed_exec_on(w, "lstm", {0, 1, 2, 3, 4, 5, 6, 7}, {}, 8);  // y 8, h_n 9, c_n 10, ws 11
    seed_exec_on(w, "lstm_bp", {0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 8, 5, 6}, {}, 12);
    write_seed(dir, "lstm", w);
  }
  {
    Writer w;
    seed_from_host(w, NDRT_F32, {2, 3, 2}, 0, 2);
    seed_from_host(w, NDRT_F32, {6, 2}, 1, 2);
    seed_from_host(w, NDRT_F32, {6, 2}, 2, 2);
    seed_from_host(w, NDRT_F32, {6}, 3, 2);
    seed_from_host(w, NDRT_F32, {6}, 4, 2);
    seed_from_host(w, NDRT_F32, {2, 2}, 5, 2);
    seed_from_host(w, NDRT_I64, {2}, 6, 2);
    seed_exec_on(w, "gru", {0, 1, 2, 3, 4, 5, 6}, {}, 8);  // y 8, h_n 9, ws 10
    seed_exec_on(w, "gru_bp", {0, 1, 2, 3, 4, 5, 6, 8, 10, 8, 5}, {}, 11);
    write_seed(dir, "gru", w);
  }
  {  // in place and aliased: add into its own input, then an output that is a view of an input
    Writer w;
    seed_from_host(w, NDRT_F32, {3, 3}, 0, 2);
    seed_from_host(w, NDRT_F32, {3, 3}, 1, 2);
    seed_exec(w, op_id_of("add"), false, true);
    seed_exec(w, op_id_of("mul"), false, true);
    seed_exec(w, op_id_of("exp"), false, true);
    write_seed(dir, "inplace", w);
  }
  {  // a wrapped f32 [4,6] buffer with a freeing release callback, views of it, copies, reads, writes
    Writer w;
    w.u8(kWrap).u8(0).u8(2).u8(4).u8(6);   // f32, rank 2, [4, 6]
    w.u8(1);                               // row-major strides
    w.u8(1).u8(95).u8(0);                  // buffer of 96 bytes
    w.u8(0).u8(2).u8(1).u8(0).u8(0);       // aligned, capacity 96, freeing callback, data, slot 0
    w.u8(2).u8(0);                         // small values
    w.u8(kTranspose).u8(0).u8(9).u8(10).u8(1);                // axes 0, 1 -> slot 1
    w.u8(kSlice).u8(1).u8(9).u8(4).u8(8).u8(5).u8(2);         // [1:5:2] on axis 0 -> slot 2
    w.u8(kExpand).u8(0).u8(0).u8(1).u8(3).u8(3);              // [3, 4, 6] -> slot 3
    w.u8(kReshape).u8(0).u8(2).u8(1).u8(0).u8(2).u8(0).u8(0).u8(4);  // [-1, 3] -> slot 4
    w.u8(kContiguous).u8(1).u8(0).u8(0).u8(5);                // slot 5
    w.u8(kRead).u8(2).u8(0).u8(0);
    w.u8(kWrite).u8(5).u8(0).u8(1).u8(0).u8(0);
    w.u8(kRelease).u8(0).u8(kRelease).u8(192);                // release, then again (stale)
    write_seed(dir, "wrap_views", w);
  }
  {  // configuration, logging, profiler, events, memory, devices, op metadata, distributed
    Writer w;
    w.u8(kConfigSet).u8(17).u8(1);                       // profiler.enabled = 1
    w.u8(kProfiler).u8(0).u8(1);                         // profiler_enable(1)
    seed_from_host(w, NDRT_F32, {3, 3}, 0, 2);
    seed_from_host(w, NDRT_F32, {3, 3}, 1, 2);
    seed_exec(w, op_id_of("add"), false);
    w.u8(kProfiler).u8(4).u8(4);                         // summary into 4096 bytes
    w.u8(kProfiler).u8(3).u8(4);                         // trace to a file
    w.u8(kProfiler).u8(2).u8(0);                         // count
    w.u8(kConfigGet).u8(0).u8(0);                        // log.level, size query
    w.u8(kConfigGet).u8(1).u8(3).u8(5);                  // cpu.threads into 5 bytes
    w.u8(kLogCallback).u8(1);                            // re-entrant log callback
    w.u8(kConfigSet).u8(0).u8(13);                       // log.level = warn
    w.u8(kEvent).u8(0).u8(0).u8(0).u8(0).u8(0);          // record
    w.u8(kEvent).u8(3).u8(0).u8(0).u8(0);                // query
    w.u8(kEvent).u8(4).u8(0).u8(0).u8(0);                // release
    w.u8(kEvent).u8(4).u8(0).u8(0).u8(0);                // release again
    w.u8(kMemory).u8(1).u8(0).u8(0);                     // stats
    w.u8(kMemory).u8(1).u8(3).u8(1).u8(4).u8(0).u8(3);   // pressure at 320 bytes, releasing callback
    seed_from_host(w, NDRT_F32, {6, 6}, 2, 2);
    seed_exec(w, op_id_of("add"), false);
    w.u8(kDevice).u8(1).u8(1).u8(0).u8(16).u8(0);        // device_name(cpu:0) into 16 bytes
    w.u8(kDevice).u8(0).u8(0).u8(0).u8(0);               // device_count(cpu)
    w.u8(kDevice).u8(4).u8(4);                           // thread_attach(cuda:0)
    w.u8(kOpsMeta).u8(1).u8(5).u8(0);                    // op_find
    w.u8(kOpsMeta).u8(2).u8(6).u8(3).u8(8);              // op_describe into 8 bytes
    w.u8(kMisc).u8(3).u8(0).u8(0);                       // get_api(1)
    w.u8(kMisc).u8(1).u8(0).u8(40);                      // status_name(200)
    w.u8(kComm).u8(0).u8(1).u8(0).u8(0).u8(3).u8(0).u8(0);  // comm_world
    w.u8(kComm).u8(0).u8(2).u8(0).u8(1).u8(3).u8(0).u8(6);  // allreduce
    write_seed(dir, "runtime_calls", w);
  }
  {  // hostile shapes: 2^62 next to 0, huge reshape/expand, int64 extremes in slices
    Writer w;
    w.u8(kCreate).u8(0).u8(2).u8(0).u8(212).u8(1).u8(0).u8(0).u8(0);        // f32 [0, 2^62]
    seed_from_host(w, NDRT_F32, {1, 3}, 1, 2);
    w.u8(kExpand).u8(1).u8(0).u8(2).u8(212).u8(0).u8(1).u8(5).u8(3);        // to [2^62, 0, 5, 3]
    w.u8(kReshape).u8(1).u8(0).u8(3).u8(212).u8(212).u8(0).u8(0).u8(0);     // to [2^62, 2^62, 0]
    w.u8(kSlice).u8(1).u8(9).u8(176).u8(177).u8(176).u8(3);                 // INT64_MIN:INT64_MAX:INT64_MIN
    write_seed(dir, "hostile_shapes", w);
  }
}

}  // namespace

// Sanitizer settings of this program (the environment's ASAN_OPTIONS/UBSAN_OPTIONS come on top):
// an allocation beyond 256 MiB fails (ndrt then reports NDRT_ERR_OUT_OF_MEMORY, as it would for a
// size the system cannot give) instead of using the machine's memory; UBSan stops at its first report.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=1";
}
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  initialise();
  for (int i = 1; i < *argc; ++i) {
    const char* a = (*argv)[i];
    if (std::strncmp(a, "--make-seeds=", 13) == 0) {
      make_seeds(a + 13);
      std::exit(0);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_initialised) initialise();
  // The totals now and then too: libFuzzer leaves without exit handlers when interrupted.
  if (++g_inputs % 50000 == 0) print_totals();
  int64_t live0 = 0;
  ndrt_memory_stats st0;
  MUST(ndrt_live_handles(&live0));
  MUST(ndrt_memory_stats_get(NDRT_CPU, &st0));
  Reader r{data, size};
  for (int call = 0; call < kMaxCalls && !r.empty(); ++call) run_one(r);
  clean_up();
  int64_t live1 = 0;
  ndrt_memory_stats st1;
  MUST(ndrt_live_handles(&live1));
  MUST(ndrt_memory_stats_get(NDRT_CPU, &st1));
  if (live1 != live0) die("live handles %lld after the input, %lld before", (long long)live1, (long long)live0);
  if (st1.in_use != st0.in_use)
    die("host pool in use: %lld bytes after the input, %lld before", (long long)st1.in_use, (long long)st0.in_use);
  if (st1.wrapped != st0.wrapped)
    die("wrapped bytes: %lld after the input, %lld before", (long long)st1.wrapped, (long long)st0.wrapped);
  for (Wrapped* w : g.wrapped) {
    if (w->ok && w->with_callback && w->released != 1)
      die("a wrapped buffer's release callback ran %d times once all its views were released", w->released);
    if (!w->with_callback) std::free(w->buf);  // the wrap is over: the memory is ours again
    delete w;
  }
  g.wrapped.clear();
  return 0;
}
