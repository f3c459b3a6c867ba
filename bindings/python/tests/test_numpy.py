"""Tensor <-> numpy: zero-copy both ways, lifetime of wrapped arrays, strides, dtypes, views."""
import threading
import unittest
import weakref

import numpy as np

import ndrt
from ndrt import _tensor
from common import LeakCheck, collect, rand

NUMPY_DTYPES = [np.float32, np.float64, np.float16, np.int8, np.uint8, np.int32, np.int64, np.bool_]
NAMES = {np.float32: "f32", np.float64: "f64", np.float16: "f16", np.int8: "i8", np.uint8: "u8",
         np.int32: "i32", np.int64: "i64", np.bool_: "bool"}


class ZeroCopyTest(LeakCheck, unittest.TestCase):
    def test_write_through_numpy_read_through_ndrt(self):
        a = np.zeros((3, 4), np.float32)
        with ndrt.from_numpy(a) as t:
            self.assertEqual(t.data_ptr(), a.ctypes.data)
            a[1, 2] = 5.0
            a[2, 3] = -1.5
            got = t.numpy()
            self.assertEqual(got[1, 2], 5.0)
            self.assertEqual(got[2, 3], -1.5)
            with ndrt.ops.sum(t) as s:
                self.assertEqual(s.item(), 3.5)

    def test_write_through_ndrt_read_through_numpy(self):
        a = np.zeros((3, 4), np.float64)
        with ndrt.from_numpy(a) as t:
            ndrt.ops.fill(value=2.5, out=t)
            np.testing.assert_array_equal(a, np.full((3, 4), 2.5))
            with ndrt.tensor(np.arange(12.0).reshape(3, 4)) as b:
                ndrt.ops.add(t, b, out=t)  # in place
            np.testing.assert_array_equal(a, 2.5 + np.arange(12.0).reshape(3, 4))
            t.write(np.ones(4))  # broadcast write
            np.testing.assert_array_equal(a, np.ones((3, 4)))
            with t[1:, ::2] as v:
                v.write([[7, 8], [9, 10]])
            self.assertEqual(a[1, 0], 7)
            self.assertEqual(a[2, 2], 10)
            t[0, :] = 3
            np.testing.assert_array_equal(a[0], [3, 3, 3, 3])

    def test_numpy_view_of_tensor(self):
        with ndrt.tensor(np.arange(6, dtype=np.int32).reshape(2, 3)) as t:
            v = t.numpy(copy=False)
            self.assertEqual(v.ctypes.data, t.data_ptr())
            v[0, 0] = 42
            self.assertEqual(t.numpy()[0, 0], 42)
            with ndrt.ops.neg(t) as n:
                ndrt.ops.copy(n, out=t)
            np.testing.assert_array_equal(v, -np.array([[42, 1, 2], [3, 4, 5]]))

    def test_numpy_view_keeps_tensor_alive(self):
        t = ndrt.tensor(np.arange(5, dtype=np.float64))
        live = ndrt.live_handles()
        v = t.numpy(copy=False)
        self.assertEqual(ndrt.live_handles(), live + 1)  # the view holds a retained handle
        t.close()
        del t
        collect()
        np.testing.assert_array_equal(v, np.arange(5.0))
        v2 = v[1:]
        del v
        collect()
        np.testing.assert_array_equal(v2, np.arange(1.0, 5.0))
        self.assertEqual(ndrt.live_handles(), live)
        del v2
        collect()
        self.assertEqual(ndrt.live_handles(), live - 1)

    def test_numpy_view_of_strided_tensor(self):
        a = np.arange(24.0).reshape(2, 3, 4)
        with ndrt.tensor(a) as t, t.permute(2, 0, 1)[::-2, :, 1:] as v:
            ref = a.transpose(2, 0, 1)[::-2, :, 1:]
            n = v.numpy(copy=False)
            np.testing.assert_array_equal(n, ref)
            self.assertFalse(n.flags.c_contiguous)
            self.assertTrue(n.flags.writeable)
            with t.reshape(2, 1, 3, 4).expand(2, 5, 3, 4) as b:
                bn = b.numpy(copy=False)
                self.assertFalse(bn.flags.writeable)  # a broadcast view is read-only in numpy
                np.testing.assert_array_equal(bn, np.broadcast_to(a[:, None], (2, 5, 3, 4)))


