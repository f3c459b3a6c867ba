// Communicators: the MPI module's loading, the handle table, each group's queue and thread, the
// timeout, and finalisation at exit. The collectives themselves are in runtime/dist.cpp.
#include <dlfcn.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <unordered_map>

#include "config.hpp"
#include "device.hpp"
#include "dtype.hpp"
#include "dist.hpp"
#include "dist_comm.hpp"
#include "error.hpp"
#include "profiler.hpp"

namespace ndrt {

namespace {

[[noreturn]] void host_fail(int32_t status, const char* message) { fail(status, "%s", message); }
void host_log(int32_t level, const char* message) { log(level, "%s", message); }
const ndrt_mpi_host kHost = {1, host_fail, host_log};

// Collectives not finished yet, over every group: MPI is finalised at exit only when this is 0
// and no group is broken (MPI_Finalize would wait for the lost peer forever).
std::atomic<int64_t> g_unfinished{0};
std::atomic<bool> g_any_broken{false};

struct MpiModule {
  const ndrt_mpi_backend* backend = nullptr;
  std::shared_ptr<Comm> world;
  ndrt_status status = NDRT_OK;  // why there is no backend
  std::string why;
};

void finalize_at_exit();

MpiModule load_mpi() {
  MpiModule m;
  m.status = NDRT_ERR_NOT_CONFIGURED;
  // libmpi first, with RTLD_GLOBAL: Open MPI's components (dlopened by libmpi itself) resolve
  // libmpi's symbols from the global scope, which a library pulled in by an RTLD_LOCAL module
  // is not in.
  // A JVM takes SIGSEGV for its implicit null checks and safepoints. UCX (which Open MPI picks on
  // clusters with InfiniBand) replaces the handlers of SIGSEGV/SIGBUS/SIGFPE/SIGILL with its own,
  // which kills the JVM (java_mpi_jvm_signals_ucx); Open MPI's own handlers, which it installs only
  // where none is, are off too. Both unless the user set them, and before libmpi is loaded: Open
  // MPI 5 (Debian 13) links UCX into libmpi, and UCX reads its settings and installs its handlers
  // when it is loaded, not in MPI_Init.
  setenv("OMPI_MCA_opal_signal", "", 0);
  setenv("UCX_ERROR_SIGNALS", "", 0);
  const char* mpi_env = std::getenv("NDRT_MPI_LIBRARY");
  std::string mpi_path = mpi_env ? mpi_env : "libmpi.so.40";
  if (!dlopen(mpi_path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
    m.why = "Open MPI is not available: " + mpi_path + " could not be loaded (" + dlerror() +
            "); install it (Debian: openmpi-bin libopenmpi-dev) and start the processes with mpirun";
    return m;
  }
  const char* env = std::getenv("NDRT_MPI_BACKEND");
  std::string path = env ? env : library_directory() + "libndrt_mpi.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    m.why = std::string("this ndrt has no MPI module: ") + dlerror() + " (build with MPI found: libopenmpi-dev)";
    return m;
  }
  auto entry = reinterpret_cast<ndrt_mpi_backend_entry>(dlsym(lib, "ndrt_mpi_backend_v1"));
  const ndrt_mpi_backend* b = entry ? entry() : nullptr;
  if (!b || b->version != 1) {
    m.why = path + " is not an ndrt MPI module of version 1";
    return m;
  }
  try {
    auto world = std::make_shared<Comm>();
    world->backend = b;
    world->group = b->init(&kHost);
    world->owned = false;
    m.world = std::move(world);
  } catch (const Error& e) {
    m.status = e.status();
    m.why = e.what();
    return m;
  }
  m.backend = b;
  m.status = NDRT_OK;
  std::atexit(finalize_at_exit);
  return m;
}

const MpiModule& mpi() {
  static const MpiModule* m = new MpiModule(load_mpi());  // never destroyed: used at exit
  if (!m->backend) fail(m->status, "distributed: %s", m->why.c_str());
  return *m;
}

void finalize_at_exit() {
  static const MpiModule* m = &mpi();
  if (g_any_broken.load() || g_unfinished.load() != 0) {
    // Not finalising makes mpirun report the job as failed, which it has.
    log(NDRT_LOG_WARN, "distributed: MPI not finalised (%s)",
        g_any_broken.load() ? "a collective timed out" : "collectives still running at exit");
    return;
  }
  m->backend->finalize();
}

struct CommTable {
  std::mutex mu;
  std::unordered_map<ndrt_comm, std::shared_ptr<Comm>> live;
  ndrt_comm next = 1;
};
CommTable& comms() {
  static CommTable* t = new CommTable;
  return *t;
}

ndrt_comm insert(std::shared_ptr<Comm> c) {
  CommTable& t = comms();
  std::lock_guard<std::mutex> lock(t.mu);
  ndrt_comm id = t.next++;
  t.live.emplace(id, std::move(c));
  return id;
}

std::string peers_text(const Comm& c) {
  const ndrt_mpi_group& g = c.group;
  if (g.size == 2) return "waited on rank " + std::to_string(1 - g.rank);
  return "waited on the other " + std::to_string(g.size - 1) + " ranks (MPI does not say which one is lost)";
}

// Called with c.mu held: the running collective passed the timeout. Everything queued fails too.
void break_comm(Comm& c, double timeout_s) {
  Job& j = *c.running;
  char text[512];
  std::snprintf(text, sizeof text,
                "%s (%lld bytes) did not complete within %.0f s: a peer died or stopped answering "
                "(this is rank %d of %d; %s); this communicator is unusable from now on",
                j.sig.str().c_str(), (long long)j.bytes, timeout_s, c.group.rank, c.group.size, peers_text(c).c_str());
  c.broken = true;
  g_any_broken.store(true);
  j.done = true;
  j.status = NDRT_ERR_BACKEND;
  j.message = text;
  j.finished.store(true);
  for (auto& q : c.queue) {
    q->done = true;
    q->status = NDRT_ERR_BACKEND;
    q->message = q->sig.str() + ": not run: " + text;
    q->finished.store(true);
    g_unfinished.fetch_sub(1);
  }
  c.queue.clear();
  c.queued.store(0);
  c.cv.notify_all();
}

void record_profile(const Job& j, int64_t start, const ndrt_mpi_group& g) {
  if (!profiler_enabled()) return;
  ProfileEvent e;
  e.op = collective_name(j.sig.kind);
  e.backend = "mpi";
  e.impl = j.impl;
  e.dtype = dtype_valid(ndrt_dtype(j.sig.dtype)) ? dtype_name(ndrt_dtype(j.sig.dtype)) : "-";
  e.shapes = j.sig.str() + " rank " + std::to_string(g.rank) + "/" + std::to_string(g.size);
  e.start_ns = start;
  e.dur_ns = profiler_now_ns() - start;
  e.thread = profiler_thread_id();
  profiler_record(std::move(e));
}

// A hand-over between a caller and its communicator's thread through the mutex and condition
// variable costs two wake-ups (10-15 µs here); back-to-back calls are caught by a short poll
// first. sched_yield leaves the core to MPI's own polling threads when they need it.
template <class Ready>
void spin_until(Ready ready) {
  int64_t until = profiler_now_ns() + 50000;
  while (!ready() && profiler_now_ns() < until) sched_yield();
}

// Runs a job's collective on the calling thread; its error (if any) goes into status/message.
void execute(Comm& c, Job& j, ndrt_status& status, std::string& message) {
  int64_t start = profiler_now_ns();
  try {
    j.run();
  } catch (const Error& e) {
    status = e.status();
    message = e.what();
  } catch (const std::exception& e) {
    status = NDRT_ERR_INTERNAL;
    message = j.sig.str() + ": internal error: " + e.what();
  }
  record_profile(j, start, c.group);
}

// The communicator's thread: runs queued collectives in order until stopped. A collective that
// outlived the timeout has been failed by a waiter; this thread finishes it (or stays blocked
// in MPI for good) and then stops.
void worker_loop(std::shared_ptr<Comm> self) {
  Comm& c = *self;
  std::unique_lock<std::mutex> lock(c.mu);
  for (;;) {
    if (c.queue.empty()) {
      lock.unlock();
      spin_until([&] { return c.queued.load(std::memory_order_acquire) > 0; });
      lock.lock();
    }
    c.cv.wait(lock, [&] { return c.stopping || c.broken || (!c.queue.empty() && !c.running); });
    if (c.broken || (c.stopping && c.queue.empty())) return;
    std::shared_ptr<Job> j = c.queue.front();
    c.queue.pop_front();
    c.queued.fetch_sub(1, std::memory_order_relaxed);
    c.running = j;
    c.running_since_ns = profiler_now_ns();
    lock.unlock();
    ndrt_status status = NDRT_OK;
    std::string message;
    execute(c, *j, status, message);
    lock.lock();
    c.running.reset();
    if (c.broken) return;  // the waiters were told already
    j->done = true;
    j->status = status;
    j->message = std::move(message);
    j->finished.store(true, std::memory_order_release);
    g_unfinished.fetch_sub(1);
    c.cv.notify_all();
  }
}

std::shared_ptr<Comm> find(ndrt_comm id, const char* what) {
  mpi();  // NOT_CONFIGURED (with the reason) before INVALID_HANDLE where MPI is missing
  CommTable& t = comms();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.live.find(id);
  if (it == t.live.end()) fail(NDRT_ERR_INVALID_HANDLE, "%s: %lld is not a live communicator", what, (long long)id);
  return it->second;
}

}  // namespace

Comm::~Comm() {
  if (owned && group.comm) backend->free(group.comm);
}

void submit(const std::shared_ptr<Comm>& comm, const std::shared_ptr<Job>& job) {
  Comm& c = *comm;
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.broken) fail(NDRT_ERR_BACKEND, "%s: the communicator is broken (an earlier collective timed out)", job->sig.str().c_str());
  if (!c.worker.joinable()) c.worker = std::thread(worker_loop, comm);
  c.queue.push_back(job);
  c.queued.fetch_add(1, std::memory_order_release);
  g_unfinished.fetch_add(1);
  c.cv.notify_all();
}

