"""ndrt.ops: generated from the registry; checked against float64 numpy references on random data."""
import inspect
import json
import math
import unittest

import numpy as np

import ndrt
from ndrt import _opgen
from common import LeakCheck, rand

NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8, "u8": np.uint8,
      "i32": np.int32, "i64": np.int64, "bool": np.bool_}
RTOL = {"f32": 2e-5, "f64": 1e-12, "f16": 2e-3}


def cpu_dtypes(name):
    return [d for d in ndrt.describe_op(name).kernels.get("cpu", []) if d in NP]


def trunc_div(a, b):
    q = np.trunc(a.astype(np.float64) / b.astype(np.float64))
    return q


class GeneratedFunctionsTest(unittest.TestCase):
    def test_every_registered_op_has_a_function(self):
        names = ndrt.op_names()
        self.assertGreaterEqual(len(names), 15)
        for i, name in enumerate(names):
            with self.subTest(op=name):
                info = ndrt.describe_op(name)
                self.assertEqual(ndrt.op_id(name), i)
                self.assertEqual(info.id, i)
                fn = getattr(ndrt.ops, _opgen._pyname(name, set()))
                self.assertIs(fn.op_info, info)
                self.assertIn(info.doc.split("\n")[0][:40], fn.__doc__)
                sig = inspect.signature(fn)
                params = list(sig.parameters.values())
                self.assertEqual(params[-1].name, "out")
                self.assertIsNone(params[-1].default)
                n_in = len(info.inputs) - info.n_optional  # positional; optional inputs are keyword-only
                if info.variadic:
                    kinds = [p.kind for p in params]
                    self.assertIn(inspect.Parameter.VAR_POSITIONAL, kinds)
                self.assertEqual([p.name for p in params[:n_in]], info.input_pynames[:n_in] if not info.variadic
                                 else info.input_pynames[:n_in - 1] + [info.input_pynames[-1]])
                attr_params = params[n_in:n_in + len(info.attrs)]
                self.assertEqual([p.name for p in attr_params], [a.pyname for a in info.attrs])
                opt_params = params[n_in + len(info.attrs):-1]
                self.assertEqual([p.name for p in opt_params], info.input_pynames[n_in:])
                for p in opt_params:
                    self.assertEqual(p.kind, inspect.Parameter.KEYWORD_ONLY)
                    self.assertIsNone(p.default)
                for p, a in zip(attr_params, info.attrs):
                    if a.required:
                        self.assertIs(p.default, inspect.Parameter.empty)
                    else:
                        self.assertEqual(p.default, a.default)
                self.assertEqual(set(info.raw), set(info.raw) | {"name", "inputs", "outputs", "attrs"})

    def test_documented_examples(self):
        info = ndrt.describe_op("sum")
        self.assertEqual(_opgen.encode_attrs(info, ([0, 2], True)), ([2, 0, 2, 1], []))
        self.assertEqual(_opgen.encode_attrs(info, (1, False)), ([1, 1, 0], []))
        self.assertEqual(_opgen.encode_attrs(info, ((), False)), ([0, 0], []))
        fill = ndrt.describe_op("fill")
        self.assertEqual(_opgen.encode_attrs(fill, (2.5, np.int32, (2, 3))), ([7, 2, 2, 3], [2.5]))
        with self.assertRaises(TypeError):
            _opgen.encode_attrs(info, ([0], 2))
        with self.assertRaises(TypeError):
            _opgen.encode_attrs(info, ([0.5], True))

    def test_help_text(self):
        doc = ndrt.ops.matmul.__doc__
        self.assertIn("transpose_a (bool, default False)", doc)
        self.assertIn("Kernels: cpu:", doc)
        self.assertIn("dtype (dtype, required)", ndrt.ops.cast.__doc__)


