#include "error.hpp"

#include <cstdarg>
#include <cstdio>

namespace ndrt {

void fail(ndrt_status status, const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  throw Error(status, buf);
}

std::string dims_str(const int64_t* dims, int rank) {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

}  // namespace ndrt
