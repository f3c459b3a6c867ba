"""Tensor: an owned ndrt handle with numpy interop and views."""
import ctypes
import itertools
import operator
import sys

import numpy as np

from ._lib import lib, RELEASE_FN
from ._types import (DTYPE_CODES, DTYPE_NAMES, ITEMSIZE, TO_NUMPY, FROM_NUMPY, Device, dtype_name,
                     dtype_code, device_code)
from .errors import check, error_from_status

_c_int64 = ctypes.c_int64
_c_int32 = ctypes.c_int32
_byref = ctypes.byref
_release = lib.ndrt_tensor_release

# ----------------------------------------------------------------------------------------------
# Release hooks for wrapped memory (numpy arrays, DLPack producers).
# The runtime calls _on_release(data, user) once, on whatever thread drops the last view. `user`
# is an integer key into _keepalive, whose value is the Python object that owns the memory
# (or a callable to run: DLPack deleters). The CFUNCTYPE object lives for the whole process.
# ----------------------------------------------------------------------------------------------
_keepalive = {}
_ids = itertools.count(1)
_release_stats = {"released": 0, "errors": 0}


def _on_release(data, user):
    try:
        owner = _keepalive.pop(user, None)
        _release_stats["released"] += 1
        if isinstance(owner, _Finalizer):
            owner.run()
        del owner  # the numpy array (or other owner) may die here
    except BaseException:  # never let an exception cross into C; count it for the tests
        try:
            _release_stats["errors"] += 1
        except BaseException:
            pass


_RELEASE_CB = RELEASE_FN(_on_release)


class _Finalizer:
    """A keepalive entry that also runs a function when the memory is released (DLPack deleters)."""
    __slots__ = ("fn", "args")

    def __init__(self, fn, *args):
        self.fn = fn
        self.args = args

    def run(self):
        fn, self.fn = self.fn, None
        if fn is not None:
            fn(*self.args)


def pending_releases():
    """Number of wrapped buffers whose release hook has not run yet (for leak checks)."""
    return len(_keepalive)


def wrap_memory(dtype, shape, strides, ptr, owner, readonly=False):
    """Wraps caller memory zero-copy. strides are in elements (None: row-major) and may be
    negative or zero; `owner` is kept alive until the runtime's release hook runs (a _Finalizer
    runs there). Returns a Tensor. On failure the owner is not kept and nothing runs."""
    name = dtype_name(dtype)
    item = ITEMSIZE[name]
    n = len(shape)
    shape = [int(s) for s in shape]
    if strides is None:
        strides, acc = [0] * n, 1
        for i in range(n - 1, -1, -1):
            strides[i] = acc
            acc *= max(shape[i], 1)
    st = [int(s) for s in strides]
    numel = 1
    for s in shape:
        numel *= s
    base = ptr or 0
    flips = []
    capacity = 0
    if numel > 0:
        # The runtime wraps memory from element [0..0] upward: flip negative strides (move the base
        # to the lowest address) and undo the flip with a negative-step slice afterwards.
        for i in range(n):
            if st[i] < 0:
                if shape[i] > 1:
                    base += (shape[i] - 1) * st[i] * item
                    flips.append(i)
                st[i] = -st[i]
        hi = 0
        for i in range(n):
            hi += (shape[i] - 1) * st[i]
        capacity = (hi + 1) * item
    key = next(_ids)
    _keepalive[key] = owner
    out = _c_int64()
    status = lib.ndrt_tensor_wrap(DTYPE_CODES[name], n, (_c_int64 * n)(*shape) if n else None,
                                  (_c_int64 * n)(*st) if n else None, base or None, capacity,
                                  _RELEASE_CB, key, _byref(out))
    if status:
        err = error_from_status(status)
        _keepalive.pop(key, None)
        raise err
    h = out.value
    for axis in flips:
        nh = _c_int64()
        status = lib.ndrt_tensor_slice(h, axis, shape[axis] - 1, -shape[axis] - 1, -1, _byref(nh))
        if status:
            err = error_from_status(status)
            _release(h)
            raise err
        _release(h)
        h = nh.value
    return _from_handle(h, readonly)