class SyntheticDescriptionTest(unittest.TestCase):
    """Descriptions with every attribute type, variadic inputs, two outputs and awkward names,
    run through a recording fake of ndrt_exec (the real registry may not have such ops yet)."""

    RAW = {"id": 7, "name": "fancy.op", "doc": "A fake op.\nSecond line.",
           "inputs": [{"name": "x"}, {"name": "lambda"}, {"name": "rest"}],
           "outputs": [{"name": "y"}, {"name": "z"}], "variadic": True, "inplace": False,
           "attrs": [{"name": "k", "type": "int", "default": -3},
                     {"name": "alpha", "type": "float", "default": 0.5},
                     {"name": "flag", "type": "bool", "default": True},
                     {"name": "dt", "type": "dtype", "default": "f64"},
                     {"name": "dims", "type": "ints", "default": [1, 2]},
                     {"name": "beta", "type": "float", "default": None, "required": True},
                     {"name": "out", "type": "int", "default": 0}],
           "kernels": {"cpu": ["f32"]}}

    def setUp(self):
        self.calls = []
        self.real_exec = _opgen._exec

        def fake(op_id, ins, n_in, outs, n_out, ints, n_ints, floats, n_floats):
            self.calls.append((op_id, [ins[i] for i in range(n_in)], [outs[i] for i in range(n_out)],
                               [ints[i] for i in range(n_ints)], [floats[i] for i in range(n_floats)]))
            for i in range(n_out):
                if outs[i] == 0:
                    outs[i] = ndrt.empty((1,)).detach_handle()
            return 0
        _opgen._exec = fake

    def tearDown(self):
        _opgen._exec = self.real_exec

    def test_signature_and_encoding(self):
        info = _opgen.OpInfo(json.loads(json.dumps(self.RAW)))
        name, fn = _opgen.make_function(info)
        self.assertEqual(name, "fancy_op")
        sig = str(inspect.signature(fn))
        self.assertEqual(sig, "(x, lambda_, *rest, k=-3, alpha=0.5, flag=True, dt='f64', dims=(1, 2), beta, "
                              "out_=0, out=None)")
        self.assertIn("Second line.", fn.__doc__)
        self.assertIn("*rest (one or more)", fn.__doc__)
        with ndrt.zeros(2) as a, ndrt.zeros(2) as b, ndrt.zeros(2) as c, ndrt.zeros(2) as d:
            y, z = fn(a, b, c, d, beta=1.25)
            self.assertEqual(self.calls[-1], (7, [a.handle, b.handle, c.handle, d.handle], [0, 0],
                                              [-3, 1, 2, 2, 1, 2, 0], [0.5, 1.25]))
            y.close()
            z.close()
            # a list for the variadic input, attributes of every type, a given output
            y, z2 = fn(a, b, [c], k=np.int64(4), alpha=2, flag=False, dt=np.float32, dims=5, beta=-1.0,
                       out_=9, out=(d, None))
            self.assertIs(y, d)
            self.assertEqual(self.calls[-1], (7, [a.handle, b.handle, c.handle], [d.handle, 0],
                                              [4, 0, 1, 1, 5, 9], [2.0, -1.0]))
            z2.close()
            with self.assertRaises(ndrt.InvalidArgumentError):
                fn(a, b, beta=1.0)  # the variadic input needs one tensor or more
            with self.assertRaises(TypeError):
                fn(a, b, c)  # beta is required
            with self.assertRaises(ndrt.InvalidArgumentError):
                fn(a, b, c, beta=1.0, out=d)  # two outputs
            with self.assertRaises(TypeError):
                fn(a, b, c, beta=1.0, dims=[1.5])

    def test_unknown_attribute_type(self):
        raw = {"id": 3, "name": "future", "doc": "", "inputs": [{"name": "x"}], "outputs": [{"name": "y"}],
               "variadic": False, "attrs": [{"name": "a", "type": "int", "default": 1},
                                            {"name": "s", "type": "string", "default": "hi"},
                                            {"name": "b", "type": "float", "default": 2.0}]}
        info = _opgen.OpInfo(raw)
        _, fn = _opgen.make_function(info)
        with ndrt.zeros(1) as x:
            fn(x, a=5).close()
            self.assertEqual(self.calls[-1][3:], ([5], []))  # stops before the unknown attribute
            with self.assertRaises(ndrt.NotSupportedError):
                fn(x, s="other")
            with self.assertRaises(ndrt.NotSupportedError):
                fn(x, b=3.0)
        self.assertIn("type unknown to this binding", fn.__doc__)

    def test_non_finite_defaults_parse(self):
        raw = _opgen._parse_json('{"name":"n","doc":"a:nan, b","attrs":[{"name":"e","type":"float","default":nan},'
                                 '{"name":"f","type":"float","default":-inf}]}')
        self.assertTrue(math.isnan(raw["attrs"][0]["default"]))
        self.assertEqual(raw["attrs"][1]["default"], -math.inf)
        self.assertEqual(raw["doc"], "a:nan, b")

    def test_trailing_optional_inputs(self):
        raw = {"id": 5, "name": "wloss", "doc": "", "outputs": [{"name": "loss"}], "variadic": False,
               "inputs": [{"name": "x"}, {"name": "labels"}, {"name": "weights", "optional": True},
                          {"name": "bias", "optional": True}],
               "attrs": [{"name": "reduction", "type": "int", "default": 1}]}
        info = _opgen.OpInfo(raw)
        self.assertEqual(info.n_optional, 2)
        _, fn = _opgen.make_function(info)
        self.assertEqual(str(inspect.signature(fn)), "(x, labels, reduction=1, *, weights=None, bias=None, out=None)")
        self.assertIn("weights=None (optional, keyword)", fn.__doc__)
        with ndrt.zeros(2) as a, ndrt.zeros(2) as b, ndrt.zeros(2) as c, ndrt.zeros(2) as d:
            fn(a, b).close()
            self.assertEqual(self.calls[-1][1], [a.handle, b.handle])  # left out: two inputs
            fn(a, b, 2, weights=c).close()
            self.assertEqual(self.calls[-1][1:4], ([a.handle, b.handle, c.handle], [0], [2]))
            fn(a, b, weights=c, bias=d).close()
            self.assertEqual(self.calls[-1][1], [a.handle, b.handle, c.handle, d.handle])
            with self.assertRaises(ndrt.InvalidArgumentError):
                fn(a, b, bias=d)  # a gap: only trailing optional inputs may be left out
        with self.assertRaises(ndrt.InvalidArgumentError):
            _opgen.OpInfo({"id": 1, "name": "bad", "inputs": [{"name": "a", "optional": True}, {"name": "b"}],
                           "outputs": [{"name": "y"}]})

    def test_no_inputs(self):
        raw = {"id": 0, "name": "gen", "doc": "", "inputs": [], "outputs": [{"name": "y"}],
               "attrs": [{"name": "shape", "type": "ints", "default": []}]}
        _, fn = _opgen.make_function(_opgen.OpInfo(raw))
        self.assertEqual(str(inspect.signature(fn)), "(shape=(), *, out=None)")
        fn(shape=[4, 5]).close()
        self.assertEqual(self.calls[-1], (0, [], [0], [2, 4, 5], []))


