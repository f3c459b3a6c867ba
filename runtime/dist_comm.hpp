// Inside runtime/dist*.cpp: a communicator runs its collectives in call order on a thread of its
// own, so a caller can stop waiting after dist.timeout_s while MPI (which cannot be interrupted)
// stays blocked on a lost peer. The MPI calls are the blocking ones on purpose: Open MPI's
// non-blocking collectives run other algorithms, 1.5-2x slower here.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mpi_backend.hpp"
#include "ndrt/ndrt.h"

namespace ndrt {

// What every rank must agree on for one collective (compared across ranks when dist.verify=1).
struct CallSignature {
  int64_t kind = 0;      // Collective below
  int64_t dtype = 0;
  int64_t arg = 0;       // reduction op or broadcast root
  int64_t tensors = 1;   // tensors in the call (async buckets)
  int64_t numel = 0;     // elements over all tensors
  int64_t rank = -1;     // shape of a single tensor (-1 for buckets)
  int64_t dims[NDRT_MAX_RANK] = {};
  int64_t layout = 0;    // buckets: a hash of every tensor's shape
  int64_t refused = 0;   // 1: this rank's arguments were refused (it takes part only to say so)
  std::string str() const;  // "allreduce f32 [2,3] sum"
};

enum Collective : int64_t { kAllreduce = 1, kBroadcast, kAllgather, kReduceScatter, kBarrier, kSplit };
const char* collective_name(int64_t kind);

// One collective in a communicator's queue. `run` does the MPI part on the communicator's thread
// (and, for asynchronous calls, everything after it).
struct Job {
  CallSignature sig;
  int64_t bytes = 0;            // on the wire, per rank (for messages)
  const char* impl = "mpi";     // profiler: "mpi" (zero-copy) or "mpi-staged"
  std::function<void()> run;
  // Completion, guarded by the communicator's mutex (`finished` mirrors `done` for spinning waiters).
  bool done = false;
  std::atomic<bool> finished{false};
  ndrt_status status = NDRT_OK;
  std::string message;
};

struct Comm {
  const ndrt_mpi_backend* backend = nullptr;
  ndrt_mpi_group group{};
  bool owned = true;  // split groups are freed with the last handle; the world group never is

  std::mutex mu;
  std::condition_variable cv;  // queue changes, job completions, breakage
  std::deque<std::shared_ptr<Job>> queue;
  std::atomic<int64_t> queued{0};  // queue.size(), readable without the mutex
  std::shared_ptr<Job> running;
  int64_t running_since_ns = 0;
  bool broken = false;  // a collective timed out: nothing more runs on this group
  bool stopping = false;
  std::thread worker;

  ~Comm();
};

// The group behind a live handle; NDRT_ERR_NOT_CONFIGURED (with the reason) where MPI is missing.
std::shared_ptr<Comm> comm_of(ndrt_comm id, const char* what);
// Queues `job` on the communicator (starting its thread on first use); fails at once when broken.
void submit(const std::shared_ptr<Comm>& comm, const std::shared_ptr<Job>& job);
// Runs a synchronous collective: queued and waited for (so it can time out), or, with
// dist.timeout_s=0, on the calling thread once the group is idle (no hand-over to its thread).
void run_sync(const std::shared_ptr<Comm>& comm, const std::shared_ptr<Job>& job);
// Waits for `job` (or for the timeout of whatever collective is running before it); throws the
// job's error.
void wait_for(Comm& comm, Job& job);

}  // namespace ndrt
