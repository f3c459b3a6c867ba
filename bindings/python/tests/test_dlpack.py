"""DLPack both ways with numpy (np.from_dlpack) and PyTorch (torch.from_dlpack, torch.utils.dlpack)."""
import unittest
import weakref

import numpy as np

import ndrt
from ndrt import dlpack
from common import LeakCheck, collect, rand

try:
    import torch
    import torch.utils.dlpack
    TORCH_ERROR = None
except Exception as e:  # pragma: no cover - depends on the machine
    torch = None
    TORCH_ERROR = "%s: %s" % (type(e).__name__, e)

NUMPY_DLPACK_DTYPES = [np.float32, np.float64, np.float16, np.int8, np.uint8, np.int32, np.int64]


class NumpyDlpackTest(LeakCheck, unittest.TestCase):
    def test_device(self):
        with ndrt.zeros(3) as t:
            self.assertEqual(t.__dlpack_device__(), (1, 0))

    def test_ndrt_to_numpy_zero_copy(self):
        t = ndrt.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
        a = np.from_dlpack(t)
        self.assertEqual(a.ctypes.data, t.data_ptr())
        np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4))
        ndrt.ops.fill(value=5.0, out=t[1])  # write through ndrt, read through numpy
        np.testing.assert_array_equal(a[1], [5, 5, 5, 5])
        self.assertEqual(dlpack.live_exports(), 1)
        t.close()  # the export holds its own handle
        np.testing.assert_array_equal(a[0], [0, 1, 2, 3])
        del a
        collect()
        self.assertEqual(dlpack.live_exports(), 0)

    def test_numpy_to_ndrt_zero_copy_and_deleter(self):
        a = np.arange(10, dtype=np.int64)
        wr = weakref.ref(a)
        t = ndrt.from_dlpack(a)
        self.assertEqual(t.data_ptr(), a.ctypes.data)
        a[3] = -7  # write through numpy, read through ndrt
        self.assertEqual(t.numpy()[3], -7)
        ndrt.ops.fill(value=1.0, out=t[5:])  # write through ndrt
        np.testing.assert_array_equal(a[5:], [1] * 5)
        v = t[::3]
        t.close()
        del a
        collect()
        self.assertIsNotNone(wr(), "numpy's buffer died while an ndrt view holds it")
        np.testing.assert_array_equal(v.numpy(), [0, -7, 1, 1])
        v.close()
        collect()
        self.assertIsNone(wr(), "numpy's DLPack deleter did not run")

    def test_strided_both_ways(self):
        rng = np.random.default_rng(5)
        base = rand(rng, (4, 5, 6), np.float64)
        for v in (base[:, ::2], base.transpose(2, 0, 1), base[1:, 2, ::3]):
            with self.subTest(strides=v.strides):
                with ndrt.from_dlpack(v) as t:
                    self.assertEqual(t.strides, tuple(s // 8 for s in v.strides))
                    np.testing.assert_array_equal(t.numpy(), v)
        with ndrt.tensor(base) as t, t.permute(1, 2, 0)[::2, 1:] as v:
            n = np.from_dlpack(v)
            np.testing.assert_array_equal(n, base.transpose(1, 2, 0)[::2, 1:])
            self.assertTrue(np.shares_memory(n, t.numpy(copy=False)))
            del n

    def test_every_dtype_round_trip(self):
        rng = np.random.default_rng(6)
        for dt in NUMPY_DLPACK_DTYPES:
            with self.subTest(dtype=dt):
                a = rand(rng, (3, 4), dt)
                with ndrt.from_dlpack(a) as t:
                    self.assertEqual(t.dtype, ndrt.dtype_name(dt))
                    b = np.from_dlpack(t)
                    self.assertEqual(b.dtype, np.dtype(dt))
                    self.assertEqual(b.ctypes.data, a.ctypes.data)
                    np.testing.assert_array_equal(b, a)
                    del b
                with ndrt.tensor(np.zeros((), dt)) as s:
                    self.assertEqual(np.from_dlpack(s).shape, ())
                with ndrt.empty((0, 2), ndrt.dtype_name(dt)) as e:
                    self.assertEqual(np.from_dlpack(e).shape, (0, 2))

    def test_bool(self):
        # numpy 1.24 knows neither kDLBool nor bool export; ndrt's default is kDLBool (code 6)
        with ndrt.tensor(np.array([True, False, True])) as b:
            cap = b.__dlpack__()
            mt = dlpack.DLManagedTensor.from_address(dlpack._PyCapsule_GetPointer(cap, dlpack._NAME))
            self.assertEqual((mt.dl_tensor.dtype.code, mt.dl_tensor.dtype.bits), (dlpack.kDLBool, 8))
            with ndrt.from_dlpack(cap) as back:  # ndrt reads its own kDLBool
                self.assertEqual(back.dtype, "bool")
                np.testing.assert_array_equal(back.numpy(), [True, False, True])
            del cap
            dlpack.BOOL_AS_UINT8 = True
            try:
                n = np.from_dlpack(b)
                self.assertEqual(n.dtype, np.uint8)
                np.testing.assert_array_equal(n, [1, 0, 1])
                del n
            finally:
                dlpack.BOOL_AS_UINT8 = False

    def test_rejected_export_does_not_leak_or_mask_the_error(self):
        # numpy takes the capsule, rejects bf16 and drops the capsule with its error set: the
        # error must reach the caller intact and the export must be freed by the next collection.
        with ndrt.tensor(np.ones(3, np.float32), dtype="bf16") as h:
            with self.assertRaises(RuntimeError) as cm:
                np.from_dlpack(h)
            self.assertIn("Unsupported dtype", str(cm.exception))
        self.assertGreaterEqual(dlpack.live_exports(), 1)
        collect()
        self.assertEqual(dlpack.live_exports(), 0)

    def test_unconsumed_capsule_is_freed(self):
        with ndrt.zeros(4) as t:
            live = ndrt.live_handles()
            cap = t.__dlpack__()
            self.assertEqual(ndrt.live_handles(), live + 1)
            del cap
            collect()
            self.assertEqual(ndrt.live_handles(), live)

    def test_capsule_consumed_once(self):
        with ndrt.zeros(4) as t:
            cap = t.__dlpack__()
            with ndrt.from_dlpack(cap):
                pass
            with self.assertRaises(ndrt.InvalidArgumentError) as cm:
                ndrt.from_dlpack(cap)
            self.assertIn("used_dltensor", str(cm.exception))
        with self.assertRaises(TypeError):
            ndrt.from_dlpack([1, 2])

    def test_copy_and_device_arguments(self):
        with ndrt.tensor(np.arange(4.0)) as t:
            c = np.from_dlpack(_Wrapper(t, copy=True))
            self.assertNotEqual(c.ctypes.data, t.data_ptr())
            np.testing.assert_array_equal(c, np.arange(4.0))
            del c
            with self.assertRaises(BufferError):
                t.__dlpack__(stream=1)
            with self.assertRaises(BufferError):
                t.__dlpack__(dl_device=(2, 0))


class _Wrapper:
    def __init__(self, t, **kw):
        self.t, self.kw = t, kw

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream, **self.kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


@unittest.skipIf(torch is None, "torch is not importable (%s): DLPack tests with PyTorch skipped" % TORCH_ERROR)
class TorchDlpackTest(LeakCheck, unittest.TestCase):
    DTYPES = ["f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64"]

    def tdt(self, name):
        return {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
                "i8": torch.int8, "u8": torch.uint8, "i32": torch.int32, "i64": torch.int64}[name]

    def test_torch_to_ndrt_zero_copy(self):
        x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
        wr = weakref.ref(x)
        t = ndrt.from_dlpack(x)
        self.assertEqual(t.data_ptr(), x.data_ptr())
        x[0, 1] = 100.0
        self.assertEqual(t.numpy()[0, 1], 100.0)
        ndrt.ops.fill(value=-1.0, out=t[2])
        self.assertEqual(x[2].tolist(), [-1.0] * 4)
        del x
        collect()
        np.testing.assert_array_equal(t.numpy()[1], [4, 5, 6, 7])
        t.close()
        collect()
        self.assertIsNone(wr())

    def test_ndrt_to_torch_zero_copy(self):
        t = ndrt.tensor(np.arange(6, dtype=np.int64).reshape(2, 3))
        x = torch.from_dlpack(t)
        self.assertEqual(x.data_ptr(), t.data_ptr())
        self.assertEqual(x.tolist(), [[0, 1, 2], [3, 4, 5]])
        x[1, 1] = 40
        self.assertEqual(t.numpy()[1, 1], 40)
        t.close()
        self.assertEqual(x.sum().item(), 0 + 1 + 2 + 3 + 40 + 5)
        self.assertEqual(dlpack.live_exports(), 1)
        del x
        collect()
        self.assertEqual(dlpack.live_exports(), 0)

    def test_legacy_capsule_api(self):
        x = torch.randn(3, 5, dtype=torch.float64)
        cap = torch.utils.dlpack.to_dlpack(x)
        with ndrt.from_dlpack(cap) as t:
            np.testing.assert_array_equal(t.numpy(), x.numpy())
            y = torch.utils.dlpack.from_dlpack(t.__dlpack__())
            self.assertEqual(y.data_ptr(), x.data_ptr())
            y2 = torch.utils.dlpack.from_dlpack(t)
            self.assertTrue(torch.equal(y2, x))
            del y, y2

    def test_every_dtype_both_ways(self):
        for name in self.DTYPES:
            with self.subTest(dtype=name):
                x = (torch.randn(4, 3) * 5).to(self.tdt(name))
                with ndrt.from_dlpack(x) as t:
                    self.assertEqual(t.dtype, name)
                    y = torch.from_dlpack(t)
                    self.assertEqual(y.dtype, x.dtype)
                    self.assertEqual(y.data_ptr(), x.data_ptr())
                    self.assertTrue(torch.equal(y, x))
                    if name == "bf16":
                        with t.cast("f32") as f:
                            np.testing.assert_array_equal(f.numpy(), x.float().numpy())
                    del y

    def test_strided_both_ways(self):
        x = torch.randn(4, 5, 6)
        for v in (x.transpose(0, 2), x[:, ::2], x[1:, 2, ::3], x.expand(2, 4, 5, 6)):
            with self.subTest(shape=tuple(v.shape), strides=v.stride()):
                with ndrt.from_dlpack(v) as t:
                    self.assertEqual(t.strides, v.stride())
                    np.testing.assert_array_equal(t.numpy(), v.numpy())
                    y = torch.from_dlpack(t)
                    self.assertEqual(y.stride(), v.stride())
                    self.assertTrue(torch.equal(y, v))
                    del y
        with ndrt.tensor(x.numpy()) as t, t.permute(2, 0, 1)[1:, ::2] as v:
            y = torch.from_dlpack(v)
            self.assertTrue(torch.equal(y, x.permute(2, 0, 1)[1:, ::2]))
            del y

    def test_ops_on_torch_memory(self):
        a, b = torch.randn(3, 4), torch.randn(4)
        ref = a * b
        with ndrt.from_dlpack(a) as ta, ndrt.from_dlpack(b) as tb, ndrt.ops.add(ta, tb) as y:
            self.assertTrue(torch.allclose(torch.from_dlpack(y), a + b))
            ndrt.ops.mul(ta, tb, out=ta)  # in place into torch's memory
        self.assertTrue(torch.equal(a, ref))


if __name__ == "__main__":
    unittest.main()
