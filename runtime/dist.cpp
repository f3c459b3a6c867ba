// Collectives on tensors: argument checks, staging of what MPI cannot take as it is (strided views,
// 16-bit floats, cuda tensors) through dense host buffers, the cross-rank call check, and the
// jobs the communicator's thread runs (runtime/dist_comm.cpp).
#include <cstring>
#include <vector>

#include "config.hpp"
#include "device.hpp"
#include "dist.hpp"
#include "dist_comm.hpp"
#include "error.hpp"
#include "event.hpp"
#include "handles.hpp"
#include "registry.hpp"

namespace ndrt {

namespace {

const char* const kOpNames[] = {"sum", "mean", "max", "min"};

// A caller's tensor and the dense host buffer MPI sees (the tensor itself when zero-copy). Copies
// of Tensor share storage, so a job holding its stages keeps every buffer alive, even one
// abandoned to a lost peer.
struct Stage {
  Tensor user;
  Tensor wire;
  bool staged = false;
};

bool on_host(const Tensor& t) { return NDRT_DEVICE_TYPE_OF(t.device()) == NDRT_DEVICE_TYPE_CPU; }
size_t nbytes(const Tensor& t) { return size_t(t.numel() * t.itemsize()); }

// dst (any strides, any device the op runs on) = src's values, cast when the dtypes differ.
void convert_into(Tensor src, Tensor& dst) {
  int64_t dtype = dst.dtype;
  if (src.dtype != dst.dtype)
    run_internal_into("cast", {&src}, &dtype, 1, dst);
  else
    run_internal_into("copy", {&src}, nullptr, 0, dst);
}

// `read`: the collective reads the tensor's values (every input; not a pure output).
Stage stage_in(const Tensor& t, ndrt_dtype wire, bool read) {
  Stage s;
  s.user = t;
  if (on_host(t) && t.is_contiguous() && wire == t.dtype) {
    s.wire = t;
    return s;
  }
  s.staged = true;
  s.wire = alloc_tensor(wire, t.shape, NDRT_CPU);
  if (!read || t.numel() == 0) return s;
  if (on_host(t)) {
    convert_into(t, s.wire);
    return s;
  }
  Tensor dense = t;  // cuda: dense in the wire dtype on the device, then one copy to the host
  if (wire != t.dtype || !t.is_contiguous()) {
    dense = alloc_tensor(wire, t.shape, t.device());
    convert_into(t, dense);
  }
  copy_bytes(NDRT_CPU, s.wire.base(), dense.device(), dense.base(), nbytes(dense));
  return s;
}

void stage_out(Stage& s) {
  if (!s.staged || s.user.numel() == 0) return;
  if (on_host(s.user)) return convert_into(s.wire, s.user);
  bool direct = s.wire.dtype == s.user.dtype && s.user.is_contiguous();
  Tensor dense = direct ? s.user : alloc_tensor(s.wire.dtype, s.user.shape, s.user.device());
  copy_bytes(dense.device(), dense.base(), NDRT_CPU, s.wire.base(), nbytes(dense));
  if (!direct) convert_into(dense, s.user);
}

int32_t wire_type(ndrt_dtype d) {
  switch (d) {
    case NDRT_F64: return NDRT_MPI_F64;
    case NDRT_I8: return NDRT_MPI_I8;
    case NDRT_U8: case NDRT_BOOL: return NDRT_MPI_U8;
    case NDRT_I32: return NDRT_MPI_I32;
    case NDRT_I64: return NDRT_MPI_I64;
    default: return NDRT_MPI_F32;  // f32, and f16/bf16 staged as f32
  }
}
// Reductions run on f32 for 16-bit floats (one rounding at the end instead of one per step).
ndrt_dtype reduce_dtype(ndrt_dtype d) { return d == NDRT_F16 || d == NDRT_BF16 ? NDRT_F32 : d; }

int32_t wire_op(const char* what, ndrt_dtype d, int32_t op) {
  if (op < NDRT_REDUCE_SUM || op > NDRT_REDUCE_MIN)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: %d is not a reduction (sum %d, mean %d, max %d, min %d)", what, int(op),
         NDRT_REDUCE_SUM, NDRT_REDUCE_MEAN, NDRT_REDUCE_MAX, NDRT_REDUCE_MIN);
  if (d == NDRT_BOOL && (op == NDRT_REDUCE_SUM || op == NDRT_REDUCE_MEAN))
    fail(NDRT_ERR_NOT_SUPPORTED, "%s: %s of bool is not defined; use max (any) or min (all)", what, kOpNames[op]);
  if (op == NDRT_REDUCE_MEAN && !dtype_is_float(d))
    fail(NDRT_ERR_NOT_SUPPORTED, "%s: the mean of %s values is not an integer; use sum and divide", what, dtype_name(d));
  return op == NDRT_REDUCE_MAX ? NDRT_MPI_MAX : op == NDRT_REDUCE_MIN ? NDRT_MPI_MIN : NDRT_MPI_SUM;
}

// The mean's division, on the f32/f64 buffer the sum arrived in.
void divide(const Tensor& w, int32_t size) {
  int64_t n = w.numel();
  if (w.dtype == NDRT_F64) {
    double* p = w.data<double>();
    for (int64_t i = 0; i < n; ++i) p[i] /= size;
  } else {
    float* p = w.data<float>();
    for (int64_t i = 0; i < n; ++i) p[i] /= float(size);
  }
}

// A pinned caller tensor on the calling thread's device, as a Tensor value (shares storage).
Tensor tensor_arg(ndrt_handle h, const char* what) {
  Pinned p(h, what);
  ndrt_device dev = thread_device();
  if (p->device() != dev)
    fail(NDRT_ERR_DEVICE_MISMATCH, "%s: the tensor is on %s but this thread's device is %s (move it with ndrt_tensor_to_device)",
         what, device_name(p->device()).c_str(), device_name(dev).c_str());
  return *p;
}

CallSignature signature_of(Collective kind, const Tensor& t, int64_t arg) {
  CallSignature s;
  s.kind = kind;
  s.dtype = t.dtype;
  s.arg = arg;
  s.numel = t.numel();
  s.rank = t.rank();
  for (int i = 0; i < t.rank(); ++i) s.dims[i] = t.shape.d[i];
  return s;
}

// Every rank gathers every rank's signature, so all of them fail alike on a mismatch.
void verify_call(const Comm& c, const CallSignature& mine) {
  std::vector<CallSignature> all(size_t(c.group.size));
  c.backend->allgather(c.group.comm, &mine, all.data(), int64_t(sizeof mine));
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].refused)
      fail(NDRT_ERR_INVALID_ARGUMENT, "%s: rank %d refused its arguments for this call (its own error says why), so "
           "every rank fails it", collective_name(mine.kind), int(r));
  std::string ranks;
  bool differ = false;
  for (size_t r = 0; r < all.size(); ++r) {
    differ |= std::memcmp(&all[r], &mine, sizeof mine) != 0;
    if (r < 8) ranks += (r ? "; rank " : "rank ") + std::to_string(r) + ": " + all[r].str();
  }
  if (all.size() > 8) ranks += "; ...";
  if (differ)
    fail(NDRT_ERR_INVALID_ARGUMENT, "%s: the ranks' calls do not match (every rank must make the same collective "
         "calls in the same order): %s", collective_name(mine.kind), ranks.c_str());
}

