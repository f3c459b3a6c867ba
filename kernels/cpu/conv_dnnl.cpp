// oneDNN convolution (forward, backward data, backward weights) for f32/bf16/f16 on dense operands
// in ndrt's layouts (NCHW + OIHW or NHWC + OHWI).
//  - Plans (primitives, reorders, buffer sizes) live in a bounded LRU cache keyed by pass, dtype,
//    geometry and thread count, so a training loop creates them once.
//  - Formats: a plan is built for up to four candidates (plain user formats; plain data with
//    oneDNN's preferred weights format; oneDNN's preferred formats everywhere; channels-last
//    images, where oneDNN has brgemm kernels), with reorders where they differ from the caller's.
//    The first request of a configuration checks each against ndrt's own kernel on test values (a
//    wrong one is dropped), times the rest (and, for f32, ndrt's own kernel, in runs alternating
//    with the best candidate's) and keeps the fastest (a later candidate only when clearly
//    faster, so near-ties resolve alike in every process; ndrt's direct kernels count as the
//    earlier one): which one wins depends on shape and ISA (e.g. blocked formats for 1-channel
//    images, channels-last for LeNet's second convolution, on a Zen 5 with AVX-512).
//  - Scratchpads are user-managed: each call takes one block from ndrt's pool, so primitives may
//    run on any thread and concurrently.
//  - Threads: Debian's oneDNN runs on OpenMP, not on ndrt's pool. Like the pool, one host thread at
//    a time gets the active thread count (cpu.threads less the cores other processes keep busy,
//    runtime/cores.hpp) in OpenMP threads; callers that find oneDNN busy run single-threaded
//    rather than oversubscribe the cores. The count is set per call with omp_set_num_threads.
#include "conv_util.hpp"

#if NDRT_HAVE_DNNL
#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <dnnl.hpp>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.hpp"
#include "cores.hpp"
#include "dnnl_compat.hpp"
#endif

