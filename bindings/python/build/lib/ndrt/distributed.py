"""Process groups and collectives over MPI (the C ABI's "Distributed" section).

Start the processes with a launcher, every process running the same script:

    mpirun -np 4 python3 train.py          (packaging/mpirun.sh adds what this machine needs)

    import ndrt, ndrt.distributed as dist
    g = ndrt.from_numpy(grad_array)         # or an ndrt.Tensor; numpy arrays are wrapped zero-copy
    dist.allreduce(g, op="mean")            # in place on every rank, returns g
    dist.broadcast(params, root=0)
    full = dist.allgather(shard)            # [size*n, ...] from [n, ...]
    work = dist.allreduce_async([g1, g2, g3], op="sum")   # one bucketed collective
    ...                                     # compute while it travels (do not touch g1..g3)
    work.wait()                             # raises the collective's error, if any

The module-level functions use one world communicator created on first use (`world()`); a
`Communicator` offers the same calls on any group (`Communicator.world()`, `comm.split(color, key)`).

Every process of a group must make the same calls in the same order with matching dtypes and
shapes; with the default `dist.verify=1` the runtime compares them first and a disagreement raises
`InvalidArgumentError` on every rank (naming the ranks that disagree) instead of corrupting memory.
A peer that dies or stops answering fails the waiting call after `dist.timeout_s` seconds with
`BackendError`, and the communicator is broken from then on.

Reductions: "sum", "mean", "max", "min" on numbers; on bool only "max" (any) and "min" (all).
"mean" of an integer dtype raises `NotSupportedError` (use "sum"). f16/bf16 reduce in f32 per pairwise
step and round back to the dtype after each step.

Errors are the package's exceptions (ndrt.errors). A libndrt without the distributed functions, or
one whose MPI module (libndrt_mpi.so) or libmpi is missing, raises `NotConfiguredError`.
"""
import atexit
import ctypes
import threading

import numpy as np

from . import _lib
from ._lib import lib
from ._tensor import Tensor, from_numpy, empty
from .errors import check, error_from_status, NdrtError, NotConfiguredError, ERR_NOT_CONFIGURED

__all__ = ["Communicator", "AsyncWork", "REDUCE_OPS", "world", "is_available", "rank", "size", "local_rank",
           "split", "allreduce", "broadcast", "allgather", "reduce_scatter", "barrier", "allreduce_async"]

_c_int32 = ctypes.c_int32
_c_int64 = ctypes.c_int64
_byref = ctypes.byref

# NDRT_REDUCE_* of include/ndrt/ndrt.h
REDUCE_OPS = {"sum": 0, "mean": 1, "max": 2, "min": 3}


def _need(name):
    if name in _lib.missing_optional:
        raise NotConfiguredError(
            "ndrt.distributed: the loaded libndrt (%s) has no %s: it predates the distributed API "
            "(ndrt 0.3); use a newer libndrt" % (_lib.library_path, name), ERR_NOT_CONFIGURED)


def _op_code(op):
    if isinstance(op, str):
        code = REDUCE_OPS.get(op.lower())
        if code is not None:
            return code
    elif isinstance(op, (int, np.integer)) and not isinstance(op, bool) and int(op) in REDUCE_OPS.values():
        return int(op)
    raise ValueError("ndrt.distributed: op must be one of %s (or their codes 0..3), got %r"
                     % (", ".join(REDUCE_OPS), op))


def _tensor_of(x, what, writable=False):
    """(Tensor, temporary) for a Tensor or a numpy array (wrapped zero-copy; temporary is then the
    wrapper, to close after the call)."""
    if isinstance(x, Tensor):
        if writable and x.readonly:
            raise ValueError("ndrt.distributed: %s wraps read-only memory and would be written" % what)
        return x, None
    if isinstance(x, np.ndarray):
        if writable and not x.flags.writeable:
            raise ValueError("ndrt.distributed: %s is a read-only numpy array and would be written" % what)
        t = from_numpy(x)
        return t, t
    raise TypeError("ndrt.distributed: %s must be an ndrt.Tensor or a numpy array, got %s"
                    % (what, type(x).__name__))


