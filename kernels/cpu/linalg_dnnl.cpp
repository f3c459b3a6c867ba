// bf16 matmul through oneDNN's matmul primitive (see linalg_half.hpp). On a CPU with native bf16
// (AVX512-BF16, AMX) it runs several times faster than converting to f32 for OpenBLAS sgemm.
//  - Threads: like the OpenBLAS path, the product is cut into tiles over ndrt's pool and every
//    primitive is created and run single-threaded (Debian's oneDNN runs on OpenMP: each calling
//    thread's omp_set_num_threads(1) is set for the call and put back), so cpu.threads holds and a
//    caller that finds the pool busy runs alone.
//  - Plans (primitives for a tile shape, strides and transposes) live in a small mutex-guarded
//    cache; scratchpads are user-managed, one block from ndrt's pool per tile, so one primitive may
//    run on several threads at once.
//  - Used only when oneDNN picks a native implementation (not "ref"); anything that fails falls
//    back to the f32 path, which rewrites the whole output.
#include "linalg_half.hpp"

#if NDRT_HAVE_DNNL
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <dnnl.hpp>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "dnnl_compat.hpp"
#include "linalg_engine.hpp"
#endif

namespace ndrt::linalg {

#if !NDRT_HAVE_DNNL

bool dnnl_matmul_bf16(OpContext&) { return false; }

#else

namespace {

using dnnl::memory;

struct Omp {
  void (*set)(int) = nullptr;
  int (*get)() = nullptr;
};
const Omp& omp() {
  static const Omp o = [] {
    Omp r;
    r.set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
    r.get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
    return r;
  }();
  return o;
}

// The calling thread's OpenMP thread count is 1 while this lives.
struct OneThread {
  int saved;
  OneThread() : saved(omp().get()) { omp().set(1); }
  ~OneThread() { omp().set(saved); }
};

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

struct Key {
  int64_t m, n, k, lda, ldb, ldc;
  bool ta, tb;
  bool operator==(const Key& o) const {
    return m == o.m && n == o.n && k == o.k && lda == o.lda && ldb == o.ldb && ldc == o.ldc && ta == o.ta && tb == o.tb;
  }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = size_t(k.ta) * 2 + size_t(k.tb);
    for (int64_t v : {k.m, k.n, k.k, k.lda, k.ldb, k.ldc}) h = h * 1000003u ^ std::hash<int64_t>()(v);
    return h;
  }
};

struct Plan {
  dnnl::matmul prim;
  memory::desc a, b, c, scratch;
};

// Creates the plan for one tile shape (under one OpenMP thread), or null when oneDNN has no
// native implementation for it.
std::shared_ptr<Plan> make_plan(const Key& key) {
  const auto bf = memory::data_type::bf16;
  const memory::desc a({key.m, key.k}, bf, key.ta ? memory::dims{1, key.lda} : memory::dims{key.lda, 1});
  const memory::desc b({key.k, key.n}, bf, key.tb ? memory::dims{1, key.ldb} : memory::dims{key.ldb, 1});
  const memory::desc c({key.m, key.n}, bf, memory::dims{key.ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  try {
    const dnnl::matmul::primitive_desc pd = dnnl_compat::matmul_pd(*cpu_engine(), a, b, c, attr);
    if (std::strstr(pd.impl_info_str(), "ref")) return nullptr;
    auto p = std::make_shared<Plan>();
    p->prim = dnnl::matmul(pd);
    p->a = a;
    p->b = b;
    p->c = c;
    p->scratch = pd.scratchpad_desc();
    return p;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

class PlanCache {
 public:
  std::shared_ptr<Plan> get(const Key& key, bool& ok) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) {
        ok = bool(it->second);
        return it->second;
      }
    }
    std::shared_ptr<Plan> p = make_plan(key);  // outside the lock: creation takes a while
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.size() >= kMaxPlans) map_.clear();
    map_.emplace(key, p);
    ok = bool(p);
    return p;
  }

 private:
  static constexpr size_t kMaxPlans = 256;
  std::mutex mu_;
  std::unordered_map<Key, std::shared_ptr<Plan>, KeyHash> map_;  // null: no native implementation
};

PlanCache& plans() {
  static PlanCache* c = new PlanCache;  // process lifetime
  return *c;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream s(*cpu_engine());
  return s;
}

// oneDNN is built in, OpenMP's thread count can be set, and a typical shape gets a native kernel.
bool usable() {
  static const bool yes = [] {
    if (!cpu_engine() || !omp().set || !omp().get) return false;
    OneThread one;
    bool ok = false;
    plans().get(Key{64, 64, 64, 64, 64, 64, false, false}, ok);
    return ok;
  }();
  return yes;
}

}  // namespace

