"""Every exception class carries the runtime's message and its status."""
import ctypes
import unittest

import numpy as np

import ndrt
from ndrt import errors
from ndrt._lib import lib
from common import LeakCheck, run_python


class ErrorTest(LeakCheck, unittest.TestCase):
    def check_error(self, cm, cls, status, *phrases):
        e = cm.exception
        self.assertIs(type(e), cls)
        self.assertIsInstance(e, ndrt.NdrtError)
        self.assertEqual(e.status, status)
        self.assertEqual(e.status_name, lib.ndrt_status_name(status).decode())
        for p in phrases:
            self.assertIn(p, str(e))

    def test_invalid_handle_closed_tensor(self):
        t = ndrt.tensor(np.ones(3, np.float32))
        t.close()
        with self.assertRaises(ndrt.InvalidHandleError) as cm:
            ndrt.ops.neg(t)
        self.check_error(cm, ndrt.InvalidHandleError, 200, "not a live tensor")
        self.assertIsInstance(cm.exception, ValueError)

    def test_invalid_handle_invented(self):
        t = ndrt.Tensor.from_handle(0x7ABC00001234)
        with self.assertRaises(ndrt.InvalidHandleError) as cm:
            t.close()
        self.check_error(cm, ndrt.InvalidHandleError, 200, "release", "not a live tensor")

    def test_invalid_argument(self):
        with ndrt.tensor(np.ones((2, 3), np.float32)) as t, t.T as tt:
            with self.assertRaises(ndrt.InvalidArgumentError) as cm:
                tt.reshape(-1)
        self.check_error(cm, ndrt.InvalidArgumentError, 201, "without a copy", "contiguous")
        self.assertIsInstance(cm.exception, ValueError)

    def test_invalid_attribute(self):
        with ndrt.tensor(np.ones((2, 3), np.float32)) as t:
            with self.assertRaises(ndrt.InvalidArgumentError) as cm:
                ndrt.ops.sum(t, axes=[5])
        self.check_error(cm, ndrt.InvalidArgumentError, 201, "axis 5 is out of range")

    def test_unknown_op(self):
        with self.assertRaises(ndrt.UnknownOpError) as cm:
            ndrt.op_id("no_such_op")
        self.check_error(cm, ndrt.UnknownOpError, 205, "no op named 'no_such_op'")
        self.assertIsInstance(cm.exception, ndrt.InvalidArgumentError)
        with self.assertRaises(AttributeError):
            ndrt.ops.no_such_op
        with self.assertRaises(ndrt.UnknownOpError):
            ndrt.describe_op("no_such_op")

    def test_shape(self):
        with ndrt.tensor(np.ones((2, 3), np.float32)) as a, ndrt.tensor(np.ones(4, np.float32)) as b:
            with self.assertRaises(ndrt.ShapeError) as cm:
                ndrt.ops.add(a, b)
        self.check_error(cm, ndrt.ShapeError, 202, "add", "[2,3]", "[4]", "do not broadcast")
        self.assertIsInstance(cm.exception, ValueError)

    def test_dtype(self):
        with ndrt.tensor(np.ones(3, np.float32)) as a, ndrt.tensor(np.ones(3, np.float64)) as b:
            with self.assertRaises(ndrt.DtypeError) as cm:
                ndrt.ops.add(a, b)
        self.check_error(cm, ndrt.DtypeError, 203, "add", "f64", "f32", "cast explicitly")
        self.assertIsInstance(cm.exception, TypeError)

    def test_device_mismatch(self):
        # Virtual cpu devices must be configured before the first device use: a fresh process.
        r = run_python(
            "import ndrt, numpy as np\n"
            "assert ndrt.device_count('cpu') == 2\n"
            "ndrt.attach('cpu:1')\n"
            "t = ndrt.tensor(np.ones(3, np.float32))\n"
            "assert t.device == 'cpu:1', t.device\n"
            "ndrt.attach('cpu:0')\n"
            "try:\n"
            "    ndrt.ops.neg(t)\n"
            "except ndrt.DeviceMismatchError as e:\n"
            "    print('status', e.status, e.status_name)\n"
            "    print('message', e)\n",
            env={"NDRT_CPU_VIRTUAL_DEVICES": "2"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("status 204 NDRT_ERR_DEVICE_MISMATCH", r.stdout)
        self.assertIn("lives on cpu:1", r.stdout)
        self.assertIn("runs on cpu:0", r.stdout)

    def test_out_of_memory(self):
        with self.assertRaises(ndrt.OutOfMemoryError) as cm:
            ndrt.empty((1 << 56,), "f64")  # 512 PiB: more than any address space, even with overcommit
        self.check_error(cm, ndrt.OutOfMemoryError, 100, "out of memory", "in use", "cached")
        self.assertIsInstance(cm.exception, MemoryError)
        self.assertGreaterEqual(ndrt.memory_stats("cpu:0")["oom_count"], 1)

    def no_kernel_case(self):
        """(op name, dtype) with no cpu kernel, found from the registry (it grows while we work)."""
        for name in ["matmul", "exp", "relu"] + ndrt.op_names():
            info = ndrt.describe_op(name)
            if info.variadic or not 1 <= len(info.inputs) <= 2 or any(a.required for a in info.attrs):
                continue
            have = info.kernels.get("cpu", [])
            for dt in ("i8", "u8", "i32", "f16", "f32"):
                if dt not in have:
                    return name, dt
        self.skipTest("every op has a cpu kernel for every dtype tried")

    def test_not_supported(self):
        name, dt = self.no_kernel_case()
        ins = [ndrt.zeros((2, 2), dt) for _ in ndrt.describe_op(name).inputs]
        try:
            with self.assertRaises(ndrt.NotSupportedError) as cm:
                ndrt.call_op(name, *ins)
        finally:
            for t in ins:
                t.close()
        self.check_error(cm, ndrt.NotSupportedError, 300, name, "no cpu kernel for dtype " + dt)

    def test_not_configured(self):
        p = ctypes.c_void_p()
        with self.assertRaises(ndrt.NotConfiguredError) as cm:
            errors.check(lib.ndrt_get_api(99, ctypes.byref(p)))
        self.check_error(cm, ndrt.NotConfiguredError, 301, "function table versions", "not 99")
        self.assertIsInstance(cm.exception, ndrt.NotSupportedError)

    def test_statuses_without_a_cpu_trigger(self):
        # Backend, load and internal errors cannot be provoked on the cpu build: check the mapping
        # and that the exception is built from the runtime's thread-local message.
        with ndrt.tensor(np.ones(3, np.float32)) as a, ndrt.tensor(np.ones(4, np.float32)) as b:
            try:
                ndrt.ops.add(a, b)
            except ndrt.ShapeError as e:
                last = str(e)
        for status, cls in [(101, ndrt.BackendError), (400, ndrt.LoadError), (500, ndrt.InternalError)]:
            e = errors.error_from_status(status)
            self.assertIs(type(e), cls)
            self.assertEqual(e.status, status)
            self.assertEqual(str(e), last)
        self.assertTrue(issubclass(ndrt.LoadError, ndrt.BackendError))
        # codes a newer runtime may add fall to their range's class
        self.assertIs(errors.exception_class(299), ndrt.InvalidArgumentError)
        self.assertIs(errors.exception_class(102), ndrt.BackendError)
        self.assertIs(errors.exception_class(999), ndrt.NdrtError)

    def test_message_is_thread_local_and_fresh(self):
        import threading
        with ndrt.tensor(np.ones(3, np.float32)) as a, ndrt.tensor(np.ones(4, np.float32)) as b:
            msgs = []

            def worker():
                try:
                    ndrt.ops.add(a, b)
                except ndrt.ShapeError as e:
                    msgs.append(str(e))
            ths = [threading.Thread(target=worker) for _ in range(4)]
            for th in ths:
                th.start()
            for th in ths:
                th.join()
        self.assertEqual(len(msgs), 4)
        for m in msgs:
            self.assertIn("do not broadcast", m)


if __name__ == "__main__":
    unittest.main()