class OpsVsNumpyTest(LeakCheck, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.rng = np.random.default_rng(1234)

    def assert_close(self, got, ref, dt, rtol=None):
        ref = np.asarray(ref)
        if got.dtype == np.bool_ or ref.dtype == np.bool_:
            np.testing.assert_array_equal(got, ref)
            return
        rtol = rtol or RTOL.get(dt, 0)
        if rtol and got.dtype.kind == "f":
            np.testing.assert_allclose(got.astype(np.float64), ref, rtol=rtol, atol=rtol)
        else:  # integers: exact, wrapping as two's complement like the runtime
            np.testing.assert_array_equal(got, ref.astype(np.int64).astype(got.dtype))

    def views(self, x):
        """The array itself, and the same values behind a non-contiguous ndrt view."""
        yield ndrt.tensor(x)
        if x.ndim >= 1 and x.size:
            big = np.repeat(x[..., None], 2, axis=-1)  # every element twice along a new last axis
            t = ndrt.tensor(big)
            v = t[..., 0]
            t.close()
            yield v

    def test_binary(self):
        refs = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": None}
        shapes = [((3, 5), (3, 5)), ((4, 1, 3), (5, 1)), ((), (2, 3)), ((7,), ()), ((0, 3), (3,)), ((2, 3, 5), (1, 5))]
        for name, ref in refs.items():
            fn = getattr(ndrt.ops, name)
            for dt in cpu_dtypes(name):
                for sa, sb in shapes:
                    with self.subTest(op=name, dtype=dt, shapes=(sa, sb)):
                        a, b = rand(self.rng, sa, NP[dt]), rand(self.rng, sb, NP[dt])
                        if name == "div" and dt[0] in "iu":
                            b[b == 0] = 3
                        a64, b64 = a.astype(np.float64), b.astype(np.float64)
                        r = (trunc_div(a, b) if dt[0] in "iu" else a64 / b64) if name == "div" else ref(a64, b64)
                        tas, tbs = list(self.views(a)), list(self.views(b))
                        for ta in tas:
                            for tb in tbs:
                                with fn(ta, tb) as y:
                                    self.assertEqual(y.dtype, dt)
                                    self.assert_close(y.numpy(), r, dt)
                                    with ndrt.empty(r.shape, dt) as o:
                                        self.assertIs(fn(ta, tb, out=o), o)
                                        self.assert_close(o.numpy(), r, dt)
                        for t in tas + tbs:
                            t.close()

    def test_integer_division_by_zero(self):
        with ndrt.tensor(np.array([1, 2], np.int32)) as a, ndrt.tensor(np.array([1, 0], np.int32)) as b:
            with self.assertRaises(ndrt.InvalidArgumentError):
                ndrt.ops.div(a, b)

    def test_unary(self):
        refs = {"neg": np.negative, "relu": lambda x: np.maximum(x, 0), "exp": np.exp, "log": np.log}
        for name, ref in refs.items():
            fn = getattr(ndrt.ops, name)
            for dt in cpu_dtypes(name):
                for shape in [(5, 7), (), (0,), (2, 3, 4)]:
                    with self.subTest(op=name, dtype=dt, shape=shape):
                        x = rand(self.rng, shape, NP[dt])
                        if name == "log":
                            x = np.abs(x)
                        r = ref(x.astype(np.float64))
                        for t in self.views(x):
                            with t, fn(t) as y:
                                self.assert_close(y.numpy(), r, dt)
                        if ndrt.describe_op(name).inplace:
                            with ndrt.tensor(x) as t:
                                fn(t, out=t)
                                self.assert_close(t.numpy(), r, dt)

    def test_reductions(self):
        refs = {"sum": np.sum, "mean": np.mean, "max": np.max}
        cases = [((3, 4, 5), ()), ((3, 4, 5), (0,)), ((3, 4, 5), (0, 2)), ((3, 4, 5), (-1,)), ((6,), ()),
                 ((2, 0, 3), (0,)), ((), ()), ((2, 3, 4, 5), (1, 3))]
        for name, ref in refs.items():
            fn = getattr(ndrt.ops, name)
            for dt in cpu_dtypes(name):
                for shape, axes in cases:
                    for keep in (False, True):
                        if name == "max" and 0 in [shape[a] for a in (axes or range(len(shape)))]:
                            continue
                        with self.subTest(op=name, dtype=dt, shape=shape, axes=axes, keepdims=keep):
                            x = rand(self.rng, shape, NP[dt])
                            with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
                                __import__("warnings").simplefilter("ignore")
                                r = ref(x.astype(np.float64), axis=tuple(axes) if axes else None, keepdims=keep)
                            r = np.asarray(r)
                            for t in self.views(x):
                                with t, fn(t, axes=axes, keepdims=keep) as y:
                                    self.assertEqual(y.shape, r.shape)
                                    self.assert_close(y.numpy(), r, dt, rtol=1e-5 if dt == "f32" else None)
        with ndrt.tensor(np.ones((2, 3), np.float32)) as t, ndrt.ops.sum(t, 1) as y:  # positional int axis
            np.testing.assert_array_equal(y.numpy(), [3, 3])

    def test_matmul(self):
        cases = [((3, 4), (4, 5), False, False), ((4, 3), (4, 5), True, False), ((3, 4), (5, 4), False, True),
                 ((4, 3), (5, 4), True, True), ((2, 3, 4), (4, 6), False, False), ((2, 1, 3, 4), (5, 4, 2), False, False),
                 ((1, 7), (7, 1), False, False), ((3, 0), (0, 2), False, False)]
        for dt in cpu_dtypes("matmul"):
            for sa, sb, ta, tb in cases:
                with self.subTest(dtype=dt, a=sa, b=sb, ta=ta, tb=tb):
                    a, b = rand(self.rng, sa, NP[dt]), rand(self.rng, sb, NP[dt])
                    a64 = np.swapaxes(a, -1, -2).astype(np.float64) if ta else a.astype(np.float64)
                    b64 = np.swapaxes(b, -1, -2).astype(np.float64) if tb else b.astype(np.float64)
                    r = a64 @ b64
                    for x in self.views(a):
                        with x, ndrt.tensor(b) as y, ndrt.ops.matmul(x, y, transpose_a=ta, transpose_b=tb) as z:
                            self.assert_close(z.numpy(), r, dt, rtol=1e-4 if dt == "f32" else None)
                    with ndrt.tensor(a) as x, ndrt.tensor(b) as y, ndrt.ops.matmul(x, y, ta, tb) as z:
                        self.assert_close(z.numpy(), r, dt, rtol=1e-4 if dt == "f32" else None)

    def test_fill_copy_cast(self):
        for dt in cpu_dtypes("fill"):
            with self.subTest(dtype=dt):
                with ndrt.ops.fill(value=3.0, dtype=dt, shape=(2, 3)) as y:
                    self.assertEqual((y.dtype, y.shape), (dt, (2, 3)))
                    if dt != "bf16":
                        np.testing.assert_array_equal(y.numpy(), np.full((2, 3), 3, NP[dt]))
                with ndrt.empty((4,), dt) as o:
                    ndrt.ops.fill(1.0, out=o)
                    with o.cast("f64") as d:
                        np.testing.assert_array_equal(d.numpy(), np.ones(4))
        x = rand(self.rng, (3, 4), np.float32)
        with ndrt.tensor(x) as t, ndrt.ops.copy(t.T) as c, ndrt.ops.cast(t, "f64") as d, \
                ndrt.ops.cast(t, dtype=np.int32) as i:
            np.testing.assert_array_equal(c.numpy(), x.T)
            np.testing.assert_array_equal(d.numpy(), x.astype(np.float64))
            np.testing.assert_array_equal(i.numpy(), np.trunc(x).astype(np.int32))

    def test_inputs_from_numpy_and_given_output_checks(self):
        x = rand(self.rng, (3,), np.float32)
        with ndrt.ops.add(x, x) as y:  # numpy inputs are wrapped zero-copy for the call
            np.testing.assert_allclose(y.numpy(), 2 * x)
        with ndrt.tensor(x) as a, ndrt.empty((4,), "f32") as bad, ndrt.empty((3,), "f64") as badt:
            with self.assertRaises(ndrt.ShapeError):
                ndrt.ops.add(a, a, out=bad)
            with self.assertRaises(ndrt.DtypeError):
                ndrt.ops.add(a, a, out=badt)
            with self.assertRaises(TypeError):
                ndrt.ops.add(a, [1, 2, 3])
            with self.assertRaises(TypeError):
                ndrt.ops.add(a, a, out=np.zeros(3, np.float32))

    # Ops other engineers add: checked when registered (skipped otherwise), numpy float64 references.
    UNARY = {"abs": (np.abs, None), "sign": (np.sign, None), "square": (np.square, None),
             "expm1": (np.expm1, "float"), "log1p": (np.log1p, "pos"), "sqrt": (np.sqrt, "pos"),
             "rsqrt": (lambda x: 1 / np.sqrt(x), "pos"), "reciprocal": (np.reciprocal, "float"),
             "sin": (np.sin, "float"), "cos": (np.cos, "float"), "tanh": (np.tanh, "float"),
             "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), "float"), "floor": (np.floor, "float"),
             "ceil": (np.ceil, "float"), "round": (np.round, "float"), "logical_not": (np.logical_not, None)}
    BINARY = {"maximum": np.maximum, "minimum": np.minimum, "pow": np.power, "eq": np.equal, "ne": np.not_equal,
              "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
              "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}

    def registered(self, name):
        return name in ndrt.op_names()

    def test_more_unary_if_registered(self):
        for name, (ref, domain) in self.UNARY.items():
            if not self.registered(name):
                continue
            fn = getattr(ndrt.ops, name)
            for dt in cpu_dtypes(name):
                if dt == "bool" or (domain and dt[0] != "f"):
                    continue
                with self.subTest(op=name, dtype=dt):
                    x = rand(self.rng, (4, 7), NP[dt])
                    if name == "round" or name == "floor" or name == "ceil":
                        x = (x * 4).astype(NP[dt])
                        x[0, :5] = [0.5, 1.5, 2.5, -0.5, -2.5]
                    if domain == "pos":
                        x = np.abs(x)
                    if name == "abs" and dt[0] == "u":
                        pass
                    r = ref(x.astype(np.float64))
                    for t in self.views(x):
                        with t, fn(t) as y:
                            self.assert_close(y.numpy(), r, dt)

    def test_more_binary_if_registered(self):
        for name, ref in self.BINARY.items():
            if not self.registered(name):
                continue
            fn = getattr(ndrt.ops, name)
            for dt in cpu_dtypes(name):
                with self.subTest(op=name, dtype=dt):
                    if dt == "bool":
                        a, b = self.rng.random((3, 5)) < 0.5, self.rng.random((5,)) < 0.5
                    elif name == "pow":
                        a, b = np.abs(rand(self.rng, (3, 5), NP[dt])), rand(self.rng, (5,), NP[dt])
                    else:  # small integers so that ties and equalities happen
                        a = self.rng.integers(-2, 3, (3, 5)).astype(NP[dt])
                        b = self.rng.integers(-2, 3, (5,)).astype(NP[dt])
                    r = ref(a.astype(np.float64), b.astype(np.float64))
                    with ndrt.tensor(a) as ta, ndrt.tensor(b) as tb, fn(ta, tb) as y:
                        self.assert_close(y.numpy(), r, dt)
        if self.registered("where"):
            c = self.rng.random((3, 1)) < 0.5
            a, b = rand(self.rng, (3, 4), np.float32), rand(self.rng, (4,), np.float32)
            with ndrt.tensor(c) as tc, ndrt.tensor(a) as ta, ndrt.tensor(b) as tb, ndrt.ops.where(tc, ta, tb) as y:
                np.testing.assert_array_equal(y.numpy(), np.where(c, a, b))

    def test_more_reductions_if_registered(self):
        def logsumexp(x, axis=None, keepdims=False):
            m = np.max(x, axis=axis, keepdims=True)
            r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
            return r if keepdims else np.squeeze(r, axis=axis)
        refs = {"min": lambda x, **k: np.min(x, **k), "prod": lambda x, **k: np.prod(x, **k),
                "norm1": lambda x, **k: np.sum(np.abs(x), **k), "norm2": lambda x, **k: np.sqrt(np.sum(x * x, **k)),
                "logsumexp": logsumexp}
        for name, ref in refs.items():
            if not self.registered(name):
                continue
            fn = getattr(ndrt.ops, name)
            for dt in cpu_dtypes(name):
                for axes in ((), (1,), (0, 2)):
                    with self.subTest(op=name, dtype=dt, axes=axes):
                        x = rand(self.rng, (3, 4, 5), NP[dt])
                        if name == "prod" and dt[0] in "iu":
                            x = self.rng.integers(-2, 3, (3, 4, 5)).astype(NP[dt])
                        r = ref(x.astype(np.float64), axis=axes or None, keepdims=True)
                        with ndrt.tensor(x) as t, fn(t, axes=axes, keepdims=True) as y:
                            self.assert_close(y.numpy(), r, dt, rtol=1e-5 if dt == "f32" else None)
        for name in ("var", "std"):
            if not self.registered(name):
                continue
            for dt in cpu_dtypes(name):
                for corr in (0, 1):
                    with self.subTest(op=name, dtype=dt, correction=corr):
                        x = rand(self.rng, (4, 6), NP[dt])
                        r = getattr(np, name)(x.astype(np.float64), axis=1, ddof=corr)
                        with ndrt.tensor(x) as t, getattr(ndrt.ops, name)(t, axes=[1], correction=corr) as y:
                            self.assert_close(y.numpy(), r, dt, rtol=1e-5 if dt == "f32" else None)
        for name in ("argmax", "argmin"):
            if not self.registered(name):
                continue
            for dt in cpu_dtypes(name):
                for axis in (0, -1):
                    with self.subTest(op=name, dtype=dt, axis=axis):
                        x = self.rng.integers(-3, 4, (5, 6)).astype(NP[dt])  # ties: the first wins
                        r = getattr(np, name)(x, axis=axis)
                        with ndrt.tensor(x) as t, getattr(ndrt.ops, name)(t, axis=axis) as y:
                            self.assertEqual(y.dtype, "i64")
                            np.testing.assert_array_equal(y.numpy(), r)

    def test_parametric_activations_if_registered(self):
        import math as m
        erf = np.vectorize(m.erf)
        refs = {"leaky_relu": (lambda x, a: np.where(x > 0, x, a * x), {"alpha": 0.2}),
                "elu": (lambda x, a: np.where(x > 0, x, a * np.expm1(x)), {"alpha": 0.7}),
                "softplus": (lambda x, b: np.log1p(np.exp(b * x)) / b, {"beta": 2.0}),
                "gelu": (lambda x, approx: 0.5 * x * (1 + erf(x / np.sqrt(2))), {"approximate": False}),
                "clip": (lambda x, lo, hi: np.clip(x, lo, hi), {"min": -0.5, "max": 1.25})}
        for name, (ref, attrs) in refs.items():
            if not self.registered(name):
                continue
            for dt in cpu_dtypes(name):
                if dt[0] != "f":
                    continue
                with self.subTest(op=name, dtype=dt):
                    x = rand(self.rng, (5, 6), NP[dt])
                    r = ref(x.astype(np.float64), *attrs.values())
                    with ndrt.tensor(x) as t, getattr(ndrt.ops, name)(t, **attrs) as y:
                        self.assert_close(y.numpy(), r, dt, rtol=1e-5 if dt == "f32" else None)

    def test_backward_ops_match_finite_differences(self):
        """Every registered `<op>_bp(x or y, dy)` (f64) against directional central differences of
        `<op>`: <bp(x, dy), v> = <dy, (op(x + h v) - op(x - h v)) / 2h> for random directions v
        (a vector-Jacobian check, so it holds for ops that couple elements, e.g. softmax)."""
        checked = 0
        for name in ndrt.op_names():
            if not name.endswith("_bp") or not self.registered(name[:-3]):
                continue
            info, fwd = ndrt.describe_op(name), ndrt.describe_op(name[:-3])
            if [i for i in info.inputs] not in (["x", "dy"], ["y", "dy"]) or fwd.inputs != ["x"] \
                    or "f64" not in info.kernels.get("cpu", []) or any(a.required or a.type == "ints" for a in info.attrs):
                continue
            with self.subTest(op=name):
                x = rand(self.rng, (4, 5), np.float64)
                if name[:-3] in ("log", "sqrt", "rsqrt", "log1p"):
                    x = np.abs(x) + 0.5
                dy = rand(self.rng, (4, 5), np.float64)
                f = getattr(ndrt.ops, _opgen._pyname(name[:-3], set()))
                b = getattr(ndrt.ops, _opgen._pyname(name, set()))
                with ndrt.tensor(x) as tx, ndrt.tensor(dy) as tdy, f(tx) as y, \
                        b(tx if info.inputs[0] == "x" else y, tdy) as g:
                    grad = g.numpy()
                h = 1e-6
                for _ in range(3):
                    v = self.rng.standard_normal(x.shape)
                    with ndrt.tensor(x + h * v) as xp, ndrt.tensor(x - h * v) as xm, f(xp) as fp, f(xm) as fm:
                        num = np.sum(dy * (fp.numpy() - fm.numpy())) / (2 * h)
                    self.assertAlmostEqual(np.sum(grad * v), num, delta=1e-6 * max(1.0, abs(num)))
                checked += 1
        if not checked:
            self.skipTest("no backward ops of the form <op>_bp(x or y, dy) registered")

    def test_class_losses_with_weights_and_ignore_index(self):
        """softmax_cross_entropy / nll_loss with the optional weights and ignore_index (PyTorch's
        semantics; the mean over no counted rows is 0) against numpy."""
        n, c = 9, 4
        x = rand(self.rng, (n, c), np.float64)
        labels = self.rng.integers(0, c, n).astype(np.int64)
        labels[[1, 5]] = -100
        w = self.rng.uniform(0.5, 2.0, c)
        lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
        keep = labels != -100
        safe = np.where(keep, labels, 0)
        for name, per_row in (("softmax_cross_entropy", lse - x[np.arange(n), safe]),
                              ("nll_loss", -x[np.arange(n), safe])):
            fn = getattr(ndrt.ops, name)
            ref = np.where(keep, w[safe] * per_row, 0.0)
            with ndrt.tensor(x) as tx, ndrt.tensor(labels) as tl, ndrt.tensor(w) as tw:
                with fn(tx, tl, 0, weights=tw) as y:
                    self.assert_close(y.numpy(), ref, "f64")
                with fn(tx, tl, weights=tw) as y:
                    self.assert_close(y.numpy(), ref.sum() / w[safe][keep].sum(), "f64")
                with fn(tx, tl, 2) as y:
                    self.assert_close(y.numpy(), np.where(keep, per_row, 0.0).sum(), "f64")
                with ndrt.tensor(np.full(n, 3, np.int64)) as all_ignored, fn(tx, all_ignored, ignore_index=3) as y:
                    self.assertEqual(float(y.numpy()), 0.0)  # nothing counted: 0, not NaN
                with ndrt.call_op(name, tx, tl, tw, reduction=2) as a, fn(tx, tl, 2, weights=tw) as b:
                    self.assertEqual(float(a.numpy()), float(b.numpy()))

    def test_call_op_by_name(self):
        with ndrt.tensor(np.arange(6.0).reshape(2, 3)) as t:
            with ndrt.call_op("sum", t, axes=[0], keepdims=True) as y:
                np.testing.assert_array_equal(y.numpy(), [[3, 5, 7]])
            with self.assertRaises(TypeError):
                ndrt.call_op("sum", t, nope=1)
            with self.assertRaises(ndrt.InvalidArgumentError):
                ndrt.call_op("cast", t)


if __name__ == "__main__":
    unittest.main()
