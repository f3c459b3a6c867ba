"""Runs unittest modules on every rank of an MPI job and adds up the ranks' results.

    packaging/mpirun.sh -np 4 /usr/bin/python3 run_mpi_tests.py [module ...]   (default: test_distributed)

Every rank runs the same tests in the same order. A test (or sub-test) fails when it fails on any
rank; rank 0 prints the verbose run, each failing test with the ranks it failed on, the other ranks'
tracebacks, and at the end `N passed, N failed, N skipped` (failed counts failing sub-tests, as
run_tests.py does). Every rank exits 1 when anything failed anywhere, so mpirun (and ctest) fail.

A collective that waits for a rank which took another path gives up after dist.timeout_s: this
runner sets NDRT_DIST_TIMEOUT_S=30 unless the environment already says otherwise, so a diverging
test fails well within ctest's timeout instead of hanging.
"""
import io
import os
import sys
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class _Result(unittest.TextTestResult):
    """Counts per test id: failures (sub-tests each count), passes, skips."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.passed = 0
        self.fails = {}
        self.skips = set()
        self.texts = []

    def _fail(self, test, err):
        tid = test.id() if not hasattr(test, "test_case") else test.test_case.id()
        self.fails[tid] = self.fails.get(tid, 0) + 1
        self.texts.append("%s\n%s" % (test.id(), self._exc_info_to_string(err, test)))

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._fail(subtest, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.skips.add(test.id())

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.fails[test.id()] = self.fails.get(test.id(), 0) + 1


def _ids(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _ids(t)
        else:
            yield t.id()


def main(argv):
    sys.path.insert(0, HERE)
    os.environ.setdefault("NDRT_DIST_TIMEOUT_S", "30")
    try:
        sys.stdout.reconfigure(line_buffering=True)
    except AttributeError:  # pragma: no cover
        pass
    import numpy as np
    import ndrt.distributed as dist

    comm = dist.Communicator.world()   # our own, for the tally (the tests use dist.world())
    rank, size = comm.rank, comm.size
    names = argv or ["test_distributed"]
    suite = unittest.TestSuite()
    for n in names:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromName(n[:-3] if n.endswith(".py") else n))
    ids = list(_ids(suite))
    if rank == 0:
        print("%s on %d ranks (NDRT_MPI_TRANSPORT=%s)" % (" ".join(names), size,
                                                          os.environ.get("NDRT_MPI_TRANSPORT", "") or "default"))
    stream = sys.stdout if rank == 0 else io.StringIO()
    r = unittest.TextTestRunner(verbosity=2, resultclass=_Result, stream=stream).run(suite)

    # Tally over the ranks: per test, the failing sub-test count of each rank.
    local = np.array([r.fails.get(i, 0) for i in ids] + [r.testsRun], np.int64)
    try:
        table = comm.allgather(local).reshape(size, len(ids) + 1)
    except Exception:
        print("[rank %d] the tally across ranks failed (the communicator is broken?):\n%s"
              % (rank, traceback.format_exc()))
        print("[rank %d] %s: %d passed, %d failed, %d skipped (this rank only)"
              % (rank, " ".join(names), r.passed, sum(r.fails.values()), len(r.skips)))
        return 1
    # Other ranks' tracebacks, one rank after the other.
    for k in range(1, size):
        if rank == k and r.texts:
            print("".join("[rank %d] FAIL %s\n" % (rank, t) for t in r.texts))
            sys.stdout.flush()
        try:
            comm.barrier()
        except Exception:
            pass
    failed = 0
    passed = 0
    skipped = 0
    lines = []
    for j, tid in enumerate(ids):
        per_rank = table[:, j]
        if per_rank.max() > 0:
            failed += int(per_rank.max())
            lines.append("FAILED %s on ranks %s" % (tid, [k for k in range(size) if per_rank[k] > 0]))
        elif tid in r.skips:
            skipped += 1
        else:
            passed += 1
    runs = table[:, -1]
    if rank == 0:
        for line in lines:
            print(line)
        for t, why in r.skipped:
            print("SKIPPED %s: %s" % (t.id(), why))
        print("%s on %d ranks: %d passed, %d failed, %d skipped" % (" ".join(names), size, passed, failed, skipped))
    comm.close()
    return 1 if failed or runs.min() == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
