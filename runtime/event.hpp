// Events: points in the work a thread has issued on a device (see ndrt_event_* in ndrt.h). Ids are
// never reused, so a released or invented id is reported, never dereferenced. Not a hot path: one
// mutex guards the table, and waits happen outside it.
#pragma once
#include <memory>

#include "ndrt/ndrt.h"

namespace ndrt {

// Work finished by another host thread (an asynchronous collective): an event can stand for it.
class HostCompletion {
 public:
  virtual ~HostCompletion() = default;
  virtual bool done() = 0;  // never blocks
  virtual void wait() = 0;  // blocks until done; throws the work's own error if it failed
};

// A new event that completes with `work`.
ndrt_event event_for(std::shared_ptr<HostCompletion> work);

ndrt_event event_record(ndrt_device device);
void event_wait(ndrt_event event, ndrt_device device);
void event_synchronize(ndrt_event event);
bool event_query(ndrt_event event);
void event_release(ndrt_event event);

}  // namespace ndrt