def _close(tmp):
    if tmp is not None:
        tmp.close()


class Communicator:
    """A process group (an ndrt_comm handle). Released by close(), `with`, or garbage collection,
    whichever comes first; close() is idempotent. rank, size and local_rank are fixed for its life."""
    __slots__ = ("_h", "_rank", "_size", "_local_rank", "__weakref__")

    def __init__(self, handle):
        """Takes ownership of a raw ndrt_comm handle (use Communicator.world() or split())."""
        self._h = int(handle)
        self._rank = self._size = self._local_rank = None

    @classmethod
    def world(cls):
        """A new communicator over every process the launcher started (initialises MPI on first
        use). The caller owns it; the module-level functions use their own (see world())."""
        _need("ndrt_comm_world")
        out = _c_int64()
        check(lib.ndrt_comm_world(_byref(out)))
        return cls(out.value)

    # ------------------------------------------------------------------ lifetime
    def __del__(self, _release=getattr(lib, "ndrt_comm_release", None)):
        try:
            h = self._h
        except AttributeError:
            return
        if h and _release is not None:
            self._h = 0
            _release(h)

    def close(self):
        """Releases the handle now (idempotent)."""
        h = self._h
        if h:
            self._h = 0
            check(lib.ndrt_comm_release(h))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def closed(self):
        return self._h == 0

    @property
    def handle(self):
        """The raw ndrt_comm (int64), still owned by this Communicator."""
        return self._h

    def _int(self, fn):
        out = _c_int32()
        check(fn(self._h, _byref(out)))
        return out.value

    @property
    def rank(self):
        if self._rank is None:
            self._rank = self._int(lib.ndrt_comm_rank)
        return self._rank

    @property
    def size(self):
        if self._size is None:
            self._size = self._int(lib.ndrt_comm_size)
        return self._size

    @property
    def local_rank(self):
        """Rank among this group's processes on the same host (to pick a device)."""
        if self._local_rank is None:
            self._local_rank = self._int(lib.ndrt_comm_local_rank)
        return self._local_rank

    def __repr__(self):
        if not self._h:
            return "Communicator(<closed>)"
        try:
            return "Communicator(rank=%d, size=%d)" % (self.rank, self.size)
        except Exception as e:  # pragma: no cover
            return "Communicator(<error: %s>)" % e

    # ------------------------------------------------------------------ groups
    def split(self, color, key=None):
        """Collective over this group: processes passing the same color form a new group, ranked
        by key (default: their rank here), ties by rank here. A negative color joins no group and
        returns None."""
        out = _c_int64()
        k = self.rank if key is None else int(key)
        check(lib.ndrt_comm_split(self._h, int(color), k, _byref(out)))
        return Communicator(out.value) if out.value else None

    # ------------------------------------------------------------------ collectives
    def allreduce(self, t, op="sum"):
        """In place: t = op over the group's t (same dtype and shape everywhere). Returns t."""
        code = _op_code(op)
        tt, tmp = _tensor_of(t, "allreduce's tensor", writable=True)
        try:
            check(lib.ndrt_allreduce(self._h, tt._h, code))
        finally:
            _close(tmp)
        return t

    def broadcast(self, t, root=0):
        """In place: every rank's t becomes root's t. Returns t."""
        tt, tmp = _tensor_of(t, "broadcast's tensor", writable=self.rank != root)
        try:
            check(lib.ndrt_broadcast(self._h, tt._h, int(root)))
        finally:
            _close(tmp)
        return t

    def allgather(self, t_in, out=None):
        """out = the ranks' t_in concatenated along axis 0 in rank order: [n, ...] -> [size*n, ...]
        (a rank-0 t_in gives [size]). out=None allocates it (a numpy array when t_in is one, else a
        Tensor on t_in's device). Returns out."""
        tin, tmp_in = _tensor_of(t_in, "allgather's input")
        try:
            if out is None:
                shape = tin.shape
                oshape = (self.size * shape[0],) + tuple(shape[1:]) if shape else (self.size,)
                out = _new_like(t_in, tin, oshape)
            tout, tmp_out = _tensor_of(out, "allgather's output", writable=True)
            try:
                check(lib.ndrt_allgather(self._h, tin._h, tout._h))
            finally:
                _close(tmp_out)
        finally:
            _close(tmp_in)
        return out

    def reduce_scatter(self, t_in, out=None, op="sum"):
        """out = block `rank` of op over the ranks' t_in: [size*n, ...] -> [n, ...]. out=None
        allocates it (numpy for numpy input, else a Tensor on t_in's device). Returns out."""
        code = _op_code(op)
        tin, tmp_in = _tensor_of(t_in, "reduce_scatter's input")
        try:
            if out is None:
                shape = tin.shape
                # An input whose first extent is not a multiple of the group size still goes to the
                # runtime (with the floor), which reports it on every rank rather than on this one.
                oshape = (shape[0] // self.size,) + tuple(shape[1:]) if shape else ()
                out = _new_like(t_in, tin, oshape)
            tout, tmp_out = _tensor_of(out, "reduce_scatter's output", writable=True)
            try:
                check(lib.ndrt_reduce_scatter(self._h, tin._h, tout._h, code))
            finally:
                _close(tmp_out)
        finally:
            _close(tmp_in)
        return out

    def barrier(self):
        """Returns when every process of the group has entered it."""
        check(lib.ndrt_barrier(self._h))

    def allreduce_async(self, tensors, op="sum"):
        """Starts an in-place allreduce of one tensor or a list of them (one dtype; several are
        packed into one bucket and travel as one collective) and returns an AsyncWork at once.
        The tensors must not be read or written until work.wait() (or work.done() is True)."""
        code = _op_code(op)
        single = isinstance(tensors, (Tensor, np.ndarray))
        items = [tensors] if single else list(tensors)
        _reap_orphans()
        handles = []
        keep = []
        try:
            for i, x in enumerate(items):
                tt, tmp = _tensor_of(x, "allreduce_async's tensor %d" % i, writable=True)
                handles.append(tt._h)
                keep.append(tt)
            n = len(handles)
            ev = _c_int64()
            check(lib.ndrt_allreduce_async(self._h, (_c_int64 * n)(*handles) if n else None, n, code,
                                           _byref(ev)))
        except BaseException:
            for tt, x in zip(keep, items):
                if tt is not x:
                    tt.close()
            raise
        # The work holds the caller's objects, the wrappers of numpy arrays and the communicator
        # (a garbage-collected communicator must not vanish under its own collective).
        return AsyncWork(ev.value, tensors, items, keep, self)


def _new_like(t_in, tin, shape):
    if isinstance(t_in, np.ndarray):
        return np.empty(shape, t_in.dtype)
    return empty(shape, tin.dtype, device=tin.device)


# ----------------------------------------------------------------------------------------------
# Asynchronous work
# ----------------------------------------------------------------------------------------------
_orphans = []          # (event, keep) of works dropped before their collective finished
_orphans_lock = threading.Lock()


def _reap_orphans(block=False):
    with _orphans_lock:
        items = _orphans[:]
        del _orphans[:]
    left = []
    for ev, keep in items:
        if block:
            lib.ndrt_event_synchronize(ev)
        else:
            flag = _c_int32()
            if lib.ndrt_event_query(ev, _byref(flag)) == 0 and not flag.value:
                left.append((ev, keep))
                continue
        lib.ndrt_event_release(ev)
    if left:
        with _orphans_lock:
            _orphans.extend(left)


class AsyncWork:
    """The handle of an allreduce_async. wait() blocks until the tensors hold the result and raises
    the collective's error if it failed (again on every later wait()); it returns what was passed
    to allreduce_async. done() says whether the collective has finished (successfully or not)."""
    __slots__ = ("_ev", "_result", "_items", "_keep", "_comm", "_error", "__weakref__")

    def __init__(self, event, result, items, keep, comm):
        self._ev = event
        self._result = result
        self._items = items
        self._keep = keep
        self._comm = comm
        self._error = None

    def _finish(self, status):
        ev, self._ev = self._ev, 0
        if status:
            self._error = error_from_status(status, "allreduce_async")
        lib.ndrt_event_release(ev)
        for tt, x in zip(self._keep, self._items):
            if tt is not x:
                tt.close()  # wrappers of numpy arrays
        self._keep = self._items = None
        self._comm = None

    def wait(self):
        if self._ev:
            self._finish(lib.ndrt_event_synchronize(self._ev))
        if self._error is not None:
            raise self._error
        return self._result

    def done(self):
        if not self._ev:
            return True
        flag = _c_int32()
        status = lib.ndrt_event_query(self._ev, _byref(flag))
        if status:
            # A failed collective may report through the query: finish it so wait() raises.
            self._finish(lib.ndrt_event_synchronize(self._ev))
            return True
        return bool(flag.value)

    def __del__(self):
        try:
            ev = self._ev
        except AttributeError:
            return
        if not ev:
            return
        try:
            flag = _c_int32()
            if lib.ndrt_event_query(ev, _byref(flag)) == 0 and not flag.value:
                # Still travelling: keep its buffers alive until it finishes (reaped later).
                with _orphans_lock:
                    _orphans.append((ev, (self._keep, self._items, self._comm)))
                self._ev = 0
                return
            self._ev = 0
            lib.ndrt_event_release(ev)
        except BaseException:
            pass

    def __repr__(self):
        state = "pending" if self._ev else ("failed" if self._error is not None else "done")
        return "AsyncWork(%s)" % state


# ----------------------------------------------------------------------------------------------
# The module-level world communicator
# ----------------------------------------------------------------------------------------------
_world = None
_world_lock = threading.Lock()


def world():
    """The shared world communicator that the module-level functions use, created on first use.
    Do not close it (close() makes the next call create a new one)."""
    global _world
    w = _world
    if w is None or w.closed:
        with _world_lock:
            w = _world
            if w is None or w.closed:
                w = _world = Communicator.world()
    return w


def is_available():
    """True when collectives can run here: libndrt has the distributed API, its MPI module and
    libmpi load and MPI starts (this initialises MPI; a process not started by a launcher is a
    group of one). False instead of the error otherwise."""
    try:
        world()
        return True
    except NdrtError:
        return False


def rank():
    return world().rank


def size():
    return world().size


def local_rank():
    return world().local_rank


def split(color, key=None):
    """world().split(color, key): a new Communicator (or None for a negative color)."""
    return world().split(color, key)


def allreduce(t, op="sum"):
    """In place over the world: t = op("sum", "mean", "max", "min") of every rank's t. Returns t."""
    return world().allreduce(t, op)


def broadcast(t, root=0):
    """In place: every rank's t becomes root's. Returns t."""
    return world().broadcast(t, root)


def allgather(t_in, out=None):
    """[n, ...] on each rank -> [size*n, ...] in rank order (allocated when out is None)."""
    return world().allgather(t_in, out)


def reduce_scatter(t_in, out=None, op="sum"):
    """[size*n, ...] on each rank -> this rank's block [n, ...] of the reduction."""
    return world().reduce_scatter(t_in, out, op)


def barrier():
    world().barrier()


def allreduce_async(tensors, op="sum"):
    """Starts an in-place allreduce of a tensor or a list of tensors; returns an AsyncWork."""
    return world().allreduce_async(tensors, op)


@atexit.register
def _shutdown():
    # Python's atexit runs before the C runtime's exit handlers (where ndrt finalises MPI): finish
    # works that were dropped unwaited and release the shared world communicator.
    global _world
    try:
        _reap_orphans(block=True)
        w, _world = _world, None
        if w is not None:
            w.close()
    except BaseException:
        pass