// A job running `mpi_part` on the communicator's thread after the cross-rank check.
template <class F>
std::shared_ptr<Job> make_job(const std::shared_ptr<Comm>& c, const CallSignature& sig, int64_t bytes, bool staged,
                              F mpi_part) {
  auto job = std::make_shared<Job>();
  job->sig = sig;
  job->bytes = bytes;
  job->impl = staged ? "mpi-staged" : "mpi";
  bool verify = config().dist_verify.load(std::memory_order_relaxed) != 0;
  Comm* comm = c.get();  // the job cannot outlive the communicator's thread, which owns a reference
  job->run = [comm, verify, sig, mpi_part]() mutable {
    if (verify) verify_call(*comm, sig);
    mpi_part(*comm);
  };
  return job;
}

// Checks and stages a call (`prepare` returns its job). A rank whose arguments are
// refused still takes part in the cross-rank check, marked as refused, so every rank fails this
// call alike; otherwise the ranks' later calls would pair off wrongly.
template <class Prepare>
std::shared_ptr<Job> prepare_call(const std::shared_ptr<Comm>& c, Collective kind, Prepare prepare) {
  std::shared_ptr<Job> job;
  try {
    job = prepare();
  } catch (const Error&) {
    if (config().dist_verify.load(std::memory_order_relaxed)) {
      CallSignature refused;
      refused.kind = kind;
      refused.refused = 1;
      auto j = make_job(c, refused, 0, false, [](Comm&) {});
      try {
        run_sync(c, j);
      } catch (const Error&) {
        // expected: the check fails on every rank; this rank reports its own error below
      }
    }
    throw;
  }
  return job;
}

