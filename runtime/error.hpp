// Errors inside the runtime are C++ exceptions carrying a status; runtime/api.cpp turns them into
// a status plus the thread-local message at the C boundary. Nothing else catches them.
#pragma once
#include <exception>
#include <string>

#include "ndrt/ndrt.h"

namespace ndrt {

class Error : public std::exception {
 public:
  Error(ndrt_status status, std::string message) : status_(status), message_(std::move(message)) {}
  ndrt_status status() const noexcept { return status_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  ndrt_status status_;
  std::string message_;
};

// printf-style: fail(NDRT_ERR_SHAPE_MISMATCH, "add: shapes %s and %s do not broadcast", ...)
[[noreturn]] void fail(ndrt_status status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Formats "[2,3]" for messages.
std::string dims_str(const int64_t* dims, int rank);

}  // namespace ndrt