class LifetimeTest(LeakCheck, unittest.TestCase):
    def test_array_lives_until_last_view_dies(self):
        a = np.arange(24, dtype=np.float32).reshape(4, 6)
        wr = weakref.ref(a)
        released0 = _tensor._release_stats["released"]
        wrapped0 = ndrt.memory_stats("cpu:0")["wrapped"]
        t = ndrt.from_numpy(a)
        self.assertEqual(ndrt.memory_stats("cpu:0")["wrapped"], wrapped0 + a.nbytes)
        v1 = t.reshape(6, 4)
        v2 = t[1:3, ::2]
        v3 = v2.T
        del a
        collect()
        self.assertIsNotNone(wr(), "the array died while ndrt views it")
        t.close()
        v1.close()
        del v2
        collect()
        self.assertIsNotNone(wr())
        np.testing.assert_array_equal(v3.numpy(), np.arange(24, dtype=np.float32).reshape(4, 6)[1:3, ::2].T)
        self.assertEqual(_tensor._release_stats["released"], released0)
        del v3
        collect()
        self.assertIsNone(wr(), "the array outlived the last view")
        self.assertEqual(_tensor._release_stats["released"], released0 + 1, "release hook ran more than once")
        self.assertEqual(ndrt.memory_stats("cpu:0")["wrapped"], wrapped0)
        self.assertEqual(_tensor._release_stats["errors"], 0)

    def test_gc_releases_tensor(self):
        a = np.ones(10, np.int64)
        wr = weakref.ref(a)
        t = ndrt.from_numpy(a)
        wt = weakref.ref(t)
        del a, t
        collect()
        self.assertIsNone(wt())
        self.assertIsNone(wr())

    def test_reference_cycle_is_collected(self):
        a = np.ones(4, np.float32)
        wr = weakref.ref(a)

        class Holder:
            pass
        h = Holder()
        h.t = ndrt.from_numpy(a)
        h.self = h
        del a, h
        collect()
        self.assertIsNone(wr())

    def test_release_on_another_thread(self):
        a = np.ones(8, np.float64)
        wr = weakref.ref(a)
        t = ndrt.from_numpy(a)
        del a
        released0 = _tensor._release_stats["released"]
        th = threading.Thread(target=t.close)
        th.start()
        th.join()
        self.assertIsNone(wr())
        self.assertEqual(_tensor._release_stats["released"], released0 + 1)

    def test_context_manager_and_double_close(self):
        with ndrt.from_numpy(np.ones(3, np.float32)) as t:
            self.assertFalse(t.closed)
        self.assertTrue(t.closed)
        t.close()  # idempotent
        self.assertIn("closed", repr(t))

    def test_failed_wrap_does_not_keep_the_array(self):
        a = np.ones((2, 2), np.float32)
        wr = weakref.ref(a)
        pend = ndrt.pending_releases()
        with self.assertRaises(ndrt.InvalidArgumentError):
            _tensor.wrap_memory("f32", [-1, 2], None, a.ctypes.data, a)
        self.assertEqual(ndrt.pending_releases(), pend)
        del a
        collect()
        self.assertIsNone(wr())