// Work an asynchronous collective's event stands for.
class AsyncCollective final : public HostCompletion {
 public:
  AsyncCollective(std::shared_ptr<Comm> c, std::shared_ptr<Job> j) : comm_(std::move(c)), job_(std::move(j)) {}
  bool done() override {
    std::lock_guard<std::mutex> lock(comm_->mu);
    return job_->done;
  }
  void wait() override { wait_for(*comm_, *job_); }

 private:
  std::shared_ptr<Comm> comm_;
  std::shared_ptr<Job> job_;
};

}  // namespace

const char* collective_name(int64_t kind) {
  switch (kind) {
    case kAllreduce: return "allreduce";
    case kBroadcast: return "broadcast";
    case kAllgather: return "allgather";
    case kReduceScatter: return "reduce_scatter";
    case kBarrier: return "barrier";
    case kSplit: return "comm_split";
  }
  return "collective";
}

std::string CallSignature::str() const {
  std::string s = collective_name(kind);
  if (kind == kBarrier || kind == kSplit) return s;
  s += std::string(" ") + (dtype_valid(ndrt_dtype(dtype)) ? dtype_name(ndrt_dtype(dtype)) : "?");
  s += rank >= 0 ? " " + dims_str(dims, int(rank)) : " bucket of " + std::to_string(tensors) + " tensors, " +
                                                          std::to_string(numel) + " elements";
  if (kind == kBroadcast) return s + " from rank " + std::to_string(arg);
  if (kind == kAllreduce || kind == kReduceScatter) s += std::string(" ") + (arg >= 0 && arg < 4 ? kOpNames[arg] : "?");
  return s;
}

void allreduce(ndrt_comm comm, ndrt_handle h, int32_t op) {
  std::shared_ptr<Comm> c = comm_of(comm, "allreduce");
  Stage s;
  auto job = prepare_call(c, kAllreduce, [&] {
    Tensor t = tensor_arg(h, "allreduce");
    int32_t wop = wire_op("allreduce", t.dtype, op);
    s = stage_in(t, reduce_dtype(t.dtype), true);
    int64_t count = s.wire.numel();
    int32_t type = wire_type(s.wire.dtype);
    return make_job(c, signature_of(kAllreduce, t, op), int64_t(nbytes(s.wire)), s.staged,
                    [s, count, type, wop, op](Comm& g) {
                      if (count) g.backend->allreduce(g.group.comm, s.wire.base(), count, type, wop);
                      if (op == NDRT_REDUCE_MEAN) divide(s.wire, g.group.size);
                    });
  });
  run_sync(c, job);
  stage_out(s);
}

void broadcast(ndrt_comm comm, ndrt_handle h, int32_t root) {
  std::shared_ptr<Comm> c = comm_of(comm, "broadcast");
  Stage s;
  auto job = prepare_call(c, kBroadcast, [&] {
    Tensor t = tensor_arg(h, "broadcast");
    if (root < 0 || root >= c->group.size)
      fail(NDRT_ERR_INVALID_ARGUMENT, "broadcast: root %d is not a rank of this group of %d", int(root), int(c->group.size));
    s = stage_in(t, t.dtype, true);
    int64_t bytes = int64_t(nbytes(s.wire));
    return make_job(c, signature_of(kBroadcast, t, root), bytes, s.staged, [s, bytes, root](Comm& g) {
      if (bytes) g.backend->broadcast(g.group.comm, s.wire.base(), bytes, root);
    });
  });
  run_sync(c, job);
  stage_out(s);
}

