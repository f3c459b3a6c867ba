"""Helpers shared by the tests."""
import gc
import os
import subprocess

import numpy as np

import ndrt

PYTHON = "/usr/bin/python3"
PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def collect():
    for _ in range(3):
        gc.collect()
    ndrt.dlpack.collect()


def run_python(code, env=None, cwd=None):
    """Runs code in a fresh /usr/bin/python3 with the package importable; returns CompletedProcess."""
    e = dict(os.environ)
    e["PYTHONPATH"] = PKG_DIR + os.pathsep + e.get("PYTHONPATH", "")
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    if env:
        for k, v in env.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
    return subprocess.run([PYTHON, "-c", code], env=e, cwd=cwd, capture_output=True, text=True, timeout=120)


def rand(rng, shape, dtype):
    """Random data that is never all zeros: floats in [-2, 2] away from 0, ints in [-9, 9]."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        x = rng.uniform(0.25, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        return x.astype(dtype)
    if dtype.kind == "u":
        return rng.integers(1, 200, shape).astype(dtype)
    return rng.integers(-9, 10, shape).astype(dtype)


class LeakCheck:
    """Asserts that live handles, pending release hooks and DLPack exports return to their level."""

    def setUp(self):
        collect()
        self._live0 = ndrt.live_handles()
        self._pend0 = ndrt.pending_releases()
        self._exp0 = ndrt.dlpack.live_exports()

    def tearDown(self):
        collect()
        self.assertEqual(ndrt.live_handles(), self._live0, "leaked tensor handles")
        self.assertEqual(ndrt.pending_releases(), self._pend0, "wrapped buffers whose release hook did not run")
        self.assertEqual(ndrt.dlpack.live_exports(), self._exp0, "DLPack exports whose deleter did not run")