class StridesTest(LeakCheck, unittest.TestCase):
    def check_view(self, v):
        t = ndrt.from_numpy(v)
        try:
            self.assertEqual(t.shape, v.shape)
            np.testing.assert_array_equal(t.numpy(), v)
            np.testing.assert_array_equal(t.numpy(copy=False), v)
            if v.size:
                self.assertTrue(np.shares_memory(t.numpy(copy=False), v))
            with ndrt.ops.copy(t) as c:
                self.assertTrue(c.is_contiguous())
                np.testing.assert_array_equal(c.numpy(), v)
        finally:
            t.close()

    def test_non_contiguous_views(self):
        rng = np.random.default_rng(1)
        base = rand(rng, (5, 6, 7), np.float32)
        views = [base[:, ::2], base.T, base[::-1], base[::-2, 1:, ::-3], base.transpose(1, 2, 0)[2:5],
                 base[3], base[:, 4, ::-1], base[1:1], np.broadcast_to(base[0, 0], (3, 7)),
                 base[::2, None, ::3], np.asfortranarray(base)]
        for v in views:
            with self.subTest(shape=v.shape, strides=v.strides):
                self.check_view(v)

    def test_zero_copy_through_negative_strides(self):
        a = np.arange(10.0)
        with ndrt.from_numpy(a[::-1]) as t:
            self.assertEqual(t.strides, (-1,))
            a[0] = 100.0
            self.assertEqual(t.numpy()[-1], 100.0)
            ndrt.ops.fill(value=1.0, out=t[:3])
            np.testing.assert_array_equal(a[-3:], [1, 1, 1])

    def test_byte_strides_must_be_multiples_of_itemsize(self):
        s = np.zeros(4, dtype=[("a", "<f4"), ("b", "u1")])
        with self.assertRaises(ValueError) as cm:
            ndrt.from_numpy(s["a"])
        self.assertIn("not multiples of the itemsize 4", str(cm.exception))
        raw = np.zeros(17, np.uint8)[1:].view(np.float32)  # unaligned
        with self.assertRaises(ValueError) as cm:
            ndrt.from_numpy(raw)
        self.assertIn("aligned", str(cm.exception))

    def test_read_only_arrays(self):
        a = np.ones(4, np.float32)
        a.flags.writeable = False
        with ndrt.from_numpy(a) as t, ndrt.tensor(np.ones(4, np.float32)) as b:
            self.assertTrue(t.readonly)
            np.testing.assert_array_equal(t.numpy(), a)
            self.assertFalse(t.numpy(copy=False).flags.writeable)
            with ndrt.ops.add(t, b) as y:  # reading is fine
                np.testing.assert_array_equal(y.numpy(), 2 * a)
            with self.assertRaises(ValueError):
                ndrt.ops.add(b, b, out=t)
            with self.assertRaises(ValueError):
                t.write(np.zeros(4))

    def test_rank_limits_and_scalars(self):
        with self.assertRaises(ValueError):
            ndrt.from_numpy(np.zeros((1,) * 9, np.float32))
        with ndrt.from_numpy(np.array(3.5)) as t:
            self.assertEqual(t.shape, ())
            self.assertEqual(t.item(), 3.5)
            self.assertEqual(float(t), 3.5)
        with ndrt.from_numpy(np.zeros((0, 3), np.int32)) as t:
            self.assertEqual(t.shape, (0, 3))
            self.assertEqual(t.numpy().shape, (0, 3))
            self.assertEqual(t.numpy(copy=False).shape, (0, 3))