// The shape `per_rank` has when `size` ranks' blocks are stacked along axis 0 (rank 0: [size]).
static Dims stacked(const Dims& per_rank, int32_t size) {
  Dims d = per_rank;
  if (d.rank == 0) {
    d.rank = 1;
    d.d[0] = size;
  } else {
    d.d[0] *= size;
  }
  return d;
}

void allgather(ndrt_comm comm, ndrt_handle in_h, ndrt_handle out_h) {
  std::shared_ptr<Comm> c = comm_of(comm, "allgather");
  Stage so;
  auto job = prepare_call(c, kAllgather, [&] {
    Tensor in = tensor_arg(in_h, "allgather: in");
    Tensor out = tensor_arg(out_h, "allgather: out");
    Dims want = stacked(in.shape, c->group.size);
    if (out.dtype != in.dtype)
      fail(NDRT_ERR_DTYPE_MISMATCH, "allgather: out is %s but in is %s", dtype_name(out.dtype), dtype_name(in.dtype));
    if (out.shape != want)
      fail(NDRT_ERR_SHAPE_MISMATCH, "allgather: out has shape %s; in %s from %d ranks needs %s", out.shape.str().c_str(),
           in.shape.str().c_str(), int(c->group.size), want.str().c_str());
    if (out.overlaps(in)) fail(NDRT_ERR_INVALID_ARGUMENT, "allgather: out overlaps in");
    Stage si = stage_in(in, in.dtype, true);
    so = stage_in(out, out.dtype, false);
    int64_t bytes = int64_t(nbytes(si.wire));
    return make_job(c, signature_of(kAllgather, in, 0), bytes, si.staged || so.staged, [si, so, bytes](Comm& g) {
      if (bytes) g.backend->allgather(g.group.comm, si.wire.base(), so.wire.base(), bytes);
    });
  });
  run_sync(c, job);
  stage_out(so);
}

void reduce_scatter(ndrt_comm comm, ndrt_handle in_h, ndrt_handle out_h, int32_t op) {
  std::shared_ptr<Comm> c = comm_of(comm, "reduce_scatter");
  Stage so;
  auto job = prepare_call(c, kReduceScatter, [&] {
    Tensor in = tensor_arg(in_h, "reduce_scatter: in");
    Tensor out = tensor_arg(out_h, "reduce_scatter: out");
    int32_t wop = wire_op("reduce_scatter", in.dtype, op);
    if (out.dtype != in.dtype)
      fail(NDRT_ERR_DTYPE_MISMATCH, "reduce_scatter: out is %s but in is %s", dtype_name(out.dtype), dtype_name(in.dtype));
    Dims want = stacked(out.shape, c->group.size);
    if (in.shape != want)
      fail(NDRT_ERR_SHAPE_MISMATCH, "reduce_scatter: in has shape %s; out %s on %d ranks needs in %s",
           in.shape.str().c_str(), out.shape.str().c_str(), int(c->group.size), want.str().c_str());
    if (out.overlaps(in)) fail(NDRT_ERR_INVALID_ARGUMENT, "reduce_scatter: out overlaps in");
    ndrt_dtype wd = reduce_dtype(in.dtype);
    Stage si = stage_in(in, wd, true);
    so = stage_in(out, wd, false);
    int64_t count = so.wire.numel();
    int32_t type = wire_type(wd);
    return make_job(c, signature_of(kReduceScatter, in, op), int64_t(nbytes(si.wire)), si.staged || so.staged,
                    [si, so, count, type, wop, op](Comm& g) {
                      if (count) g.backend->reduce_scatter(g.group.comm, si.wire.base(), so.wire.base(), count, type, wop);
                      if (op == NDRT_REDUCE_MEAN) divide(so.wire, g.group.size);
                    });
  });
  run_sync(c, job);
  stage_out(so);
}

