"""ndrt.distributed against numpy: every collective x dtype x reduction, odd shapes, rank-0 and
size-0 tensors, strided views, asynchronous buckets overlapped with compute, sub-communicators,
mismatched calls and broadcast from every root.

Runs under a launcher, every rank running the same tests in the same order:

    packaging/mpirun.sh -np 4 /usr/bin/python3 bindings/python/tests/run_mpi_tests.py

(run_mpi_tests.py adds up the ranks' results). Outside mpirun, or with one rank, the tests skip.

Data: each rank's tensor comes from a seed made of the case and the rank, so every rank can build
every other rank's data and compute the expected result locally, in float64 for the floats. Values
are never zero: floats have magnitudes in [0.5, 2] and a random sign, integers are non-zero and small
enough that no sum overflows.

Tolerance of float sum/mean (stated here, used by `_check_reduced`): with u the unit roundoff of the
dtype (2^-53 f64, 2^-24 f32, 2^-11 f16, 2^-8 bf16) and S = sum over ranks of |x_r| per element,
|result - exact| <= 2 * size * u * S (divided by size for mean), plus u * |exact| for mean's final
rounding. This covers any reduction order over the ranks and, for f16/bf16, a reduction done pairwise
in f32 and rounded back to the 16-bit dtype after every step (what the runtime documents), as well as
a single rounding at the end. With |x| >= 0.5 a lost or doubled contribution is always caught
(the bound stays below 0.5 up to 4 ranks for bf16). max/min, broadcast and allgather are exact
(compared bit for bit).
"""
import os
import time
import unittest
import zlib

import numpy as np

import ndrt
import ndrt.distributed as dist
from common import LeakCheck

DTYPES = ("f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64", "bool")
FLOATS = ("f32", "f64", "f16", "bf16")
INTS = ("i8", "u8", "i32", "i64")
OPS = ("sum", "mean", "max", "min")
UNIT_ROUNDOFF = {"f64": 2.0 ** -53, "f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}
NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8, "u8": np.uint8,
      "i32": np.int32, "i64": np.int64, "bool": np.bool_}

WORLD = None
RANK = 0
SIZE = 1


def setUpModule():
    global WORLD, RANK, SIZE
    n = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("PMIX_SIZE", "0")) or 0)
    if n < 2:
        raise unittest.SkipTest("needs a launcher with 2 or more ranks: packaging/mpirun.sh -np 2 "
                                "/usr/bin/python3 run_mpi_tests.py")
    WORLD = dist.world()
    RANK, SIZE = WORLD.rank, WORLD.size


# ------------------------------------------------------------------------------------------------
# data
# ------------------------------------------------------------------------------------------------
def seed_of(*case):
    return zlib.crc32(repr(case).encode())


def _bf16_round(x):
    """float32 values rounded to the nearest bf16 (ties to even), as float32."""
    b = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32).reshape(np.shape(x))


def values(dtype, shape, seed, r):
    """Rank r's values for a case: exact in `dtype` (bf16 as float32 values it can hold)."""
    rng = np.random.default_rng([seed, r])
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    sign = rng.choice(np.array([-1, 1]), shape)
    if dtype in FLOATS:
        x = rng.uniform(0.5, 2.0, shape) * sign
        if dtype == "bf16":
            return _bf16_round(x.astype(np.float32))
        return x.astype(NP[dtype])
    if dtype == "u8":
        return rng.integers(1, 61, shape).astype(np.uint8)        # sum of 4 <= 240
    hi = {"i8": 30, "i32": 1 << 28, "i64": 1 << 60}[dtype]         # sums of 4 fit
    return (rng.integers(1, hi + 1, shape) * sign).astype(NP[dtype])


def storage(vals, dtype):
    """The numpy array ndrt wraps for these values (bf16: its bits as uint16)."""
    if dtype == "bf16":
        return (np.ascontiguousarray(vals, np.float32).view(np.uint32) >> 16).astype(np.uint16).reshape(vals.shape)
    return np.array(vals, NP[dtype], copy=True)


def unstore(arr, dtype):
    """Values of a storage array (bf16 bits -> float32)."""
    if dtype == "bf16":
        a = np.asarray(arr)
        return (np.atleast_1d(a).astype(np.uint32) << 16).view(np.float32).reshape(a.shape)
    return np.asarray(arr)