void run_sync(const std::shared_ptr<Comm>& comm, const std::shared_ptr<Job>& job) {
  if (config().dist_timeout_s.load(std::memory_order_relaxed) > 0) {
    submit(comm, job);
    return wait_for(*comm, *job);
  }
  // No timeout: the collective runs on the calling thread, after whatever was queued before it.
  Comm& c = *comm;
  {
    std::unique_lock<std::mutex> lock(c.mu);
    if (c.broken) fail(NDRT_ERR_BACKEND, "%s: the communicator is broken (an earlier collective timed out)", job->sig.str().c_str());
    c.cv.wait(lock, [&] { return c.broken || (c.queue.empty() && !c.running); });
    if (c.broken) fail(NDRT_ERR_BACKEND, "%s: the communicator is broken (an earlier collective timed out)", job->sig.str().c_str());
    c.running = job;
    c.running_since_ns = profiler_now_ns();
    g_unfinished.fetch_add(1);
  }
  ndrt_status status = NDRT_OK;
  std::string message;
  execute(c, *job, status, message);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.running.reset();
    job->done = true;
    g_unfinished.fetch_sub(1);
    c.cv.notify_all();
  }
  if (status != NDRT_OK) fail(status, "%s", message.c_str());
}

void wait_for(Comm& c, Job& j) {
  int64_t timeout_s = config().dist_timeout_s.load(std::memory_order_relaxed);
  int64_t timeout_ns = timeout_s * 1000000000;
  spin_until([&] { return j.finished.load(std::memory_order_acquire); });
  std::unique_lock<std::mutex> lock(c.mu);
  while (!j.done) {
    if (timeout_ns > 0 && c.running && profiler_now_ns() - c.running_since_ns > timeout_ns) {
      break_comm(c, double(timeout_s));
      break;
    }
    // Woken by completions; the slice bounds how late a timeout is noticed.
    c.cv.wait_for(lock, std::chrono::milliseconds(timeout_ns > 0 ? 100 : 1000));
  }
  if (j.status != NDRT_OK) fail(j.status, "%s", j.message.c_str());
}

