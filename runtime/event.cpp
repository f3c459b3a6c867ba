#include "event.hpp"

#include <memory>
#include <mutex>
#include <unordered_map>

#include "cuda_backend.hpp"
#include "device.hpp"
#include "error.hpp"

namespace ndrt {

namespace {

// A recorded point; cuda events are destroyed with the last reference (a release may race with a
// wait on another thread, which keeps its own reference).
struct Event {
  void* cuda = nullptr;  // null: a cpu event, complete when recorded
  std::shared_ptr<HostCompletion> host;  // set: complete when that work is
  ~Event() {
    if (cuda) cuda_backend()->event_destroy(cuda);
  }
};

struct EventTable {
  std::mutex mu;
  std::unordered_map<ndrt_event, std::shared_ptr<Event>> live;
  ndrt_event next = 1;
};
EventTable& table() {
  static EventTable* t = new EventTable;  // never destroyed, like the other process tables
  return *t;
}

std::shared_ptr<Event> find(ndrt_event id, const char* what) {
  EventTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.live.find(id);
  if (it == t.live.end()) fail(NDRT_ERR_INVALID_HANDLE, "%s: %lld is not a live event", what, (long long)id);
  return it->second;
}

bool is_cuda(ndrt_device d) { return NDRT_DEVICE_TYPE_OF(d) == NDRT_DEVICE_TYPE_CUDA; }

ndrt_event insert(std::shared_ptr<Event> e) {
  EventTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  ndrt_event id = t.next++;
  t.live.emplace(id, std::move(e));
  return id;
}

}  // namespace

ndrt_event event_record(ndrt_device device) {
  check_device("event_record", device);
  auto e = std::make_shared<Event>();
  if (is_cuda(device)) e->cuda = cuda_backend()->event_record(NDRT_DEVICE_INDEX_OF(device));
  return insert(std::move(e));
}

ndrt_event event_for(std::shared_ptr<HostCompletion> work) {
  auto e = std::make_shared<Event>();
  e->host = std::move(work);
  return insert(std::move(e));
}

void event_wait(ndrt_event id, ndrt_device device) {
  std::shared_ptr<Event> e = find(id, "event_wait");
  check_device("event_wait", device);
  if (e->host) return e->host->wait();  // host work: the host waits (its results are in memory then)
  if (!e->cuda) return;  // complete already
  if (is_cuda(device))
    cuda_backend()->event_wait(e->cuda, NDRT_DEVICE_INDEX_OF(device));
  else
    cuda_backend()->event_synchronize(e->cuda);  // cpu work runs on the host: the host waits
}

void event_synchronize(ndrt_event id) {
  std::shared_ptr<Event> e = find(id, "event_synchronize");
  if (e->host) return e->host->wait();
  if (e->cuda) cuda_backend()->event_synchronize(e->cuda);
}

bool event_query(ndrt_event id) {
  std::shared_ptr<Event> e = find(id, "event_query");
  if (e->host) return e->host->done();
  return !e->cuda || cuda_backend()->event_query(e->cuda) != 0;
}

void event_release(ndrt_event id) {
  std::shared_ptr<Event> e;  // destroyed after the lock is dropped
  EventTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.live.find(id);
  if (it == t.live.end()) fail(NDRT_ERR_INVALID_HANDLE, "event_release: %lld is not a live event", (long long)id);
  e = std::move(it->second);
  t.live.erase(it);
}

}  // namespace ndrt