class DtypeTest(LeakCheck, unittest.TestCase):
    def test_every_dtype_round_trip(self):
        rng = np.random.default_rng(2)
        for dt in NUMPY_DTYPES:
            with self.subTest(dtype=dt):
                a = rand(rng, (3, 5), dt)
                with ndrt.from_numpy(a) as t:
                    self.assertEqual(t.dtype, NAMES[dt])
                    self.assertEqual(t.itemsize, np.dtype(dt).itemsize)
                    out = t.numpy()
                    self.assertEqual(out.dtype, np.dtype(dt))
                    np.testing.assert_array_equal(out, a)
                with ndrt.tensor(a) as c:  # copy in
                    np.testing.assert_array_equal(c.numpy(), a)
                    a2 = a.copy()
                    c.write(a2[::-1])
                    np.testing.assert_array_equal(c.numpy(), a2[::-1])
                with ndrt.tensor(a[:, ::2].T) as c:  # copy of a strided array
                    np.testing.assert_array_equal(c.numpy(), a[:, ::2].T)
                with ndrt.empty((2, 2), NAMES[dt]) as e:
                    self.assertEqual(e.dtype, NAMES[dt])

    def test_special_float_values(self):
        for dt in (np.float16, np.float32, np.float64):
            a = np.array([np.nan, np.inf, -np.inf, -0.0, np.finfo(dt).tiny, np.finfo(dt).max], dt)
            with ndrt.from_numpy(a) as t:
                np.testing.assert_array_equal(t.numpy(), a)

    def test_bf16(self):
        f = np.array([1.0, -2.5, 3.140625, 1e30, 0.0], np.float32)
        with ndrt.tensor(f, dtype="bf16") as b:
            self.assertEqual(b.dtype, "bf16")
            with self.assertRaises(TypeError):
                b.numpy()
            bits = b.numpy(raw_bf16=True)
            self.assertEqual(bits.dtype, np.uint16)
            # bf16 is the top half of f32 (these values round exactly or to nearest even)
            expect = ((f.view(np.uint32) + 0x7FFF + ((f.view(np.uint32) >> 16) & 1)) >> 16).astype(np.uint16)
            np.testing.assert_array_equal(bits, expect)
            with b.cast("f32") as back:
                np.testing.assert_allclose(back.numpy(), f, rtol=2 ** -8)
            np.testing.assert_allclose(np.asarray(b), f, rtol=2 ** -8)
            with ndrt.from_numpy(bits, dtype="bf16") as z:  # zero-copy bits
                self.assertEqual(z.dtype, "bf16")
                with z.cast("f64") as d:
                    np.testing.assert_allclose(d.numpy(), f, rtol=2 ** -8)
        with self.assertRaises(TypeError):
            ndrt.from_numpy(np.ones(2, np.float32), dtype="bf16")

    def test_unsupported_dtypes(self):
        for a in (np.ones(2, np.complex64), np.ones(2, np.int16), np.ones(2, object)):
            with self.assertRaises(TypeError):
                ndrt.from_numpy(a)
        with self.assertRaises(TypeError) as cm:
            ndrt.from_numpy(np.ones(2, ">f4"))
        self.assertIn("byte order", str(cm.exception))
        with self.assertRaises(TypeError):
            ndrt.from_numpy(np.ones(2, np.float32), dtype="f64")

    def test_dtype_names(self):
        self.assertEqual(ndrt.dtype_name(np.float32), "f32")
        self.assertEqual(ndrt.dtype_name("float64"), "f64")
        self.assertEqual(ndrt.dtype_name(np.dtype(np.bool_)), "bool")
        self.assertEqual(ndrt.dtype_name(4), "bf16")
        self.assertEqual(ndrt.dtype_name("torch.bfloat16"), "bf16")
        with self.assertRaises(TypeError):
            ndrt.dtype_name("f128")

    def test_cast_all_pairs(self):
        rng = np.random.default_rng(3)
        a = rand(rng, (7,), np.float64) * 3
        for src in NUMPY_DTYPES:
            for dst in NUMPY_DTYPES:
                with self.subTest(src=src, dst=dst):
                    x = a.astype(src)
                    with ndrt.tensor(x) as t, t.cast(NAMES[dst]) as c:
                        ref = x.astype(dst) if not (np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu") \
                            else np.trunc(x).astype(dst)
                        if np.dtype(dst).kind == "u" and np.dtype(src).kind in "fi":
                            continue  # negative values to unsigned are undefined in C
                        np.testing.assert_array_equal(c.numpy(), ref)


class ViewTest(LeakCheck, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.a = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
        self.t = ndrt.tensor(self.a)

    def tearDown(self):
        self.t.close()
        super().tearDown()

    def eq(self, v, ref):
        try:
            self.assertEqual(v.shape, ref.shape)
            np.testing.assert_array_equal(v.numpy(), ref)
        finally:
            v.close()

    def test_reshape_permute_transpose(self):
        self.eq(self.t.reshape(6, 20), self.a.reshape(6, 20))
        self.eq(self.t.reshape((-1, 5)), self.a.reshape(-1, 5))
        self.eq(self.t.permute(3, 1, 0, 2), self.a.transpose(3, 1, 0, 2))
        self.eq(self.t.permute(-1, 0, 1, 2), self.a.transpose(3, 0, 1, 2))
        self.eq(self.t.transpose(0, 2), self.a.swapaxes(0, 2))
        self.eq(self.t.transpose(), self.a.transpose())
        self.eq(self.t.T, self.a.T)
        with self.t.permute(0, 1, 3, 2) as p:
            self.eq(p.reshape(6, 5, 4), self.a.transpose(0, 1, 3, 2).reshape(6, 5, 4))
            with self.assertRaises(ndrt.InvalidArgumentError):
                p.reshape(-1)
            with p.contiguous() as c:
                self.eq(c.reshape(-1), self.a.transpose(0, 1, 3, 2).reshape(-1))

    def test_getitem(self):
        keys = [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (1, Ellipsis, slice(None, None, -1)),
                (slice(None, None, 2), None, slice(1, None), 3), slice(5, 10), (0, 0, 0, 0),
                (slice(None), slice(None), slice(-2, None)), (slice(None, None, -2), slice(2, 0, -1)),
                (None,), (Ellipsis,), (np.int64(1), slice(None, 1))]
        for k in keys:
            with self.subTest(key=k):
                self.eq(self.t[k], self.a[k])
        with self.assertRaises(IndexError):
            self.t[2]
        with self.assertRaises(IndexError):
            self.t[0, 0, 0, 0, 0]
        with self.assertRaises(IndexError):
            self.t[[0, 1]]
        with self.assertRaises(IndexError):
            self.t[..., ...]

    def test_slice_and_expand(self):
        self.eq(self.t.slice(2, 1, None, 2), self.a[:, :, 1::2])
        self.eq(self.t.slice(3, None, None, -1), self.a[..., ::-1])
        self.eq(self.t.slice(1, -1, -10, -1), self.a[:, -1:-10:-1])
        with self.t[:, :1] as s:
            self.eq(s.expand(2, 3, 4, 5), np.broadcast_to(self.a[:, :1], (2, 3, 4, 5)))
            self.eq(s.expand(7, -1, 3, -1, -1), np.broadcast_to(self.a[:, :1], (7, 2, 3, 4, 5)))
            with self.assertRaises(ndrt.ShapeError):
                s.expand(2, 3, 4, 6)

    def test_views_share_storage(self):
        with self.t[1, :, 2] as v:
            ndrt.ops.fill(value=-1.0, out=v)
        self.a[1, :, 2] = -1
        np.testing.assert_array_equal(self.t.numpy(), self.a)

    def test_metadata(self):
        with self.t[:, 1, ::2] as v:
            self.assertEqual(v.shape, (2, 2, 5))
            self.assertEqual(v.strides, (60, 10, 1))
            self.assertEqual(v.offset, 20)
            self.assertEqual(v.ndim, 3)
            self.assertEqual(v.size, 20)
            self.assertEqual(v.nbytes, 160)
            self.assertEqual(len(v), 2)
            self.assertEqual(v.device, "cpu:0")
            self.assertEqual(str(v.device), "cpu:0")
            self.assertFalse(v.is_contiguous())
            self.assertIn("shape=(2, 2, 5)", repr(v))

    def test_operators(self):
        rng = np.random.default_rng(4)
        x, y = rand(rng, (3, 4), np.float32), rand(rng, (4,), np.float32)
        with ndrt.tensor(x) as a, ndrt.tensor(y) as b:
            for got, ref in [(a + b, x + y), (a - b, x - y), (a * b, x * y), (a / b, x / y), (-a, -x),
                             (a + 1.5, x + np.float32(1.5)), (2 * a, 2 * x), (1 - a, 1 - x),
                             (a @ a.T, x @ x.T)]:
                with got:
                    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)
            np.testing.assert_array_equal(np.asarray(a), x)
            self.assertEqual(a.tolist(), x.tolist())
            rows = list(a)
            self.assertEqual([r.tolist() for r in rows], x.tolist())
            for r in rows:
                r.close()
            with ndrt.tensor(1.0) as s, self.assertRaises(TypeError):
                iter(s)

    def test_constructors(self):
        with ndrt.zeros((2, 3)) as z, ndrt.ones(4, "i32") as o, ndrt.full((2,), 7, "f64") as f:
            np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), np.float32))
            np.testing.assert_array_equal(o.numpy(), np.ones(4, np.int32))
            np.testing.assert_array_equal(f.numpy(), [7.0, 7.0])
        with ndrt.tensor(np.array(2.5, np.float32)) as s, ndrt.tensor(7) as i, ndrt.tensor([True, False]) as b:
            self.assertEqual((s.shape, s.dtype, s.item()), ((), "f32", 2.5))
            self.assertEqual((i.shape, i.dtype), ((), "i64"))  # numpy's inference
            self.assertEqual(b.dtype, "bool")
        with ndrt.Tensor([[1, 2], [3, 4]], dtype="f32") as t:
            self.assertEqual(t.dtype, "f32")
            np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])
            with t.retain() as r:
                self.assertNotEqual(r.handle, t.handle)
            with t.clone() as c:
                self.assertNotEqual(c.data_ptr(), t.data_ptr())
            with ndrt.tensor(t, dtype="f64") as d:
                self.assertEqual(d.dtype, "f64")