bool dnnl_matmul_bf16(OpContext& c) {
  if (!usable()) return false;
  const bool want_ta = c.attrs.get_bool(0), want_tb = c.attrs.get_bool(1);
  const Tensor &a0 = *c.in[0], &b0 = *c.in[1], &y = *c.out[0];
  const int ry = y.rank();
  const int64_t m = y.shape.d[ry - 2], n = y.shape.d[ry - 1], k = a0.shape.d[a0.rank() - (want_ta ? 2 : 1)];
  if (y.numel() == 0) {
    c.impl = "onednn:matmul-bf16";
    return true;
  }
  if (k == 0) return false;  // zeros: the f32 path writes them
  check_blas_sizes("matmul", m, n, k);
  MatArg ma, mb;
  const Tensor a = blas_operand<BFloat16>(a0, want_ta, ma), b = blas_operand<BFloat16>(b0, want_tb, mb);
  const WorkOut w = work_out(y);
  Dims batch = y.shape;
  batch.rank -= 2;
  int64_t sa[NDRT_MAX_RANK], sb[NDRT_MAX_RANK];
  batch_strides(a, batch, sa);
  batch_strides(b, batch, sb);
  const BFloat16 *ap = a.data<BFloat16>(), *bp = b.data<BFloat16>();
  BFloat16* wp = w.buf.data<BFloat16>();
  std::atomic<bool> failed{false};
  run_tiled(batch.numel(), m, n, k, [&](int64_t bi, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      OneThread one;
      bool ok = false;
      std::shared_ptr<Plan> p = plans().get(Key{i1 - i0, j1 - j0, k, ma.ld, mb.ld, w.ld, ma.trans, mb.trans}, ok);
      if (!ok) {
        failed = true;
        return;
      }
      const BFloat16* at = ap + batch_offset(bi, batch, sa) + (ma.trans ? i0 : i0 * ma.ld);
      const BFloat16* bt = bp + batch_offset(bi, batch, sb) + (mb.trans ? j0 * mb.ld : j0);
      BFloat16* ct = wp + batch_offset(bi, batch, w.bs) + i0 * w.ld + j0;
      Dims sd{};
      sd.rank = 1;
      sd.d[0] = int64_t(p->scratch.get_size()) + 64;
      Tensor scratch = alloc_tensor(NDRT_U8, sd, c.device);
      memory ma_(p->a, *cpu_engine(), const_cast<BFloat16*>(at)), mb_(p->b, *cpu_engine(), const_cast<BFloat16*>(bt)),
          mc_(p->c, *cpu_engine(), ct), ms_(p->scratch, *cpu_engine(), scratch.base());
      dnnl::stream& s = thread_stream();
      p->prim.execute(s, {{DNNL_ARG_SRC, ma_}, {DNNL_ARG_WEIGHTS, mb_}, {DNNL_ARG_DST, mc_}, {DNNL_ARG_SCRATCHPAD, ms_}});
      s.wait();
      if (!w.direct) {
        const int64_t rs = y.strides.d[ry - 2], cs = y.strides.d[ry - 1];
        copy_block(y.data<BFloat16>() + batch_offset(bi, batch, y.strides.d) + i0 * rs + j0 * cs, rs, cs, ct, w.ld,
                   int64_t(1), i1 - i0, j1 - j0);
      }
    } catch (...) {  // oneDNN or allocation failure: the caller redoes the whole product in f32
      failed = true;
    }
  });
  if (failed) return false;
  c.impl = "onednn:matmul-bf16";
  return true;
}

#endif

}  // namespace ndrt::linalg
