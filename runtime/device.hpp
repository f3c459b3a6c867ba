// Devices: the table of present devices (built lazily on first use), their allocators, and the
// calling thread's current device (thread <-> device affinity).
#pragma once
#include <string>

#include "memory.hpp"
#include "ndrt/ndrt.h"

namespace ndrt {

int32_t device_count(int32_t type);
bool device_exists(ndrt_device device);
// Throws NDRT_ERR_INVALID_ARGUMENT naming `what` when the device is not present.
void check_device(const char* what, ndrt_device device);
std::string device_name(ndrt_device device);
Allocator& allocator_for(ndrt_device device);  // throws for an absent device
bool devices_initialized();
// Directory of libndrt itself ("" if unknown), where its modules (cuda, mpi) are looked for.
std::string library_directory();
int32_t default_device_type();

// Copies n bytes between dense buffers on any two devices (through the cuda backend when one is a
// cuda device; host buffers involved are done with on return).
void copy_bytes(ndrt_device dst_device, void* dst, ndrt_device src_device, const void* src, size_t n);
// Waits for the work the calling thread issued on `device` (nothing to wait for on cpu).
void synchronize(ndrt_device device);

// The calling thread's current device: assigned round-robin over the default type's devices on
// first use. Resolves NDRT_DEVICE_CURRENT to it.
ndrt_device thread_device();
void thread_attach(ndrt_device device);
inline ndrt_device resolve_device(ndrt_device d) { return d == NDRT_DEVICE_CURRENT ? thread_device() : d; }

}  // namespace ndrt