namespace ndrt {

#if !NDRT_HAVE_DNNL

struct DnnlConvPlan {};
bool dnnl_built_in() { return false; }
DnnlConv::DnnlConv(ConvPass, const Conv2dGeom& g, ndrt_dtype, bool, bool) : device_(g.device) {}
DnnlConv::~DnnlConv() = default;
const char* DnnlConv::run(const void*, const void*, const void*, void*, bool) {
  fail(NDRT_ERR_INTERNAL, "conv2d: oneDNN is not built in");
}

#else

using dnnl::memory;
using Tag = memory::format_tag;
using DT = memory::data_type;

namespace {

dnnl::engine* cpu_engine() {
  static dnnl::engine* e = []() -> dnnl::engine* {
    try {
      return new dnnl::engine(dnnl::engine::kind::cpu, 0);  // process lifetime
    } catch (const dnnl::error&) {
      return nullptr;
    }
  }();
  return e;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream s(*cpu_engine());
  return s;
}

// omp_set_num_threads of the OpenMP runtime oneDNN brought in (null if it uses another runtime).
void set_omp_threads(int n) {
  using Fn = void (*)(int);
  static Fn f = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (f) f(n);
}

std::mutex g_busy;  // held by the host thread whose oneDNN call has the cores

DT dnnl_dt(ndrt_dtype d) { return d == NDRT_BF16 ? DT::bf16 : d == NDRT_F16 ? DT::f16 : DT::f32; }

// One tensor argument: the caller's plain layout, the primitive's, and the reorder between them
// (user -> primitive for inputs, primitive -> user for the output) into a slice of the block.
struct Arg {
  int id = 0;
  memory::desc user, prim;
  bool reorder = false;
  dnnl::reorder r;
  size_t offset = 0;
};

constexpr int kKeyLen = 22;
struct Key {
  int64_t v[kKeyLen];
  bool operator==(const Key& o) const { return std::memcmp(v, o.v, sizeof v) == 0; }
};

Key make_key(ConvPass pass, const Conv2dGeom& g, ndrt_dtype dt, bool bias, bool allow_ref, int nthr) {
  Key k{{int64_t(pass), dt, bias, allow_ref, g.nhwc, g.n, g.c, g.h, g.w, g.k, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw,
         g.pt, g.pb, g.pl, g.pr, g.groups, nthr}};
  return k;
}

size_t align64(size_t n) { return (n + 63) & ~size_t(63); }

}  // namespace

struct DnnlConvPlan {
  dnnl::primitive prim;
  Arg a, b, out;
  bool bias = false;
  memory::desc bias_md;
  size_t scratch_bytes = 0, block_bytes = 0;
  const char* impl = nullptr;
  const char* impl_converted = nullptr;  // the same on f32 data converted from f16/bf16
};

namespace {

// Descriptors of the three roles: image side (x/dx), weights (w/dw), output side (y/dy).
struct Roles {
  memory::desc x, w, y, bias;
};

// The formats of one candidate: the caller's own, or oneDNN's choice ("any") for the weights and
// the images, or channels-last images (NHWC: oneDNN's brgemm convolutions) with its weights.
enum class Formats { User, AnyWeights, AnyAll, ChannelsLast };

Roles roles(const Conv2dGeom& g, DT dt, Formats f) {
  const int64_t G = g.groups;
  memory::dims xd{g.n, g.c, g.h, g.w}, yd{g.n, g.k, g.oh, g.ow};
  memory::dims wd = G == 1 ? memory::dims{g.k, g.c, g.kh, g.kw} : memory::dims{G, g.k / G, g.c / G, g.kh, g.kw};
  const Tag wt = G == 1 ? (g.nhwc ? Tag::ohwi : Tag::oihw) : (g.nhwc ? Tag::gohwi : Tag::goihw);
  const Tag user = g.nhwc ? Tag::nhwc : Tag::nchw;
  const Tag it = f == Formats::AnyAll ? Tag::any : f == Formats::ChannelsLast ? Tag::nhwc : user;
  Roles r;
  r.x = memory::desc(xd, dt, it);
  r.w = memory::desc(wd, dt, f == Formats::User ? wt : Tag::any);
  r.y = memory::desc(yd, dt, it);
  r.bias = memory::desc({g.k}, dt, Tag::x);
  return r;
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

// Builds one candidate plan; null when oneDNN has no (acceptable) implementation for it.
std::shared_ptr<DnnlConvPlan> build(ConvPass pass, const Conv2dGeom& g, ndrt_dtype ndt, bool bias, bool allow_ref,
                                    Formats formats) {
  const dnnl::engine& eng = *cpu_engine();
  const DT dt = dnnl_dt(ndt);
  const Roles u = roles(g, dt, Formats::User);
  const Roles c = roles(g, dt, formats);
  const dnnl_compat::ConvShape shape{{g.sh, g.sw}, {g.dh - 1, g.dw - 1}, {g.pt, g.pl}, {g.pb, g.pr}};
  const dnnl::primitive_attr attr = user_scratchpad();
  auto plan = std::make_shared<DnnlConvPlan>();
  dnnl::primitive_desc_base pd;
  memory::desc px, pw, py;
  try {
    const auto fpd = dnnl_compat::conv_fwd_pd(eng, c.x, c.w, bias ? c.bias : memory::desc(), c.y, shape, attr);
    if (pass == ConvPass::Fwd) {
      pd = fpd;
      px = fpd.src_desc(), pw = fpd.weights_desc(), py = fpd.dst_desc();
      plan->prim = dnnl::convolution_forward(fpd);
    } else if (pass == ConvPass::BwdData) {
      const auto bpd = dnnl_compat::conv_bwd_data_pd(eng, c.x, c.w, c.y, shape, attr, fpd);
      pd = bpd;
      px = bpd.diff_src_desc(), pw = bpd.weights_desc(), py = bpd.diff_dst_desc();
      plan->prim = dnnl::convolution_backward_data(bpd);
    } else {
      const auto wpd = dnnl_compat::conv_bwd_weights_pd(eng, c.x, c.w, c.y, shape, attr, fpd);
      pd = wpd;
      px = wpd.src_desc(), pw = wpd.diff_weights_desc(), py = wpd.diff_dst_desc();
      plan->prim = dnnl::convolution_backward_weights(wpd);
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
  const std::string info = pd.impl_info_str();
  if (!allow_ref && info.rfind("ref", 0) == 0) return nullptr;  // slower than ndrt's own kernel

  // Arguments in the order of DnnlConv::run's (a, b, out) for this pass.
  struct RoleArg {
    int id;
    const memory::desc *user, *prim;
    bool output;
  };
  RoleArg ra, rb, ro;
  if (pass == ConvPass::Fwd) {
    ra = {DNNL_ARG_SRC, &u.x, &px, false}, rb = {DNNL_ARG_WEIGHTS, &u.w, &pw, false}, ro = {DNNL_ARG_DST, &u.y, &py, true};
  } else if (pass == ConvPass::BwdData) {
    ra = {DNNL_ARG_DIFF_DST, &u.y, &py, false}, rb = {DNNL_ARG_WEIGHTS, &u.w, &pw, false};
    ro = {DNNL_ARG_DIFF_SRC, &u.x, &px, true};
  } else {
    ra = {DNNL_ARG_SRC, &u.x, &px, false}, rb = {DNNL_ARG_DIFF_DST, &u.y, &py, false};
    ro = {DNNL_ARG_DIFF_WEIGHTS, &u.w, &pw, true};
  }
  size_t scratch = pd.scratchpad_desc().get_size(), off = 0;
  auto setup = [&](Arg& arg, const RoleArg& r) {
    arg.id = r.id;
    arg.user = *r.user;
    arg.prim = *r.prim;
    arg.reorder = arg.user != arg.prim;
    if (!arg.reorder) return true;
    try {
      dnnl::reorder::primitive_desc rpd = r.output ? dnnl::reorder::primitive_desc(eng, arg.prim, eng, arg.user, attr)
                                                   : dnnl::reorder::primitive_desc(eng, arg.user, eng, arg.prim, attr);
      arg.r = dnnl::reorder(rpd);
      scratch = std::max(scratch, rpd.scratchpad_desc().get_size());
    } catch (const dnnl::error&) {
      return false;
    }
    return true;
  };
  if (!setup(plan->a, ra) || !setup(plan->b, rb) || !setup(plan->out, ro)) return nullptr;
  plan->scratch_bytes = align64(scratch);
  off = plan->scratch_bytes;
  for (Arg* arg : {&plan->a, &plan->b, &plan->out})
    if (arg->reorder) {
      arg->offset = off;
      off += align64(arg->prim.get_size());
    }
  plan->block_bytes = off;
  plan->bias = bias;
  plan->bias_md = u.bias;
  const char* pass_name = pass == ConvPass::Fwd ? "conv_fwd" : pass == ConvPass::BwdData ? "conv_bwd_data" : "conv_bwd_weights";
  std::string name = std::string("onednn:") + pass_name + "(" + info;
  if (plan->a.reorder || plan->b.reorder || plan->out.reorder) name += ",reorders";
  name += ")";
  plan->impl = conv_intern(name.c_str());
  plan->impl_converted = conv_intern((name + "[f16/bf16 via f32]").c_str());
  return plan;
}

void* at(const Tensor& block, size_t off) { return block.data<char>() + off; }

const char* execute(const DnnlConvPlan& p, const void* a, const void* b, const void* bias, void* out,
                    ndrt_device dev) {
  const dnnl::engine& eng = *cpu_engine();
  dnnl::stream& s = thread_stream();
  Tensor block;
  if (p.block_bytes) {
    Dims d{};
    d.rank = 1;
    d.d[0] = int64_t(p.block_bytes);
    block = alloc_tensor(NDRT_U8, d, dev);
  }
  memory scratch;
  if (p.scratch_bytes) scratch = memory(memory::desc({int64_t(p.scratch_bytes)}, DT::u8, Tag::x), eng, at(block, 0));
  auto add_scratch = [&](std::unordered_map<int, memory>& m) {
    if (p.scratch_bytes) m[DNNL_ARG_SCRATCHPAD] = scratch;
  };
  std::unordered_map<int, memory> args;
  auto input = [&](const Arg& arg, const void* ptr) {
    memory user(arg.user, eng, const_cast<void*>(ptr));
    if (!arg.reorder) return user;
    memory prim(arg.prim, eng, at(block, arg.offset));
    std::unordered_map<int, memory> ra{{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, prim}};
    add_scratch(ra);
    arg.r.execute(s, ra);
    return prim;
  };
  args[p.a.id] = input(p.a, a);
  args[p.b.id] = input(p.b, b);
  memory user_out(p.out.user, eng, out);
  memory prim_out = p.out.reorder ? memory(p.out.prim, eng, at(block, p.out.offset)) : user_out;
  args[p.out.id] = prim_out;
  if (p.bias) args[DNNL_ARG_BIAS] = memory(p.bias_md, eng, const_cast<void*>(bias));
  add_scratch(args);
  p.prim.execute(s, args);
  if (p.out.reorder) {
    std::unordered_map<int, memory> ra{{DNNL_ARG_FROM, prim_out}, {DNNL_ARG_TO, user_out}};
    add_scratch(ra);
    p.out.r.execute(s, ra);
  }
  s.wait();
  return p.impl;
}

// A clock for timing candidates: the calling thread's cpu time when every candidate runs on it
// alone (one active thread: immune to other processes' load), else wall time.
double seconds() {
  if (active_threads() == 1) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Deterministic values in [-1, 1] on a 1/64 grid (exact in every float dtype), dtype dt.
Tensor test_values(ndrt_dtype dt, int64_t n, uint32_t seed, ndrt_device dev) {
  Dims d{};
  d.rank = 1;
  d.d[0] = std::max<int64_t>(n, 1);
  Tensor t = alloc_tensor(NDRT_F32, d, dev);
  float* p = t.data<float>();
  uint32_t s = seed;
  for (int64_t i = 0; i < d.d[0]; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = float(int((s >> 9) % 129) - 64) / 64.0f;
  }
  if (dt == NDRT_F32) return t;
  Tensor o = alloc_tensor(dt, d, dev);
  conv_store(o, t);
  return o;
}

// Picks the candidate to keep. Each one first runs on test values and is compared with ndrt's own
// f32 kernel: a candidate that disagrees is dropped with a warning (oneDNN 2.6.3's bf16 1x1
// backward-data kernel on plain NHWC, for one, returns wrong values for some shapes). The
// survivors are timed on the call's sizes and the fastest is returned. With time_own (f32, engine
// auto), ndrt's own kernel is timed too, and null returned when it is the fastest (null also when
// no candidate survived).
// A later candidate replaces the best so far only when it is this much faster: candidates within
// timing noise of each other then resolve to the same (earlier) one in every process, and processes
// that compute alike train alike (each candidate rounds differently).
constexpr double kClearlyFaster = 0.95;

std::shared_ptr<DnnlConvPlan> choose(std::vector<std::shared_ptr<DnnlConvPlan>>& cands, ConvPass pass,
                                     const Conv2dGeom& g, ndrt_dtype dt, bool time_own, int nthr) {
  const ndrt_device dev = g.device;
  const int64_t nx = g.n * g.c * g.h * g.w, nw = g.k * (g.c / g.groups) * g.kh * g.kw, ny = g.n * g.k * g.oh * g.ow;
  const int64_t na = pass == ConvPass::BwdData ? ny : nx, nb = pass == ConvPass::Fwd ? nw : pass == ConvPass::BwdData ? nw : ny;
  const int64_t no = pass == ConvPass::Fwd ? ny : pass == ConvPass::BwdData ? nx : nw;
  Tensor ta = test_values(dt, na, 1, dev), tb = test_values(dt, nb, 2, dev), tbias = test_values(dt, g.k, 3, dev);
  Tensor to = test_values(dt, no, 4, dev);
  Tensor ref = test_values(NDRT_F32, no, 4, dev);
  Tensor a32 = conv_to_f32(ta), b32 = conv_to_f32(tb), bias32 = conv_to_f32(tbias);
  const float* bias_ref = cands[0]->bias ? bias32.data<float>() : nullptr;
  own_conv_pass<float>(pass, g, a32.data<float>(), b32.data<float>(), bias_ref, ref.data<float>());
  double scale = 0;
  for (int64_t i = 0; i < no; ++i) scale = std::max(scale, double(std::fabs(ref.data<float>()[i])));
  const double tol = (dt == NDRT_F32 ? 1e-3 : 4e-2) * scale + 1e-6;

  std::shared_ptr<DnnlConvPlan> best;
  double best_t = 1e300;
  // Best of three timed runs after a warm-up (caches, page faults). A run three times slower than
  // the best so far ends it: a slow candidate on a big shape costs one run, not four.
  auto best_of_3 = [&best_t](auto&& run) {
    double t = 1e300;
    for (int rep = 0; rep < 4; ++rep) {
      const double t0 = seconds();
      run();
      const double dt = seconds() - t0;
      if (dt > 3 * best_t) return dt;
      if (rep > 0) t = std::min(t, dt);
    }
    return t;
  };
  for (auto& cand : cands) {
    execute(*cand, ta.base(), tb.base(), tbias.base(), to.base(), dev);
    Tensor got = conv_to_f32(to);
    double err = 0;
    for (int64_t i = 0; i < no; ++i)
      err = std::max(err, double(std::fabs(got.data<float>()[i] - ref.data<float>()[i])));
    if (!(err <= tol)) {
      log(NDRT_LOG_WARN, "conv2d: oneDNN %s is off by %g (scale %g) on a self-check for this shape; not used",
          cand->impl, err, scale);
      continue;
    }
    if (cands.size() == 1 && !time_own) return cand;
    const double t = best_of_3([&] { execute(*cand, ta.base(), tb.base(), tbias.base(), to.base(), dev); });
    if (!best || t < kClearlyFaster * best_t) best_t = t, best = cand;
  }
  if (best && time_own) {
    // ndrt's own kernel against the best candidate in alternating runs, so that a slow phase of
    // the host (a neighbour's burst, a frequency step) lands on both rather than on one.
    Tensor own_out = test_values(NDRT_F32, no, 4, dev);
    auto own_wins = [&] {
      double own_t = 1e300, cand_t = 1e300;
      for (int rep = 0; rep < 6; ++rep) {
        double t0 = seconds();
        own_conv_pass<float>(pass, g, a32.data<float>(), b32.data<float>(), bias_ref, own_out.data<float>());
        const double t_own = seconds() - t0;
        t0 = seconds();
        execute(*best, ta.base(), tb.base(), tbias.base(), to.base(), dev);
        const double t_cand = seconds() - t0;
        if (rep == 0) continue;  // warm-up
        own_t = std::min(own_t, t_own), cand_t = std::min(cand_t, t_cand);
        if (own_t > 3 * cand_t) break;  // clearly slower: no need for more runs
      }
      // ndrt's direct kernels hold their ground unless oneDNN is clearly faster: their results do not
      // depend on the thread count, and in a training step (caches holding other layers' data) they
      // measured further ahead than here, where oneDNN's reorders run on warm caches.
      return direct_conv_applies(g) ? !(cand_t < kClearlyFaster * own_t) : own_t < kClearlyFaster * cand_t;
    };
    if (!own_wins()) return best;
    if (nthr == 1 || direct_conv_applies(g)) return nullptr;
    // im2col + sgemm won on several threads: confirmed on one, where a thread of oneDNN's OpenMP team
    // that the host deschedules (a JVM's compiler threads at start-up, measured: 2 of 4 processes
    // kept im2col for a ResNet's convolution that runs 2-3x slower than oneDNN's) cannot stall it.
    ThreadCap one(1);
    set_omp_threads(1);
    const bool again = own_wins();
    set_omp_threads(nthr);
    return again ? nullptr : best;
  }
  return best;
}

struct PlanCache {
  static constexpr size_t kCapacity = 128;
  std::mutex mu;
  struct Entry {
    Key key;
    std::shared_ptr<const DnnlConvPlan> plan;  // null: oneDNN cannot run this configuration
    uint64_t used;
  };
  std::vector<Entry> entries;
  uint64_t clock = 0;

  bool find(const Key& k, std::shared_ptr<const DnnlConvPlan>& out) {
    std::lock_guard<std::mutex> lock(mu);
    for (Entry& e : entries)
      if (e.key == k) {
        e.used = ++clock;
        out = e.plan;
        return true;
      }
    return false;
  }
  void insert(const Key& k, std::shared_ptr<const DnnlConvPlan> p) {
    std::lock_guard<std::mutex> lock(mu);
    for (Entry& e : entries)
      if (e.key == k) return;  // another thread built it meanwhile
    if (entries.size() >= kCapacity) {
      size_t lru = 0;
      for (size_t i = 1; i < entries.size(); ++i)
        if (entries[i].used < entries[lru].used) lru = i;
      entries.erase(entries.begin() + std::ptrdiff_t(lru));
    }
    entries.push_back({k, std::move(p), ++clock});
  }
};

PlanCache& cache() {
  static PlanCache* c = new PlanCache;  // process lifetime: plans may be used during exit
  return *c;
}

}  // namespace

bool dnnl_built_in() { return cpu_engine() != nullptr; }

DnnlConv::DnnlConv(ConvPass pass, const Conv2dGeom& g, ndrt_dtype dt, bool bias, bool allow_ref)
    : lease_(g_busy, std::try_to_lock), device_(g.device) {
  if (!cpu_engine()) return;
  const int nthr = lease_.owns_lock() && !forked_child() ? int(active_threads()) : 1;
  set_omp_threads(nthr);
  const Key key = make_key(pass, g, dt, bias, allow_ref, nthr);
  if (cache().find(key, plan_)) return;
  std::vector<std::shared_ptr<DnnlConvPlan>> cands;
  for (Formats f : {Formats::User, Formats::AnyWeights, Formats::AnyAll, Formats::ChannelsLast}) {
    std::shared_ptr<DnnlConvPlan> p = build(pass, g, dt, bias, allow_ref, f);
    if (!p) continue;
    bool dup = false;  // same formats and implementation as an earlier candidate
    for (auto& q : cands)
      dup |= q->impl == p->impl && q->a.prim == p->a.prim && q->b.prim == p->b.prim && q->out.prim == p->out.prim;
    if (!dup) cands.push_back(std::move(p));
  }
  std::shared_ptr<const DnnlConvPlan> best;
  if (!cands.empty()) {
    ThreadCap cap(nthr);  // ndrt's own kernel is timed on the threads oneDNN gets
    try {
      best = choose(cands, pass, g, dt, !allow_ref && dt == NDRT_F32, nthr);
    } catch (const dnnl::error&) {
      best = nullptr;
    }
  }
  cache().insert(key, best);
  plan_ = best;
}

DnnlConv::~DnnlConv() = default;

const char* DnnlConv::run(const void* a, const void* b, const void* bias, void* out, bool converted) {
  try {
    const char* impl = execute(*plan_, a, b, bias, out, device_);
    return converted ? plan_->impl_converted : impl;
  } catch (const dnnl::error& e) {
    fail(e.status == dnnl_out_of_memory ? NDRT_ERR_OUT_OF_MEMORY : NDRT_ERR_BACKEND, "conv2d: oneDNN failed: %s",
         e.what());
  }
}

#endif

}  // namespace ndrt
