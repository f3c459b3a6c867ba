// Dispatch: "no string lookup, no allocation on the hot path for ops whose outputs are given"
// (DESIGN.md). This file replaces the global operator new/delete of the test executable, which
// libndrt's own calls resolve to as well, and counts allocations made while a thread's counter is
// armed. (malloc calls of vendor libraries are not counted: only C++ allocations.)
#include <atomic>
#include <cstdlib>
#include <new>

#include "common/ndrt_test.hpp"

namespace {
thread_local bool t_counting = false;
thread_local int64_t t_allocations = 0;

void* counted_alloc(std::size_t n, std::size_t align) {
  if (t_counting) ++t_allocations;
  if (n == 0) n = 1;
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(n);
  } else {
    if (posix_memalign(&p, align, n) != 0) p = nullptr;
  }
  return p;
}
}  // namespace

void* operator new(std::size_t n) {
  void* p = counted_alloc(n, 0);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t n) {
  void* p = counted_alloc(n, 0);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_alloc(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) {
  void* p = counted_alloc(n, std::size_t(a));
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t n, std::align_val_t a) {
  void* p = counted_alloc(n, std::size_t(a));
  if (!p) throw std::bad_alloc();
  return p;
}
// The replacement pair is malloc/free on both sides; GCC 12 cannot see that once it inlines the
// deletes into vector's destructor and warns about a mismatch that is not there.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace nt;

namespace {

// C++ allocations made by one ndrt_exec call with given outputs, after a warm-up call.
int64_t allocations_of(const char* op, const std::vector<ndrt_handle>& in, ndrt_handle out, const Attrs& a = {}) {
  const int32_t id = op_id(op);
  auto call = [&] {
    ndrt_handle o = out;
    return ndrt_exec(id, in.data(), int32_t(in.size()), &o, 1, a.ints.data(), int32_t(a.ints.size()),
                     a.floats.data(), int32_t(a.floats.size()));
  };
  NT_CHECK(call());  // warm-up: lazily built tables, first-use statics
  t_allocations = 0;
  t_counting = true;
  ndrt_status s = call();
  t_counting = false;
  NT_CHECK(s);
  return t_allocations;
}

TEST(Dispatch, CountingAllocatorSeesTheLibrarysAllocations) {
  // Sanity check of the method: creating a tensor allocates (handle table entry, storage block).
  t_allocations = 0;
  t_counting = true;
  Tensor t = create(NDRT_F32, {4});
  t_counting = false;
  EXPECT_GT(t_allocations, 0) << "operator new replacement not seen by libndrt: the next test proves nothing";
}

TEST(Dispatch, NoHeapAllocationForOpsWithGivenOutputs) {
  Tensor a = from_values(NDRT_F32, {4, 8}, std::vector<double>(32, 1.5));
  Tensor b = from_values(NDRT_F32, {8}, std::vector<double>(8, 2));
  Tensor y = create(NDRT_F32, {4, 8});
  Tensor col = create(NDRT_F32, {4});
  Tensor mm = create(NDRT_F32, {4, 4});
  Tensor d = create(NDRT_F64, {4, 8});
  Tensor at = transpose(a, 0, 1);
  EXPECT_EQ(allocations_of("add", {a.get(), a.get()}, y.get()), 0);
  EXPECT_EQ(allocations_of("mul", {a.get(), b.get()}, y.get()), 0) << "broadcasting";
  EXPECT_EQ(allocations_of("neg", {a.get()}, y.get()), 0);
  EXPECT_EQ(allocations_of("exp", {a.get()}, y.get()), 0);
  EXPECT_EQ(allocations_of("copy", {a.get()}, y.get()), 0);
  EXPECT_EQ(allocations_of("cast", {a.get()}, d.get(), Attrs{{NDRT_F64}, {}}), 0);
  EXPECT_EQ(allocations_of("fill", {}, y.get(), fill_attrs(3, NDRT_F32, {4, 8})), 0);
  EXPECT_EQ(allocations_of("sum", {a.get()}, col.get(), reduce_attrs({1}, false)), 0);
  EXPECT_EQ(allocations_of("max", {a.get()}, col.get(), reduce_attrs({-1}, false)), 0);
  EXPECT_EQ(allocations_of("matmul", {a.get(), at.get()}, mm.get()), 0);
}

}  // namespace

// Aliasing of given outputs is judged by byte range: disjoint views of one buffer are independent
// tensors (the Java network keeps all its parameters in one flat vector), overlapping ones are not.
TEST(Dispatch, DisjointViewsOfOneBufferMayBeOutputsOverlappingOnesMayNot) {
  Tensor flat = from_values(NDRT_F32, {10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor lo = slice(flat, 0, 0, 5, 1), hi = slice(flat, 0, 5, 10, 1), mid = slice(flat, 0, 3, 8, 1);
  // Input and output disjoint slices of one buffer: y = relu(x) with x = flat[0:5], y = flat[5:10].
  run_into("neg", {&lo}, hi);
  EXPECT_EQ(read_values(flat), (std::vector<double>{0, 1, 2, 3, 4, 0, -1, -2, -3, -4}));
  // Overlapping but not the same view: refused, nothing written.
  EXPECT_EQ(try_run("neg", {&lo}, &mid), NDRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ndrt_last_error()), "neg: output 0 shares memory with input 0 but is not the same view");
  EXPECT_EQ(read_values(flat), (std::vector<double>{0, 1, 2, 3, 4, 0, -1, -2, -3, -4}));
  // Two outputs: disjoint views are fine, overlapping ones are refused.
  Tensor x = from_values(NDRT_F32, {5}, {1, -2, 3, -4, 5});
  Tensor mask = create(NDRT_BOOL, {5});
  std::vector<ndrt_handle> out = {lo.get(), mask.get()};
  ASSERT_EQ(exec("dropout", {x.get()}, out, {{0, 0}, {0.0}}), NDRT_OK) << ndrt_last_error();
  EXPECT_EQ(read_values(lo), (std::vector<double>{1, -2, 3, -4, 5}));
  Tensor w = from_values(NDRT_F32, {5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  Tensor b = from_values(NDRT_F32, {2}, {0.5, -0.5});
  Tensor xx = from_values(NDRT_F32, {1, 5}, {1, 1, 1, 1, 1});
  Tensor y = run("linear", {&xx, &w, &b});
  Tensor dy = from_values(NDRT_F32, {1, 2}, {1, 1});
  Tensor grads = create(NDRT_F32, {12});  // dw (10) | db (2) in one buffer
  Tensor dw = reshape(slice(grads, 0, 0, 10, 1), {5, 2}), db = slice(grads, 0, 10, 12, 1);
  Tensor dx = create(NDRT_F32, {1, 5});
  std::vector<ndrt_handle> bp = {dx.get(), dw.get(), db.get()};
  ASSERT_EQ(exec("linear_bp", {xx.get(), w.get(), b.get(), y.get(), dy.get()}, bp), NDRT_OK) << ndrt_last_error();
  EXPECT_EQ(read_values(grads), (std::vector<double>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  Tensor db_overlapping = slice(grads, 0, 9, 11, 1);
  bp = {dx.get(), dw.get(), db_overlapping.get()};
  EXPECT_EQ(exec("linear_bp", {xx.get(), w.get(), b.get(), y.get(), dy.get()}, bp), NDRT_ERR_INVALID_ARGUMENT);
}