def _from_handle(h, readonly=False):
    t = _new(Tensor)
    t._h = h
    t._readonly = readonly
    t._meta = None
    t._ha = None
    return t


_new = object.__new__


def _np_dtype(name, raw_bf16):
    if name == "bf16":
        if raw_bf16:
            return np.dtype(np.uint16)
        raise TypeError("ndrt: numpy has no bfloat16; use t.cast('f32').numpy() for the values or "
                        "t.numpy(raw_bf16=True) for the bits as uint16")
    return TO_NUMPY[name]


class _ArrayOwner:
    """Base object of a zero-copy numpy view: holds a retained Tensor so the memory outlives both
    the original Tensor's close() and the array's other owners."""
    __slots__ = ("tensor", "__array_interface__")

    def __init__(self, tensor, interface):
        self.tensor = tensor
        self.__array_interface__ = interface


class Tensor:
    """An ndrt tensor: one owned handle (released by close(), `with`, or garbage collection,
    whichever comes first). Views (reshape, permute, slicing, expand) are new Tensors sharing the
    storage. `Tensor(data, dtype=None, device=None)` copies array-like data (see ndrt.tensor)."""
    __slots__ = ("_h", "_readonly", "_meta", "_ha", "__weakref__")

    def __init__(self, data, dtype=None, device=None):
        self._h = 0
        self._readonly = False
        self._meta = None
        self._ha = None
        t = tensor(data, dtype=dtype, device=device)
        self._h, t._h = t._h, 0

    # ------------------------------------------------------------------ lifetime
    def __del__(self, _release=_release):
        try:
            h = self._h
        except AttributeError:
            return
        if h:
            self._h = 0
            _release(h)

    def close(self):
        """Releases the handle now (idempotent). Other views and zero-copy arrays stay valid."""
        h = self._h
        if h:
            self._h = 0
            self._ha = None
            check(_release(h), "close")

    def _handle_array(self):
        # A one-entry handle array for ndrt_exec's given outputs (cached: the handle never changes).
        a = self._ha = (_c_int64 * 1)(self._h)
        return a

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
        """The raw ndrt_handle (int64), still owned by this Tensor."""
        return self._h

    def retain(self):
        """A new Tensor with its own handle to the same view."""
        out = _c_int64()
        check(lib.ndrt_tensor_retain(self._h, _byref(out)))
        return _from_handle(out.value, self._readonly)

    @classmethod
    def from_handle(cls, h, readonly=False):
        """Takes ownership of a raw handle (it is released with the returned Tensor)."""
        return _from_handle(int(h), readonly)

    def detach_handle(self):
        """Gives up ownership: returns the handle, which the caller must release."""
        h, self._h = self._h, 0
        self._ha = None
        return h

    # ------------------------------------------------------------------ description
    def _describe(self):
        m = self._meta
        if m is None:
            h = self._h
            r = _c_int32()
            check(lib.ndrt_tensor_rank(h, _byref(r)))
            n = r.value
            buf = (_c_int64 * max(n, 1))()
            check(lib.ndrt_tensor_shape(h, buf, n))
            shape = tuple(buf[:n])
            check(lib.ndrt_tensor_strides(h, buf, n))
            strides = tuple(buf[:n])
            d = _c_int32()
            check(lib.ndrt_tensor_dtype(h, _byref(d)))
            check(lib.ndrt_tensor_device(h, _byref(r)))
            m = self._meta = (shape, strides, DTYPE_NAMES[d.value], r.value)
        return m

    @property
    def shape(self):
        return self._describe()[0]

    @property
    def strides(self):
        """Strides in elements (numpy's are in bytes)."""
        return self._describe()[1]

    @property
    def dtype(self):
        """The runtime's dtype name: 'f32', 'f64', 'f16', 'bf16', 'i8', 'u8', 'i32', 'i64', 'bool'."""
        return self._describe()[2]

    @property
    def device(self):
        return Device.from_code(self._describe()[3])

    @property
    def ndim(self):
        return len(self._describe()[0])

    @property
    def size(self):
        n = 1
        for s in self._describe()[0]:
            n *= s
        return n

    numel = size

    @property
    def itemsize(self):
        return ITEMSIZE[self.dtype]

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def offset(self):
        """Offset of element [0..0] into the storage, in elements."""
        out = _c_int64()
        check(lib.ndrt_tensor_offset(self._h, _byref(out)))
        return out.value

    @property
    def readonly(self):
        """True for tensors wrapping read-only memory (a read-only numpy array); ndrt.ops refuses
        them as `out=`. The runtime itself does not track this."""
        return self._readonly

    def is_contiguous(self):
        out = _c_int32()
        check(lib.ndrt_tensor_is_contiguous(self._h, _byref(out)))
        return bool(out.value)

    def data_ptr(self):
        """Address of element [0..0] (cpu tensors only); valid while any view lives."""
        out = ctypes.c_void_p()
        check(lib.ndrt_tensor_data_ptr(self._h, _byref(out)))
        return out.value or 0

    def __iter__(self):
        """Views of the sub-tensors along axis 0 (as numpy iterates)."""
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]

    def __repr__(self):
        if not self._h:
            return "Tensor(<closed>)"
        try:
            shape, _, dt, dev = self._describe()
            head = "Tensor(shape=%s, dtype=%s, device=%s" % (shape, dt, Device.from_code(dev))
            if self.size <= 64 and dt != "bf16":
                body = np.array2string(self.numpy(), separator=", ", prefix="       ")
                return "%s,\n       %s)" % (head, body)
            return head + ")"
        except Exception as e:  # pragma: no cover
            return "Tensor(<error: %s>)" % e

    # ------------------------------------------------------------------ numpy
    def numpy(self, copy=True, raw_bf16=False):
        """A numpy array of the values. copy=True (default): a fresh array (works for any device:
        reading synchronizes). copy=False: a zero-copy view of a cpu tensor (any strides) that
        keeps the memory alive by itself (it holds a retained handle). bf16: numpy has no such
        dtype; raw_bf16=True gives the bits as uint16."""
        shape, strides, dt, dev = self._describe()
        npdt = _np_dtype(dt, raw_bf16)
        if copy:
            out = np.empty(shape, npdt)
            check(lib.ndrt_tensor_read(self._h, out.__array_interface__["data"][0] or None, out.nbytes), "numpy")
            return out
        if 0 in shape:
            return np.empty(shape, npdt)
        ptr = self.data_ptr()  # NotSupportedError for non-cpu tensors
        item = npdt.itemsize
        readonly = self._readonly or any(s == 0 and n > 1 for s, n in zip(strides, shape))
        iface = {"version": 3, "shape": shape, "typestr": npdt.str, "data": (ptr, readonly),
                 "strides": tuple(s * item for s in strides)}
        return np.asarray(_ArrayOwner(self.retain(), iface))

    def __array__(self, dtype=None):
        a = self.cast("f32").numpy() if self.dtype == "bf16" else self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def tolist(self):
        return self.__array__().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError("ndrt: item() needs exactly one element, the tensor has %d" % self.size)
        return self.__array__().reshape(()).item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __bool__(self):
        return bool(self.item())

    def write(self, data):
        """Overwrites the elements from array-like data (broadcast to this shape, converted to this
        dtype). Writing through a view writes the viewed storage."""
        if self._readonly:
            raise ValueError("ndrt: this tensor wraps read-only memory")
        if self.dtype == "bf16":
            src = tensor(np.broadcast_to(np.asarray(data, np.float32), self.shape), dtype="bf16")
            try:
                from . import ops
                ops.copy(src, out=self)
            finally:
                src.close()
            return self
        a = np.asarray(np.broadcast_to(np.asarray(data), self.shape), dtype=TO_NUMPY[self.dtype], order="C")
        check(lib.ndrt_tensor_write(self._h, a.__array_interface__["data"][0] or None, a.nbytes), "write")
        return self

    # ------------------------------------------------------------------ views
    def _derive(self, h):
        return _from_handle(h, self._readonly)

    def reshape(self, *shape):
        """A view with a new shape (one entry may be -1). Fails when the strides cannot express it
        without a copy: call .contiguous() first."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        n = len(shape)
        out = _c_int64()
        check(lib.ndrt_tensor_reshape(self._h, n, (_c_int64 * n)(*shape) if n else None, _byref(out)))
        return self._derive(out.value)

    view = reshape

    def permute(self, *axes):
        """Axes reordered: output axis i is input axis axes[i] (negative axes allowed)."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = axes[0]
        r = self.ndim
        perm = [int(a) + r if int(a) < 0 else int(a) for a in axes]
        out = _c_int64()
        check(lib.ndrt_tensor_permute(self._h, len(perm), (_c_int32 * len(perm))(*perm) if perm else None,
                                      _byref(out)))
        return self._derive(out.value)

    def transpose(self, a=None, b=None):
        """transpose(a, b) swaps two axes; transpose() reverses all axes (numpy's default)."""
        if a is None and b is None:
            return self.permute(list(range(self.ndim))[::-1])
        if a is None or b is None:
            raise TypeError("ndrt: transpose takes two axes or none")
        out = _c_int64()
        check(lib.ndrt_tensor_transpose(self._h, a, b, _byref(out)))
        return self._derive(out.value)

    @property
    def T(self):
        return self.transpose()

    def slice(self, axis, start=None, stop=None, step=1):
        """Python-style start:stop:step along one axis (a view)."""
        n = self.shape[axis]
        b, e, s = slice(start, stop, step).indices(n)
        return self._derive(self._slice_h(self._h, axis, b, e, s, n))

    @staticmethod
    def _slice_h(h, axis, b, e, s, n):
        # slice.indices() gives canonical bounds; a negative one (-1: before element 0 for a
        # negative step) must not count from the end in the runtime, so shift it by -n.
        out = _c_int64()
        check(lib.ndrt_tensor_slice(h, axis, b - n if b < 0 else b, e - n if e < 0 else e, s, _byref(out)))
        return out.value

    def expand(self, *shape):
        """Broadcast view to `shape` (numpy rules; -1 keeps an existing extent)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        own = self.shape
        shape = list(shape)
        off = len(shape) - len(own)
        for i, s in enumerate(shape):
            if s == -1 and i >= off:
                shape[i] = own[i - off]
        n = len(shape)
        out = _c_int64()
        check(lib.ndrt_tensor_expand(self._h, n, (_c_int64 * n)(*shape) if n else None, _byref(out)))
        return self._derive(out.value)

    broadcast_to = expand

    def __getitem__(self, key):
        """Basic indexing: ints, slices (any step), None (new axis) and one Ellipsis. Always a view."""
        if not isinstance(key, tuple):
            key = (key,)
        shape = self.shape
        ndim = len(shape)
        n_ell = sum(1 for k in key if k is Ellipsis)
        if n_ell > 1:
            raise IndexError("ndrt: an index can only have a single ellipsis ('...')")
        n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_real > ndim:
            raise IndexError("ndrt: too many indices: tensor is %d-dimensional, but %d were indexed" % (ndim, n_real))
        if n_ell:
            i = next(i for i, k in enumerate(key) if k is Ellipsis)
            key = key[:i] + (slice(None),) * (ndim - n_real) + key[i + 1:]
        else:
            key = key + (slice(None),) * (ndim - n_real)
        h = self._h
        owned = False
        final = []
        reshape_needed = False
        axis = 0
        try:
            for k in key:
                if k is None:
                    final.append(1)
                    reshape_needed = True
                    continue
                n = shape[axis]
                if isinstance(k, slice):
                    b, e, s = k.indices(n)
                    length = len(range(b, e, s))
                    if (b, e, s) != (0, n, 1):
                        nh = self._slice_h(h, axis, b, e, s, n)
                        if owned:
                            _release(h)
                        h, owned = nh, True
                    final.append(length)
                    axis += 1
                    continue
                if isinstance(k, (bool, np.bool_)):
                    raise IndexError("ndrt: boolean indices are not supported (only basic indexing)")
                try:
                    i = operator.index(k)
                except TypeError:
                    raise IndexError("ndrt: only integers, slices, None and ... are valid indices "
                                     "(no advanced indexing), got %r" % (type(k).__name__,)) from None
                if i < -n or i >= n:
                    raise IndexError("ndrt: index %d is out of bounds for axis %d with size %d" % (i, axis, n))
                if i < 0:
                    i += n
                nh = self._slice_h(h, axis, i, i + 1, 1, n)
                if owned:
                    _release(h)
                h, owned = nh, True
                reshape_needed = True
                axis += 1
            if reshape_needed:
                r = len(final)
                out = _c_int64()
                check(lib.ndrt_tensor_reshape(h, r, (_c_int64 * r)(*final) if r else None, _byref(out)))
                if owned:
                    _release(h)
                h, owned = out.value, True
            if not owned:
                out = _c_int64()
                check(lib.ndrt_tensor_retain(h, _byref(out)))
                h, owned = out.value, True
        except BaseException:
            if owned:
                _release(h)
            raise
        return self._derive(h)

    def __setitem__(self, key, value):
        view = self[key]
        try:
            if isinstance(value, Tensor):
                from . import ops
                src = value.expand(view.shape) if value.shape != view.shape else value
                try:
                    ops.copy(src, out=view)
                finally:
                    if src is not value:
                        src.close()
            else:
                view.write(value)
        finally:
            view.close()

    # ------------------------------------------------------------------ copies
    def contiguous(self):
        """Row-major copy (or a new handle to this tensor when already contiguous)."""
        out = _c_int64()
        check(lib.ndrt_tensor_contiguous(self._h, _byref(out)))
        return _from_handle(out.value)

    def clone(self):
        """A new contiguous tensor with a copy of the values."""
        from . import ops
        return ops.copy(self)

    def cast(self, dtype):
        """New contiguous tensor of another dtype (f16/bf16 round to nearest even)."""
        out = _c_int64()
        check(lib.ndrt_tensor_cast(self._h, dtype_code(dtype), _byref(out)))
        return _from_handle(out.value)

    astype = cast

    def to(self, device):
        """Explicit move: a new contiguous tensor on `device`."""
        out = _c_int64()
        check(lib.ndrt_tensor_to_device(self._h, device_code(device), _byref(out)))
        return _from_handle(out.value)

    to_device = to

    # ------------------------------------------------------------------ operators (ndrt.ops)
    def _binary(self, name, other, reverse=False):
        from . import ops
        fn = getattr(ops, name)
        o = other if isinstance(other, Tensor) else _scalar_like(other, self)
        try:
            return fn(o, self) if reverse else fn(self, o)
        finally:
            if o is not other:
                o.close()

    def __add__(self, o):
        return self._binary("add", o)

    def __radd__(self, o):
        return self._binary("add", o, True)

    def __sub__(self, o):
        return self._binary("sub", o)

    def __rsub__(self, o):
        return self._binary("sub", o, True)

    def __mul__(self, o):
        return self._binary("mul", o)

    def __rmul__(self, o):
        return self._binary("mul", o, True)

    def __truediv__(self, o):
        return self._binary("div", o)

    def __rtruediv__(self, o):
        return self._binary("div", o, True)

    def __matmul__(self, o):
        return self._binary("matmul", o)

    def __rmatmul__(self, o):
        return self._binary("matmul", o, True)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    # Comparisons give bool tensors (numpy semantics); the hash stays the object's identity.
    def __eq__(self, o):
        return self._binary("eq", o)

    def __ne__(self, o):
        return self._binary("ne", o)

    def __lt__(self, o):
        return self._binary("lt", o)

    def __le__(self, o):
        return self._binary("le", o)

    def __gt__(self, o):
        return self._binary("gt", o)

    def __ge__(self, o):
        return self._binary("ge", o)

    # In-place operators: one op with this tensor as its output (the result must keep its shape).
    def _inplace(self, name, other):
        from . import ops
        o = other if isinstance(other, Tensor) else _scalar_like(other, self)
        try:
            getattr(ops, name)(self, o, out=self)  # returns self
        finally:
            if o is not other:
                o.close()
        return self

    def __iadd__(self, o):
        return self._inplace("add", o)

    def __isub__(self, o):
        return self._inplace("sub", o)

    def __imul__(self, o):
        return self._inplace("mul", o)

    def __itruediv__(self, o):
        return self._inplace("div", o)

    __hash__ = object.__hash__

    # ------------------------------------------------------------------ reductions (numpy names)
    def _reduce(self, name, axis, keepdims):
        from . import ops
        axes = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
        if axis is not None and not axes:
            return ops.copy(self)  # numpy: an empty axis tuple reduces nothing
        return getattr(ops, name)(self, axes=axes, keepdims=keepdims)

    def sum(self, axis=None, keepdims=False):
        """Sum over `axis` (an int, a tuple, or None for all), as numpy.sum."""
        return self._reduce("sum", axis, keepdims)

    def mean(self, axis=None, keepdims=False):
        return self._reduce("mean", axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return self._reduce("max", axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return self._reduce("min", axis, keepdims)

    def _arg(self, name, axis, keepdims):
        from . import ops
        if axis is not None:
            return getattr(ops, name)(self, axis=axis, keepdims=keepdims)
        # numpy: the index into the flattened tensor (a view when the strides allow, else a copy).
        if self.is_contiguous():
            flat = self.reshape(-1)
        else:
            with self.contiguous() as dense:
                flat = dense.reshape(-1)
        with flat:
            out = getattr(ops, name)(flat, axis=0)
        if keepdims:
            with out:
                return out.reshape(*([1] * self.ndim))
        return out

    def argmax(self, axis=None, keepdims=False):
        """Index of the largest element along `axis` (i64), or into the flattened tensor (None)."""
        return self._arg("argmax", axis, keepdims)

    def argmin(self, axis=None, keepdims=False):
        return self._arg("argmin", axis, keepdims)


def _scalar_like(v, like):
    if isinstance(v, np.ndarray):
        return from_numpy(v)
    dt = like.dtype
    if dt == "bf16":
        return tensor(np.asarray(v, np.float32), dtype="bf16")
    return tensor(np.asarray(v, TO_NUMPY[dt]))


# ----------------------------------------------------------------------------------------------
# Constructors
# ----------------------------------------------------------------------------------------------
def from_numpy(a, dtype=None):
    """Wraps a numpy array zero-copy as a cpu:0 tensor (writes go both ways). The array stays
    alive until the last view of the tensor dies. Any strides work (negative and zero too) as long
    as they are multiples of the itemsize. dtype='bf16' reinterprets a uint16 array as bf16 bits.
    Read-only arrays give read-only tensors (refused as op outputs)."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if dtype is not None and dtype_name(dtype) == "bf16":
        if a.dtype != np.uint16:
            raise TypeError("ndrt: from_numpy(..., dtype='bf16') takes the bf16 bits as a uint16 array, "
                            "got %s (use ndrt.tensor(a, dtype='bf16') to convert values)" % a.dtype)
        name = "bf16"
    else:
        name = FROM_NUMPY.get(a.dtype)
        if name is None:
            if a.dtype.byteorder not in "=|" and a.dtype.newbyteorder("=") in FROM_NUMPY:
                raise TypeError("ndrt: array has non-native byte order (%s); use a.astype(a.dtype.newbyteorder('='))"
                                % a.dtype)
            raise TypeError("ndrt: numpy dtype %s has no ndrt equivalent (ndrt has f32, f64, f16, bf16, "
                            "i8, u8, i32, i64, bool)" % a.dtype)
        if dtype is not None and dtype_name(dtype) != name:
            raise TypeError("ndrt: from_numpy does not convert (array is %s, dtype=%s asked); "
                            "use ndrt.tensor(a, dtype=...) to copy with conversion" % (a.dtype, dtype))
    if a.ndim > 8:
        raise ValueError("ndrt: arrays of rank %d are not supported (at most 8)" % a.ndim)
    item = a.itemsize
    strides = []
    for s in a.strides:
        if s % item:
            raise ValueError("ndrt: array byte strides %s are not multiples of the itemsize %d, so ndrt "
                             "(whose strides count elements) cannot view it; np.ascontiguousarray(a) "
                             "copies it" % (a.strides, item))
        strides.append(s // item)
    if not a.flags.aligned:
        raise ValueError("ndrt: array data is not aligned to its itemsize; np.require(a, requirements='A') "
                         "copies it")
    return wrap_memory(name, a.shape, strides, a.__array_interface__["data"][0], a,
                       readonly=not a.flags.writeable)


def tensor(data, dtype=None, device=None):
    """A new tensor holding a copy of array-like data (numpy semantics for the inferred dtype;
    dtype='bf16' converts from float32). device=None: the thread's current device."""
    if isinstance(data, Tensor):
        src = data.cast(dtype) if dtype is not None and dtype_name(dtype) != data.dtype else data.contiguous()
        if device is None or src.device == device:
            return src if src is not data else data.clone()
        try:
            return src.to(device)
        finally:
            src.close()
    if dtype is not None and dtype_name(dtype) == "bf16":
        f = tensor(data, dtype="f32", device=device)
        try:
            return f.cast("bf16")
        finally:
            f.close()
    npdt = None if dtype is None else TO_NUMPY[dtype_name(dtype)]
    a = np.asarray(data, dtype=npdt, order="C")
    name = FROM_NUMPY.get(a.dtype)
    if name is None:
        raise TypeError("ndrt: numpy dtype %s has no ndrt equivalent; pass dtype=" % a.dtype)
    n = a.ndim
    out = _c_int64()
    check(lib.ndrt_tensor_from_host(DTYPE_CODES[name], n, (_c_int64 * n)(*a.shape) if n else None,
                                    a.__array_interface__["data"][0] or None, a.nbytes,
                                    device_code(device), _byref(out)), "tensor")
    return _from_handle(out.value)


asarray = tensor


def empty(shape, dtype="f32", device=None):
    """Uninitialised tensor (contents unspecified)."""
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    n = len(shape)
    out = _c_int64()
    check(lib.ndrt_tensor_create(dtype_code(dtype), n, (_c_int64 * n)(*shape) if n else None,
                                 device_code(device), _byref(out)), "empty")
    return _from_handle(out.value)


def full(shape, value, dtype="f32", device=None):
    from . import ops
    t = empty(shape, dtype, device)
    ops.fill(value=float(value), out=t)
    return t


def zeros(shape, dtype="f32", device=None):
    return full(shape, 0.0, dtype, device)


def ones(shape, dtype="f32", device=None):
    return full(shape, 1.0, dtype, device)


def is_finalizing():
    return sys.is_finalizing()