def wrap(arr, dtype):
    return ndrt.from_numpy(arr, dtype="bf16" if dtype == "bf16" else None)


def out_values(t, dtype):
    """Values of a result Tensor as numpy (bf16 -> float32)."""
    if dtype == "bf16":
        return unstore(t.numpy(raw_bf16=True), dtype)
    return t.numpy()


def reduce_ref(stack, dtype, op):
    """(expected values, tolerance or None for exact) of op over axis 0 of the ranks' values."""
    if dtype == "bool":
        return (stack.any(0) if op == "max" else stack.all(0)), None
    if op == "max":
        return stack.max(0), None
    if op == "min":
        return stack.min(0), None
    if dtype in INTS:
        return stack.astype(np.int64).sum(0).astype(NP[dtype]), None
    x = stack.astype(np.float64)
    n = x.shape[0]
    u = UNIT_ROUNDOFF[dtype]
    s = x.sum(0)
    bound = 2 * n * u * np.abs(x).sum(0)
    if op == "mean":
        s = s / n
        bound = bound / n + u * np.abs(s)
    return s, bound


def compare(got, want, tol, what):
    """None when got matches want (exactly, or within tol elementwise), else a message."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return "%s: shape %s, expected %s" % (what, got.shape, want.shape)
    if tol is None:
        if got.dtype.kind == "f":
            ok = np.array_equal(got.astype(np.float64), want.astype(np.float64))
        else:
            ok = np.array_equal(got, want)
        if not ok:
            bad = np.argwhere(got != want)[:3].tolist()
            return "%s: not equal at %s: got %s, expected %s" % (
                what, bad, [got[tuple(i)] for i in bad], [want[tuple(i)] for i in bad])
        return None
    err = np.abs(got.astype(np.float64) - want)
    if not np.all(err <= tol):
        i = np.unravel_index(np.argmax(err - tol), err.shape)
        return "%s: error %g > tolerance %g at %s (got %r, expected %r)" % (
            what, err[i], np.asarray(tol)[i], i, got[i], want[i])
    return None


def supported(dtype, op):
    if dtype == "bool":
        return op in ("max", "min")
    if dtype in INTS:
        return op != "mean"
    return True


def matmul_check(rng):
    """Some compute to overlap with a collective: ndrt matmuls, checked against numpy."""
    a = rng.standard_normal((96, 96)).astype(np.float32)
    b = rng.standard_normal((96, 96)).astype(np.float32)
    ta, tb = ndrt.from_numpy(a), ndrt.from_numpy(b)
    y = ndrt.ops.matmul(ta, tb)
    ok = np.allclose(y.numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
    for t in (ta, tb, y):
        t.close()
    return ok


# Strided views: written both for numpy arrays and ndrt Tensors (same indexing), over a (6, 10) base.
VIEWS = {
    "rows_cols_step": lambda a: a[1:6:2, ::3],
    "reversed": lambda a: a[::-1, 2:9:2],
    "transposed": lambda a: a[1:5].T,
    "column": lambda a: a[:, 4],
}
BASE = (6, 10)


class DistTest(LeakCheck, unittest.TestCase):
    # -------------------------------------------------------------------------------- helpers
    def _allreduce_case(self, comm, dtype, op, shape, seed, members=None):
        """Runs one allreduce on fresh data; returns an error message or None."""
        members = list(range(comm.size)) if members is None else members
        mine = values(dtype, shape, seed, members[comm.rank])
        arr = storage(mine, dtype)
        t = wrap(arr, dtype)
        try:
            ret = comm.allreduce(t, op)
            self.assertIs(ret, t)
        finally:
            t.close()
        stack = np.stack([values(dtype, shape, seed, m) for m in members])
        want, tol = reduce_ref(stack, dtype, op)
        return compare(unstore(arr, dtype), want, tol, "allreduce %s %s %s" % (dtype, op, shape))

    # -------------------------------------------------------------------------------- world
    def test_world_ranks(self):
        self.assertEqual(SIZE, int(os.environ.get("OMPI_COMM_WORLD_SIZE", SIZE)))
        self.assertEqual(RANK, int(os.environ.get("OMPI_COMM_WORLD_RANK", RANK)))
        self.assertEqual(dist.rank(), RANK)
        self.assertEqual(dist.size(), SIZE)
        # one host: the local rank is the rank
        self.assertEqual(dist.local_rank(), int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", RANK)))
        with dist.Communicator.world() as w:
            self.assertNotEqual(w.handle, WORLD.handle)
            self.assertEqual((w.rank, w.size), (RANK, SIZE))
            r = w.allgather(np.array(RANK, np.int32))
            self.assertEqual(r.tolist(), list(range(SIZE)))
        self.assertTrue(w.closed)
        w.close()  # idempotent
        dist.barrier()

    def test_released_communicator(self):
        w = dist.Communicator.world()
        h = w.handle
        w.close()
        stale = dist.Communicator(h)
        with self.assertRaises(ndrt.InvalidHandleError):
            stale.barrier()
        stale._h = 0  # never released twice
        with self.assertRaises(ndrt.InvalidHandleError):
            dist.Communicator(123456789).barrier()

    # -------------------------------------------------------------------------------- allreduce
    def test_allreduce_every_dtype_and_op(self):
        for dtype in DTYPES:
            for op in OPS:
                for shape in ((7,), (3, 5, 7), ()):
                    with self.subTest(dtype=dtype, op=op, shape=shape):
                        seed = seed_of("allreduce", dtype, op, shape)
                        if not supported(dtype, op):
                            t = wrap(storage(values(dtype, shape, seed, RANK), dtype), dtype)
                            try:
                                with self.assertRaises(ndrt.NotSupportedError) as cm:
                                    dist.allreduce(t, op)
                            finally:
                                t.close()
                            self.assertIn(op, str(cm.exception).lower())
                            continue
                        msg = self._allreduce_case(WORLD, dtype, op, shape, seed)
                        if msg:
                            self.fail(msg)

    def test_allreduce_large(self):
        # large enough for any chunking or pipelining the runtime or MPI does
        for dtype, op in (("f32", "sum"), ("f16", "mean"), ("bf16", "sum"), ("i64", "sum"), ("bool", "min"),
                          ("f64", "max")):
            with self.subTest(dtype=dtype, op=op):
                msg = self._allreduce_case(WORLD, dtype, op, (100003,), seed_of("large", dtype, op))
                if msg:
                    self.fail(msg)

    def test_allreduce_size_zero(self):
        for dtype in DTYPES:
            for shape in ((0,), (3, 0)):
                with self.subTest(dtype=dtype, shape=shape):
                    t = wrap(storage(values(dtype, shape, 1, RANK), dtype), dtype)
                    try:
                        dist.allreduce(t, "max")
                        dist.broadcast(t, SIZE - 1)
                        self.assertEqual(t.shape, shape)
                    finally:
                        t.close()

    def test_allreduce_strided_views(self):
        for dtype in DTYPES:
            for op in (("max", "min") if dtype == "bool" else ("sum", "mean") if dtype in FLOATS else ("sum", "min")):
                for vname, view in VIEWS.items():
                    with self.subTest(dtype=dtype, op=op, view=vname):
                        seed = seed_of("strided", dtype, op, vname)
                        arr = storage(values(dtype, BASE, seed, RANK), dtype)
                        before = arr.copy()
                        base = wrap(arr, dtype)
                        v = view(base)
                        try:
                            self.assertFalse(v.is_contiguous())
                            dist.allreduce(v, op)
                        finally:
                            v.close()
                            base.close()
                        stack = np.stack([view(values(dtype, BASE, seed, r)) for r in range(SIZE)])
                        want, tol = reduce_ref(stack, dtype, op)
                        msg = compare(unstore(view(arr), dtype), want, tol, "viewed elements")
                        if msg:
                            self.fail(msg)
                        mask = np.zeros(BASE, bool)
                        view(mask)[...] = True
                        self.assertTrue(np.array_equal(arr[~mask], before[~mask]),
                                        "elements outside the view were written")

    def test_numpy_in_place(self):
        a = values("f64", (4, 3), seed_of("numpy"), RANK)
        ret = dist.allreduce(a, "sum")
        self.assertIs(ret, a)
        want, tol = reduce_ref(np.stack([values("f64", (4, 3), seed_of("numpy"), r) for r in range(SIZE)]), "f64", "sum")
        self.assertIsNone(compare(a, want, tol, "numpy"))
        ro = np.ones(3, np.float32)
        ro.flags.writeable = False
        with self.assertRaises(ValueError):
            dist.allreduce(ro)  # refused here, before any collective (on every rank alike)
        with self.assertRaises(ValueError):
            dist.allreduce(a, "prod")
        with self.assertRaises(TypeError):
            dist.allreduce([1.0, 2.0])

    # -------------------------------------------------------------------------------- broadcast
    def test_broadcast_from_every_root(self):
        for root in range(SIZE):
            for dtype in DTYPES:
                for shape in ((5, 3), (), (11,)):
                    with self.subTest(root=root, dtype=dtype, shape=shape):
                        seed = seed_of("bcast", root, dtype, shape)
                        arr = storage(values(dtype, shape, seed, RANK), dtype)
                        t = wrap(arr, dtype)
                        try:
                            self.assertIs(dist.broadcast(t, root), t)
                        finally:
                            t.close()
                        msg = compare(arr, storage(values(dtype, shape, seed, root), dtype), None, "broadcast")
                        if msg:
                            self.fail(msg)
                # a strided view: the viewed elements become root's, the others stay
                with self.subTest(root=root, dtype=dtype, view="rows_cols_step"):
                    view = VIEWS["rows_cols_step"]
                    seed = seed_of("bcast-view", root, dtype)
                    arr = storage(values(dtype, BASE, seed, RANK), dtype)
                    before = arr.copy()
                    base = wrap(arr, dtype)
                    v = view(base)
                    try:
                        dist.broadcast(v, root)
                    finally:
                        v.close()
                        base.close()
                    msg = compare(view(arr), view(storage(values(dtype, BASE, seed, root), dtype)), None, "view")
                    if msg:
                        self.fail(msg)
                    mask = np.zeros(BASE, bool)
                    view(mask)[...] = True
                    self.assertTrue(np.array_equal(arr[~mask], before[~mask]), "elements outside the view were written")

    # -------------------------------------------------------------------------------- allgather
    def test_allgather(self):
        for dtype in DTYPES:
            for shape in ((3,), (2, 3, 5), (), (0, 3)):
                with self.subTest(dtype=dtype, shape=shape):
                    seed = seed_of("allgather", dtype, shape)
                    t = wrap(storage(values(dtype, shape, seed, RANK), dtype), dtype)
                    try:
                        out = dist.allgather(t)
                    finally:
                        t.close()
                    try:
                        want = np.concatenate([np.reshape(values(dtype, shape, seed, r), (-1,) + shape[1:])
                                               for r in range(SIZE)])
                        self.assertEqual(out.dtype, dtype)
                        msg = compare(out_values(out, dtype), want, None, "allgather")
                    finally:
                        out.close()
                    if msg:
                        self.fail(msg)
            # strided input into a strided output; the output's other elements stay
            with self.subTest(dtype=dtype, view="strided in and out"):
                seed = seed_of("allgather-view", dtype)
                src = storage(values(dtype, (4, 6), seed, RANK), dtype)
                obuf = storage(values(dtype, (2 * SIZE * 2, 3), seed, 1000 + RANK), dtype)
                obefore = obuf.copy()
                tin_base, tout_base = wrap(src, dtype), wrap(obuf, dtype)
                tin, tout = tin_base[::2, 1::2], tout_base[::2]
                try:
                    self.assertIs(dist.allgather(tin, out=tout), tout)
                finally:
                    for x in (tin, tout, tin_base, tout_base):
                        x.close()
                want = np.concatenate([storage(values(dtype, (4, 6), seed, r), dtype)[::2, 1::2] for r in range(SIZE)])
                msg = compare(obuf[::2], want, None, "strided allgather")
                if msg:
                    self.fail(msg)
                self.assertTrue(np.array_equal(obuf[1::2], obefore[1::2]), "rows outside the output view written")
        # numpy in, numpy out
        got = dist.allgather(np.full((2,), RANK, np.int64))
        self.assertIsInstance(got, np.ndarray)
        self.assertEqual(got.tolist(), [r for r in range(SIZE) for _ in range(2)])

    # -------------------------------------------------------------------------------- reduce_scatter
    def test_reduce_scatter(self):
        n, m = 3, 5
        for dtype in DTYPES:
            for op in OPS:
                with self.subTest(dtype=dtype, op=op):
                    seed = seed_of("reduce_scatter", dtype, op)
                    shape = (SIZE * n, m)
                    t = wrap(storage(values(dtype, shape, seed, RANK), dtype), dtype)
                    try:
                        if not supported(dtype, op):
                            with self.assertRaises(ndrt.NotSupportedError):
                                dist.reduce_scatter(t, op=op)
                            continue
                        out = dist.reduce_scatter(t, op=op)
                    finally:
                        t.close()
                    try:
                        self.assertEqual((out.shape, out.dtype), ((n, m), dtype))
                        got = out_values(out, dtype)
                    finally:
                        out.close()
                    stack = np.stack([values(dtype, shape, seed, r) for r in range(SIZE)])
                    want, tol = reduce_ref(stack, dtype, op)
                    blk = slice(RANK * n, (RANK + 1) * n)
                    msg = compare(got, want[blk], None if tol is None else tol[blk], "reduce_scatter")
                    if msg:
                        self.fail(msg)
            op = "max" if dtype == "bool" else "sum"
            with self.subTest(dtype=dtype, op=op, view="strided in and out"):
                seed = seed_of("reduce_scatter-view", dtype)
                src = storage(values(dtype, (SIZE * 2, 8), seed, RANK), dtype)
                obuf = storage(values(dtype, (2, 8), seed, 1000 + RANK), dtype)
                obefore = obuf.copy()
                tin_base, tout_base = wrap(src, dtype), wrap(obuf, dtype)
                tin, tout = tin_base[:, ::2], tout_base[:, 1::2]
                try:
                    dist.reduce_scatter(tin, out=tout, op=op)
                finally:
                    for x in (tin, tout, tin_base, tout_base):
                        x.close()
                stack = np.stack([values(dtype, (SIZE * 2, 8), seed, r)[:, ::2] for r in range(SIZE)])
                want, tol = reduce_ref(stack, dtype, op)
                blk = slice(RANK * 2, RANK * 2 + 2)
                msg = compare(unstore(obuf[:, 1::2], dtype), want[blk], None if tol is None else tol[blk], "strided")
                if msg:
                    self.fail(msg)
                self.assertTrue(np.array_equal(obuf[:, ::2], obefore[:, ::2]), "elements outside the output view written")
            with self.subTest(dtype=dtype, shape="size 0"):
                t = wrap(storage(values(dtype, (0, 4), 1, RANK), dtype), dtype)
                try:
                    out = dist.reduce_scatter(t, op="max")
                    self.assertEqual(out.shape, (0, 4))
                    out.close()
                finally:
                    t.close()

    # -------------------------------------------------------------------------------- async
    def test_async_bucket_overlapped_with_compute(self):
        rng = np.random.default_rng([7, RANK])
        for dtype, op in (("f32", "sum"), ("f64", "mean"), ("f16", "sum"), ("bf16", "mean"), ("i32", "max")):
            with self.subTest(dtype=dtype, op=op):
                seed = seed_of("async", dtype, op)
                shapes = [(1000,), (37, 11), (5,), ()]
                arrs = [storage(values(dtype, s, seed + i, RANK), dtype) for i, s in enumerate(shapes)]
                sbuf = storage(values(dtype, (10, 10), seed + 99, RANK), dtype)  # plus a strided view
                sbefore = sbuf.copy()
                ts = [wrap(a, dtype) for a in arrs]
                sbase = wrap(sbuf, dtype)
                sv = sbase[::3, ::2]
                try:
                    work = dist.allreduce_async(ts + [sv], op)
                    computed = 0
                    while computed < 8 or not work.done():
                        self.assertTrue(matmul_check(rng), "matmul while the collective travels")
                        computed += 1
                        if computed > 2000:
                            break
                    self.assertTrue(work.done())
                    got = work.wait()
                    self.assertEqual(len(got), len(ts) + 1)
                    self.assertIs(got[0], ts[0])
                    work.wait()  # again: no error, nothing more
                finally:
                    for t in ts + [sv, sbase]:
                        t.close()
                for i, s in enumerate(shapes):
                    want, tol = reduce_ref(np.stack([values(dtype, s, seed + i, r) for r in range(SIZE)]), dtype, op)
                    msg = compare(unstore(arrs[i], dtype), want, tol, "bucket tensor %d" % i)
                    if msg:
                        self.fail(msg)
                want, tol = reduce_ref(np.stack([values(dtype, (10, 10), seed + 99, r)[::3, ::2] for r in range(SIZE)]),
                                       dtype, op)
                msg = compare(unstore(sbuf[::3, ::2], dtype), want, tol, "strided bucket tensor")
                if msg:
                    self.fail(msg)
                mask = np.zeros((10, 10), bool)
                mask[::3, ::2] = True
                self.assertTrue(np.array_equal(sbuf[~mask], sbefore[~mask]), "elements outside the view written")

    def test_async_several_in_flight_and_ordering(self):
        seed = seed_of("async-many")
        arrs = [values("f32", (257,), seed + i, RANK) for i in range(3)]
        works = [dist.allreduce_async(a, "sum") for a in arrs]      # numpy arrays, one tensor each
        # a blocking collective on the same communicator after them runs after them
        b = values("f64", (9,), seed + 10, RANK)
        dist.allreduce(b, "max")
        for w in reversed(works):
            self.assertIs(w.wait(), arrs[works.index(w)])
        for i, a in enumerate(arrs):
            want, tol = reduce_ref(np.stack([values("f32", (257,), seed + i, r) for r in range(SIZE)]), "f32", "sum")
            self.assertIsNone(compare(a, want, tol, "async %d" % i))
        want, _ = reduce_ref(np.stack([values("f64", (9,), seed + 10, r) for r in range(SIZE)]), "f64", "max")
        self.assertIsNone(compare(b, want, None, "blocking after async"))
        # a dropped, never-waited work keeps its buffers alive until it finishes
        w = dist.allreduce_async(values("f32", (1000,), seed + 20, RANK), "sum")
        del w
        dist.barrier()
        dist._reap_orphans(block=True)   # (the next allreduce_async would reap it too)
        self.assertEqual(dist._orphans, [])

    def test_async_errors(self):
        with self.subTest(case="integer mean"):
            t = ndrt.from_numpy(values("i32", (4,), 1, RANK))
            try:
                with self.assertRaises(ndrt.NotSupportedError):
                    dist.allreduce_async([t], "mean").wait()
            finally:
                t.close()
        with self.subTest(case="mixed dtypes in a bucket"):
            a, b = ndrt.from_numpy(np.ones(3, np.float32)), ndrt.from_numpy(np.ones(3, np.float64))
            try:
                with self.assertRaises(ndrt.NdrtError):
                    dist.allreduce_async([a, b], "sum").wait()
            finally:
                a.close()
                b.close()
        with self.subTest(case="shapes differ across ranks"):
            x = np.ones(3 if RANK == 0 else 4, np.float32)
            with self.assertRaises(ndrt.InvalidArgumentError) as cm:
                w = dist.allreduce_async(x, "sum")
                w.wait()
            self.assertIn("rank", str(cm.exception))
        # the communicator still works
        self.assertIsNone(self._allreduce_case(WORLD, "f32", "sum", (6,), seed_of("after async errors")))

    # -------------------------------------------------------------------------------- split
    def test_split_even_odd(self):
        color = RANK % 2
        members = [r for r in range(SIZE) if r % 2 == color][::-1]   # key = -rank: reversed order
        sub = dist.split(color, key=-RANK)
        try:
            self.assertEqual(sub.size, len(members))
            self.assertEqual(sub.rank, members.index(RANK))
            self.assertEqual(sub.local_rank, sub.rank)
            got = sub.allgather(np.array([RANK], np.int32))
            self.assertEqual(got.tolist(), members)
            for dtype, op in (("f32", "sum"), ("i64", "max"), ("bf16", "mean"), ("bool", "min")):
                msg = self._allreduce_case(sub, dtype, op, (13,), seed_of("split", dtype, op, color), members)
                self.assertIsNone(msg)
            # the world still works between and alongside
            self.assertIsNone(self._allreduce_case(WORLD, "f64", "sum", (5,), seed_of("world after split")))
            sub.broadcast(np.zeros(2), root=sub.size - 1)
            w = sub.allreduce_async(np.ones(4, np.float32), "sum")
            self.assertEqual(w.wait().tolist(), [len(members)] * 4)
            # a split of a split
            with sub.split(0) as again:
                self.assertEqual((again.size, again.rank), (sub.size, sub.rank))
                again.barrier()
        finally:
            sub.close()

    def test_split_negative_color(self):
        sub = dist.split(-1 if RANK == 0 else 5)
        try:
            if RANK == 0:
                self.assertIsNone(sub)
            else:
                self.assertEqual((sub.size, sub.rank), (SIZE - 1, RANK - 1))
                msg = self._allreduce_case(sub, "f32", "mean", (3, 3), seed_of("neg color"), list(range(1, SIZE)))
                self.assertIsNone(msg)
        finally:
            if sub is not None:
                sub.close()
        dist.barrier()

    # -------------------------------------------------------------------------------- mismatches
    def test_mismatched_calls_fail_on_every_rank(self):
        r0 = RANK == 0
        cases = {
            "allreduce shape [3] vs [4]": lambda: dist.allreduce(np.ones(3 if r0 else 4, np.float32)),
            "allreduce dtype": lambda: dist.allreduce(np.ones(3, np.float32 if r0 else np.float64)),
            "allreduce op": lambda: dist.allreduce(np.ones(3, np.float32), "sum" if r0 else "max"),
            "broadcast root": lambda: dist.broadcast(np.ones(3, np.float32), 0 if r0 else 1),
            "broadcast shape": lambda: dist.broadcast(np.ones((2, 3) if r0 else (3, 2), np.float32)),
            "allgather shape": lambda: dist.allgather(np.ones(3 if r0 else 4, np.int32)),
            "reduce_scatter shape": lambda: dist.reduce_scatter(np.ones(SIZE * (1 if r0 else 2), np.float32)),
            "different collectives": lambda: (dist.allreduce(np.ones(3, np.float32)) if r0
                                              else dist.broadcast(np.ones(3, np.float32), 0)),
        }
        for name, call in cases.items():
            with self.subTest(case=name):
                t0 = time.monotonic()
                with self.assertRaises(ndrt.InvalidArgumentError) as cm:
                    call()
                self.assertLess(time.monotonic() - t0, 10, "the mismatch took long to report")
                self.assertIn("rank", str(cm.exception).lower())
                # the communicator still works afterwards
                self.assertIsNone(self._allreduce_case(WORLD, "i32", "sum", (4,), seed_of("after", name)))

    # -------------------------------------------------------------------------------- config
    def test_verify_off(self):
        self.assertEqual(ndrt.config_get("dist.verify"), "1")
        ndrt.config_set("dist.verify", 0)
        try:
            for dtype, op in (("f32", "sum"), ("bf16", "max"), ("u8", "min")):
                self.assertIsNone(self._allreduce_case(WORLD, dtype, op, (3, 7), seed_of("noverify", dtype, op)))
            a = values("i64", (4,), seed_of("noverify-bcast"), RANK)
            dist.broadcast(a, SIZE - 1)
            self.assertTrue(np.array_equal(a, values("i64", (4,), seed_of("noverify-bcast"), SIZE - 1)))
            got = dist.allgather(np.array([RANK], np.int64))
            self.assertEqual(got.tolist(), list(range(SIZE)))
            arr = values("f32", (50,), seed_of("noverify-async"), RANK)
            dist.allreduce_async(arr, "max").wait()
            want, _ = reduce_ref(np.stack([values("f32", (50,), seed_of("noverify-async"), r) for r in range(SIZE)]),
                                 "f32", "max")
            self.assertIsNone(compare(arr, want, None, "async, verify off"))
        finally:
            ndrt.config_set("dist.verify", 1)

    def test_barrier_waits_for_everyone(self):
        dist.barrier()   # line up first, then rank 0 arrives half a second late
        if RANK == 0:
            time.sleep(0.5)
        t0 = time.monotonic()
        dist.barrier()
        waited = time.monotonic() - t0
        if RANK != 0:
            self.assertGreater(waited, 0.25)

    def test_profiler_names_the_path(self):
        a = ndrt.from_numpy(np.ones((4, 6), np.float32))
        v = a[:, ::2]
        try:
            with ndrt.profile():
                dist.allreduce(a)
                dist.allreduce(v)
            summary = ndrt.profiler_summary()
        finally:
            v.close()
            a.close()
        rows = [line.split() for line in summary.splitlines() if line.startswith("allreduce")]
        # the contiguous tensor travels zero-copy, the strided view through a staged copy
        self.assertEqual(sorted(r[2] for r in rows), ["mpi", "mpi-staged"], summary)


if __name__ == "__main__":
    unittest.main()