std::shared_ptr<Comm> comm_of(ndrt_comm id, const char* what) { return find(id, what); }

ndrt_comm comm_world() { return insert(mpi().world); }
int32_t comm_rank(ndrt_comm comm) { return find(comm, "comm_rank")->group.rank; }
int32_t comm_size(ndrt_comm comm) { return find(comm, "comm_size")->group.size; }
int32_t comm_local_rank(ndrt_comm comm) { return find(comm, "comm_local_rank")->group.local_rank; }

ndrt_comm comm_split(ndrt_comm id, int32_t color, int32_t key) {
  std::shared_ptr<Comm> c = find(id, "comm_split");
  auto out = std::make_shared<Comm>();
  out->backend = c->backend;
  auto job = std::make_shared<Job>();
  job->sig.kind = kSplit;
  // color and key differ across ranks by design: only the call itself is compared.
  job->run = [out, backend = c->backend, comm = c->group.comm, color, key] { out->group = backend->split(comm, color, key); };
  submit(c, job);
  wait_for(*c, *job);
  if (!out->group.comm) return 0;
  return insert(std::move(out));
}

void comm_release(ndrt_comm id) {
  mpi();
  std::shared_ptr<Comm> c;
  {
    CommTable& t = comms();
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.live.find(id);
    if (it == t.live.end()) fail(NDRT_ERR_INVALID_HANDLE, "comm_release: %lld is not a live communicator", (long long)id);
    c = std::move(it->second);
    t.live.erase(it);
  }
  if (!c->owned) return;  // the world group, shared by every world handle, lives as long as the process
  // A split group's only handle: its thread finishes what was queued, then stops; the MPI group is
  // freed with the last reference (asynchronous calls' events hold one too). A broken group's
  // thread may be blocked in MPI for good: it is left behind, owning the group.
  // What is queued finishes first, waited for like any call: a lost peer ends the wait after
  // dist.timeout_s (and breaks the group) instead of hanging the release.
  std::shared_ptr<Job> last;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    if (!c->worker.joinable()) return;  // never used
    last = c->queue.empty() ? c->running : c->queue.back();
  }
  if (last) {
    try {
      wait_for(*c, *last);
    } catch (const Error&) {
      // that call's own error belongs to its event; the release goes on
    }
  }
  {
    std::lock_guard<std::mutex> lock(c->mu);
    c->stopping = true;
    c->cv.notify_all();
    if (c->broken) {
      c->worker.detach();
      return;
    }
  }
  c->worker.join();
}

}  // namespace ndrt