void barrier(ndrt_comm comm) {
  std::shared_ptr<Comm> c = comm_of(comm, "barrier");
  CallSignature sig;
  sig.kind = kBarrier;
  auto job = prepare_call(c, kBarrier, [&] { return make_job(c, sig, 0, false, [](Comm& g) { g.backend->barrier(g.group.comm); }); });
  run_sync(c, job);
}

ndrt_event allreduce_async(ndrt_comm id, const ndrt_handle* handles_in, int32_t n, int32_t op) {
  std::shared_ptr<Comm> c = comm_of(id, "allreduce_async");
  auto job = prepare_call(c, kAllreduce, [&] {
    if (n < 1) fail(NDRT_ERR_INVALID_ARGUMENT, "allreduce_async: %d tensors (one or more)", int(n));
    if (!handles_in) fail(NDRT_ERR_INVALID_ARGUMENT, "allreduce_async: tensors is NULL");
    std::vector<Tensor> ts;
    int64_t total = 0;
    uint64_t layout = 1469598103934665603ull;  // FNV-1a over every tensor's shape
    for (int32_t i = 0; i < n; ++i) {
      ts.push_back(tensor_arg(handles_in[i], "allreduce_async"));
      if (ts[i].dtype != ts[0].dtype)
        fail(NDRT_ERR_DTYPE_MISMATCH, "allreduce_async: tensor %d is %s but tensor 0 is %s (one dtype per bucket)", int(i),
             dtype_name(ts[i].dtype), dtype_name(ts[0].dtype));
      for (int32_t k = 0; k < i; ++k)
        if (ts[i].overlaps(ts[k])) fail(NDRT_ERR_INVALID_ARGUMENT, "allreduce_async: tensors %d and %d overlap", int(k), int(i));
      total += ts[i].numel();
      for (int d = -1; d < ts[i].rank(); ++d) layout = (layout ^ uint64_t(d < 0 ? ts[i].rank() : ts[i].shape.d[d])) * 1099511628211ull;
    }
    ndrt_dtype dtype = ts[0].dtype, wd = reduce_dtype(dtype);
    int32_t wop = wire_op("allreduce_async", dtype, op);
    std::vector<Stage> stages;
    bool staged = false;
    for (const Tensor& t : ts) {
      stages.push_back(stage_in(t, wd, true));
      staged |= stages.back().staged;
    }
    CallSignature sig = signature_of(kAllreduce, ts[0], op);
    if (n > 1) {
      sig = CallSignature{};
      sig.kind = kAllreduce;
      sig.dtype = dtype;
      sig.arg = op;
      sig.tensors = n;
      sig.numel = total;
      sig.layout = int64_t(layout);
    }
    // On the communicator's thread: pack, reduce, unpack, copy back (cuda: then wait for the
    // copies, so a complete event means the tensors hold the result).
    return make_job(c, sig, total * valid_dtype_size(wd), staged, [stages, total, wd, wop, op](Comm& g) mutable {
      Tensor bucket = stages.size() == 1 ? stages[0].wire : alloc_tensor(wd, Dims{1, {total}}, NDRT_CPU);
      int64_t item = valid_dtype_size(wd), at = 0;
      if (stages.size() > 1)
        for (Stage& s : stages) {
          if (s.wire.numel()) std::memcpy(bucket.base() + at * item, s.wire.base(), nbytes(s.wire));
          at += s.wire.numel();
        }
      if (total) g.backend->allreduce(g.group.comm, bucket.base(), total, wire_type(wd), wop);
      if (op == NDRT_REDUCE_MEAN) divide(bucket, g.group.size);
      at = 0;
      for (Stage& s : stages) {
        if (stages.size() > 1 && s.wire.numel()) std::memcpy(s.wire.base(), bucket.base() + at * item, nbytes(s.wire));
        at += s.wire.numel();
        stage_out(s);
        if (s.staged && !on_host(s.user)) synchronize(s.user.device());
      }
    });
  });
  submit(c, job);
  return event_for(std::make_shared<AsyncCollective>(c, job));
}

}  // namespace ndrt