if __name__ == "__main__":
    unittest.main()


class NumpyMethodsTest(LeakCheck, unittest.TestCase):
    """numpy's method names on Tensor, each one runtime op, against numpy on random data."""

    def setUp(self):
        super().setUp()
        self.rng = np.random.default_rng(1234)

    def test_reductions_with_axis_and_keepdims(self):
        a = self.rng.standard_normal((3, 4, 5))
        with ndrt.tensor(a) as t:
            for name in ("sum", "mean", "max", "min"):
                for axis in (None, 0, 1, -1, (0, 2), ()):
                    for keepdims in (False, True):
                        want = getattr(a, name)(axis=axis, keepdims=keepdims)
                        with getattr(t, name)(axis=axis, keepdims=keepdims) as got:
                            np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12,
                                                       err_msg="%s axis=%s keepdims=%s" % (name, axis, keepdims))
            # A view with strides: the same answers.
            with t.permute(2, 0, 1) as v:
                with v.sum(axis=1) as got:
                    np.testing.assert_allclose(got.numpy(), a.transpose(2, 0, 1).sum(axis=1), rtol=1e-12)

    def test_argmax_argmin_match_numpy(self):
        a = self.rng.standard_normal((4, 6)).astype(np.float32)
        with ndrt.tensor(a) as t:
            for name in ("argmax", "argmin"):
                for axis in (None, 0, 1, -1):
                    with getattr(t, name)(axis=axis) as got:
                        np.testing.assert_array_equal(got.numpy(), getattr(a, name)(axis=axis), err_msg=name)
                with getattr(t, name)(axis=None, keepdims=True) as got:
                    self.assertEqual(got.shape, (1, 1))
                    self.assertEqual(int(got), getattr(a, name)())
            with t.T as v:  # flat index of a non-contiguous view: numpy's row-major order of the view
                with v.argmax() as got:
                    self.assertEqual(int(got), a.T.argmax())

    def test_comparisons_give_bool_tensors(self):
        a = self.rng.integers(-3, 4, (5, 7)).astype(np.int32)
        b = self.rng.integers(-3, 4, (5, 7)).astype(np.int32)
        with ndrt.tensor(a) as ta, ndrt.tensor(b) as tb:
            for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
                with getattr(ta, op)(tb) as got:
                    self.assertEqual(got.dtype, "bool")
                    np.testing.assert_array_equal(got.numpy(), getattr(a, op)(b), err_msg=op)
                with getattr(ta, op)(1) as got:  # a Python scalar broadcasts
                    np.testing.assert_array_equal(got.numpy(), getattr(a, op)(1), err_msg=op + " scalar")
            self.assertEqual(len({ta, tb}), 2)  # hashable by identity (== is elementwise, as numpy's)

    def test_inplace_operators_write_the_same_tensor(self):
        a = self.rng.standard_normal((4, 5))
        b = self.rng.standard_normal((4, 5))
        with ndrt.tensor(a) as t, ndrt.tensor(b) as u:
            h = t.handle
            t += u
            t *= 2.0
            t -= 1.5
            t /= u
            self.assertEqual(t.handle, h)
            np.testing.assert_allclose(t.numpy(), ((a + b) * 2.0 - 1.5) / b, rtol=1e-12)
            with ndrt.tensor(np.ones(5)) as row:
                t += row  # broadcast into the tensor's own shape
            np.testing.assert_allclose(t.numpy(), ((a + b) * 2.0 - 1.5) / b + 1, rtol=1e-12)

    def test_astype_T_len_tolist_and_scalars(self):
        a = self.rng.standard_normal((2, 3)).astype(np.float32)
        with ndrt.tensor(a) as t:
            with t.astype("f64") as d:
                self.assertEqual(d.dtype, "f64")
                np.testing.assert_array_equal(d.numpy(), a.astype(np.float64))
            with t.T as v:
                self.assertEqual(v.shape, (3, 2))
                np.testing.assert_array_equal(v.numpy(), a.T)
            self.assertEqual(len(t), 2)
            self.assertEqual(t.tolist(), a.tolist())
            with t.sum() as s:
                self.assertAlmostEqual(float(s), float(a.astype(np.float64).sum()), places=5)
            with ndrt.tensor(np.array([7], np.int64)) as i:
                self.assertEqual(int(i), 7)
