"""Devices and affinity, memory statistics, configuration, profiler, callbacks, threads."""
import json
import os
import tempfile
import threading
import unittest

import numpy as np

import ndrt
from common import LeakCheck, run_python


class DeviceTest(LeakCheck, unittest.TestCase):
    def test_counts_and_current_device(self):
        self.assertGreaterEqual(ndrt.device_count("cpu"), 1)
        self.assertGreaterEqual(ndrt.device_count("cuda"), 0)
        self.assertIn(ndrt.default_device_type(), ("cpu", "cuda"))
        ndrt.attach("cpu:0")
        self.assertEqual(ndrt.thread_device(), "cpu:0")
        self.assertEqual(ndrt.thread_device(), ndrt.Device("cpu", 0))
        self.assertEqual(ndrt.device_name("cpu:0"), "cpu:0")
        self.assertIn(ndrt.Device("cpu", 0), ndrt.devices())
        ndrt.synchronize()
        with self.assertRaises(ValueError):
            ndrt.attach("tpu:0")

    def test_virtual_devices_and_affinity(self):
        r = run_python(
            "import ndrt, threading, numpy as np\n"
            "print('count', ndrt.device_count('cpu'))\n"
            "seen = []\n"
            "def work():\n"
            "    d = ndrt.thread_device()\n"
            "    t = ndrt.tensor(np.ones(2, np.float32))\n"
            "    seen.append((str(d), str(t.device)))\n"
            "ths = [threading.Thread(target=work) for _ in range(3)]\n"
            "[t.start() for t in ths]; [t.join() for t in ths]\n"
            "print('threads', sorted(seen))\n"
            "with ndrt.device('cpu:2') as d:\n"
            "    t = ndrt.empty((3,))\n"
            "    print('inside', ndrt.thread_device(), t.device)\n"
            "print('after', ndrt.thread_device())\n"
            "print('stats', sorted(ndrt.memory_stats('cpu:2')))\n",
            env={"NDRT_CPU_VIRTUAL_DEVICES": "3"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("count 3", r.stdout)
        # three new threads get the three devices round-robin, and allocate there
        self.assertIn("threads [('cpu:0', 'cpu:0'), ('cpu:1', 'cpu:1'), ('cpu:2', 'cpu:2')]", r.stdout)
        self.assertIn("inside cpu:2 cpu:2", r.stdout)


class MemoryConfigTest(LeakCheck, unittest.TestCase):
    def test_memory_stats(self):
        s0 = ndrt.memory_stats()
        self.assertEqual(set(s0), {"in_use", "cached", "peak", "hits", "misses", "oom_count", "wrapped"})
        ndrt.memory_reset_peak()
        t = ndrt.empty((1 << 20,), "f32")
        s1 = ndrt.memory_stats("cpu:0")
        self.assertGreaterEqual(s1["in_use"], s0["in_use"] + (4 << 20))
        self.assertGreaterEqual(s1["peak"], s1["in_use"])
        t.close()
        s2 = ndrt.memory_stats()
        self.assertLess(s2["in_use"], s1["in_use"])
        self.assertGreaterEqual(s2["cached"], 4 << 20)
        ndrt.memory_trim()
        self.assertLess(ndrt.memory_stats()["cached"], 4 << 20)
        t = ndrt.empty((1 << 20,), "f32")  # a miss after the trim, then a hit
        t.close()
        hits = ndrt.memory_stats()["hits"]
        ndrt.empty((1 << 20,), "f32").close()
        self.assertEqual(ndrt.memory_stats()["hits"], hits + 1)

    def test_config(self):
        old = ndrt.config_get("cpu.threads")
        try:
            ndrt.config_set("cpu.threads", 2)
            self.assertEqual(ndrt.config_get("cpu.threads"), "2")
            ndrt.config["cpu.threads"] = "1"
            self.assertEqual(ndrt.config["cpu.threads"], "1")
        finally:
            ndrt.config_set("cpu.threads", old)
        self.assertEqual(ndrt.config_get("profiler.enabled"), "0")
        with self.assertRaises(ndrt.InvalidArgumentError) as cm:
            ndrt.config_get("no.such.key")
        self.assertIn("unknown key 'no.such.key'", str(cm.exception))
        with self.assertRaises(ndrt.InvalidArgumentError):
            ndrt.config_set("cpu.threads", "many")
        self.assertIsNone(ndrt.config.get("no.such.key"))

    def test_config_from_environment(self):
        r = run_python("import ndrt; print('threads', ndrt.config_get('cpu.threads'))", env={"NDRT_CPU_THREADS": "3"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("threads 3", r.stdout)

    def test_pressure_callback(self):
        seen = []
        ndrt.memory_trim()
        base = ndrt.memory_stats()["in_use"]
        ndrt.set_memory_pressure_callback(base + (1 << 20), seen.append)
        try:
            t = ndrt.empty((1 << 19,), "f64")  # 4 MiB
            t.close()
        finally:
            ndrt.set_memory_pressure_callback(0, None)
        self.assertEqual(len(seen), 1)
        self.assertGreaterEqual(seen[0], 4 << 20)

    def test_log_callback(self):
        lines = []
        old = ndrt.config_get("log.level")
        ndrt.set_log_callback(lambda level, msg: lines.append((level, msg)))
        try:
            ndrt.config_set("log.level", "debug")
            # nothing in the cpu build is guaranteed to log; the hook must at least install cleanly
        finally:
            ndrt.config_set("log.level", old)
            ndrt.set_log_callback(None)
        for level, msg in lines:
            self.assertIn(level, ("error", "warn", "info", "debug"))


class ProfilerTest(LeakCheck, unittest.TestCase):
    def test_profiler(self):
        with ndrt.tensor(np.ones((4, 4), np.float32)) as a:
            with ndrt.profile():
                for _ in range(3):
                    ndrt.ops.add(a, a).close()
                ndrt.ops.matmul(a, a).close()
            self.assertEqual(ndrt.profiler_count(), 4)
            summary = ndrt.profiler_summary()
            self.assertIn("add", summary)
            self.assertIn("matmul", summary)
            self.assertIn("calls", summary.splitlines()[0])
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "trace.json")
                ndrt.profiler_write_trace(path)
                with open(path) as f:
                    events = json.load(f)["traceEvents"]
                self.assertEqual(sorted(e["name"] for e in events), ["add", "add", "add", "matmul"])
            ndrt.profiler_clear()
            self.assertEqual(ndrt.profiler_count(), 0)
            ndrt.ops.add(a, a).close()  # off: nothing recorded
            self.assertEqual(ndrt.profiler_count(), 0)
            ndrt.profiler_enable(True)
            self.assertEqual(ndrt.config_get("profiler.enabled"), "1")
            ndrt.profiler_enable(False)


class ThreadsTest(LeakCheck, unittest.TestCase):
    def test_many_threads_run_ops(self):
        rng = np.random.default_rng(9)
        x = rng.standard_normal((64, 64))
        ref = x @ x + x
        errors = []

        def work():
            try:
                for _ in range(20):
                    with ndrt.from_numpy(x) as t, ndrt.ops.matmul(t, t) as m, ndrt.ops.add(m, t) as y:
                        np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10)
            except BaseException as e:
                errors.append(e)
        ths = [threading.Thread(target=work) for _ in range(4)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        self.assertEqual(errors, [])

    def test_version(self):
        self.assertEqual(ndrt.abi_version(), ndrt.EXPECTED_ABI)
        self.assertRegex(ndrt.__version__, r"^\d+\.\d+\.\d+")


if __name__ == "__main__":
    unittest.main()
