"""DLPack exchange (Tensor.__dlpack__, Tensor.__dlpack_device__, ndrt.from_dlpack) in pure ctypes.

Export: the capsule ("dltensor") holds a DLManagedTensor whose strides/shape arrays live in
ctypes objects kept in `_exports`, plus a retained ndrt handle (so the producer Tensor may be
closed at once). The consumer calls our deleter when done; the deleter releases that handle.

Capsules nobody consumed: a capsule destructor written in Python cannot run safely when a
consumer drops the capsule while an exception is set (numpy does exactly that when it rejects a
dtype: a ctypes callback then turns the consumer's error into a SystemError and leaks). So the
capsule carries no destructor; `_unconsumed` keeps a reference to each exported capsule and
`collect()` (run on every export, after every gc run and at exit) frees the ones that were dropped
unconsumed (only our reference left, name still "dltensor") and forgets the consumed ones
(renamed "used_dltensor": their consumer owns them and will call the deleter).

Import: the capsule's pointer is wrapped zero-copy with ndrt_tensor_wrap; the runtime's release
hook calls the producer's deleter when the last view dies; the capsule is renamed
"used_dltensor" as the protocol asks.

dtypes: f32/f64/f16 <-> kDLFloat, bf16 <-> kDLBfloat, i8/i32/i64 <-> kDLInt, u8 <-> kDLUInt,
bool -> kDLBool (code 6, 8 bits) by default; set `BOOL_AS_UINT8 = True` to export bool as kDLUInt 8
for consumers that predate kDLBool (numpy < 1.25 and PyTorch 1.13 reject code 6). Import accepts
kDLBool 8 as bool (and kDLUInt 8 as u8).
"""
import atexit
import ctypes
import gc
import itertools
import sys

from ._lib import lib
from .errors import NotSupportedError, DtypeError, InvalidArgumentError
from ._tensor import Tensor, wrap_memory, _Finalizer

# DLDeviceType
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLCUDAManaged = 1, 2, 3, 10, 13
# DLDataTypeCode
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 3, 4, 5, 6

BOOL_AS_UINT8 = False

_TO_DL = {"f32": (kDLFloat, 32), "f64": (kDLFloat, 64), "f16": (kDLFloat, 16), "bf16": (kDLBfloat, 16),
          "i8": (kDLInt, 8), "u8": (kDLUInt, 8), "i32": (kDLInt, 32), "i64": (kDLInt, 64),
          "bool": (kDLBool, 8)}
_FROM_DL = {v: k for k, v in _TO_DL.items()}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


# void (*deleter)(struct DLManagedTensor*): declared with void* (same ABI).
DLPACK_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DLPACK_DELETER)]


# ------------------------------------------------------------------------------------------------
# CPython capsule API through ctypes.pythonapi (PyDLL: the GIL stays held, errors are raised).
# Capsule names must outlive every capsule: they are copied to C memory that is never freed.
# ------------------------------------------------------------------------------------------------
_api = ctypes.pythonapi
_PyCapsule_New = _api.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_PyCapsule_GetPointer = _api.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_void_p]
_PyCapsule_IsValid = _api.PyCapsule_IsValid
_PyCapsule_IsValid.restype = ctypes.c_int
_PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_void_p]
_PyCapsule_SetName = _api.PyCapsule_SetName
_PyCapsule_SetName.restype = ctypes.c_int
_PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
_PyCapsule_GetName = _api.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]


_libc = ctypes.CDLL(None)
_libc.strdup.restype = ctypes.c_void_p
_libc.strdup.argtypes = [ctypes.c_char_p]


def _c_string(s):
    """A NUL-terminated copy of `s` in C memory that is never freed."""
    p = _libc.strdup(s)
    if not p:
        raise MemoryError("ndrt: strdup failed")
    return p


_NAME = _c_string(b"dltensor")
_USED_NAME = _c_string(b"used_dltensor")


def _is_capsule(x):
    return type(x).__name__ == "PyCapsule"


# ------------------------------------------------------------------------------------------------
# Export
# ------------------------------------------------------------------------------------------------
_exports = {}  # key -> (DLManagedTensor, shape array, strides array, retained handle)
_unconsumed = {}  # key -> capsule not seen consumed yet
_ids = itertools.count(1)
_export_stats = {"deleted": 0, "collected": 0}


def _delete_export(key):
    entry = _exports.pop(key, None)
    if entry is not None:
        _export_stats["deleted"] += 1
        lib.ndrt_tensor_release(entry[3])


def _on_delete(ptr):
    # Called by the consumer (any thread) with our DLManagedTensor*.
    try:
        key = DLManagedTensor.from_address(ptr).manager_ctx
        _unconsumed.pop(key, None)
        _delete_export(key)
    except BaseException:
        pass


_DELETER = DLPACK_DELETER(_on_delete)
_DELETER_ADDR = ctypes.cast(_DELETER, ctypes.c_void_p).value


def collect():
    """Frees exported capsules that were dropped without being consumed and forgets consumed ones.
    Runs by itself on each export, after each garbage collection and at exit. Returns how many
    unconsumed capsules it freed."""
    freed = 0
    for key in list(_unconsumed):
        cap = _unconsumed.get(key)
        if cap is None:
            continue
        if not _PyCapsule_IsValid(cap, _NAME):
            _unconsumed.pop(key, None)  # consumed: the consumer calls the deleter
            continue
        # references: _unconsumed, `cap`, getrefcount's argument
        if sys.getrefcount(cap) <= 3:
            _unconsumed.pop(key, None)
            del cap
            _delete_export(key)
            freed += 1
    _export_stats["collected"] += freed
    return freed


def _gc_callback(phase, info):
    if phase == "stop" and _unconsumed:
        try:
            collect()
        except BaseException:
            pass


gc.callbacks.append(_gc_callback)
atexit.register(collect)


def to_dlpack(t, stream=None, max_version=None, dl_device=None, copy=None):
    """A "dltensor" PyCapsule viewing `t` (zero-copy unless copy=True). cpu tensors only."""
    if _unconsumed:
        collect()
    dev = t.device
    if dl_device is not None and tuple(dl_device) != t.__dlpack_device__():
        raise BufferError("ndrt: __dlpack__ to another device (%s) needs an explicit .to(); the tensor is on %s"
                          % (tuple(dl_device), dev))
    if dev.type != "cpu":
        raise NotSupportedError("ndrt: DLPack export of %s tensors is not available: the C ABI gives no device "
                                "pointer for them yet (ndrt_tensor_data_ptr is cpu-only)" % dev)
    if stream not in (None, -1):
        raise BufferError("ndrt: stream=%r given for a cpu tensor (only None is valid)" % (stream,))
    src = t.clone() if copy else t
    try:
        shape, strides, dt, _ = src._describe()
        code, bits = _TO_DL[dt]
        if dt == "bool" and BOOL_AS_UINT8:
            code = kDLUInt
        n = len(shape)
        ptr = src.data_ptr()
        held = src.retain().detach_handle()
    finally:
        if src is not t:
            src.close()
    key = next(_ids)
    mt = DLManagedTensor()
    shape_arr = (ctypes.c_int64 * max(n, 1))(*shape)
    strides_arr = (ctypes.c_int64 * max(n, 1))(*strides)
    mt.dl_tensor.data = ptr or None
    mt.dl_tensor.device = DLDevice(kDLCPU, 0)
    mt.dl_tensor.ndim = n
    mt.dl_tensor.dtype = DLDataType(code, bits, 1)
    mt.dl_tensor.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    mt.dl_tensor.strides = ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64))
    mt.dl_tensor.byte_offset = 0
    mt.manager_ctx = key
    mt.deleter = _DELETER
    _exports[key] = (mt, shape_arr, strides_arr, held)
    try:
        cap = _PyCapsule_New(ctypes.addressof(mt), _NAME, None)
    except BaseException:
        _delete_export(key)
        raise
    _unconsumed[key] = cap
    return cap


def _dlpack_device(t):
    d = t.device
    if d.type == "cpu":
        return (kDLCPU, 0)
    return (kDLCUDA, d.index)


def _call_foreign_deleter(addr):
    mt = DLManagedTensor.from_address(addr)
    fn = ctypes.cast(mt.deleter, ctypes.c_void_p).value
    if fn:
        if fn == _DELETER_ADDR:
            _on_delete(addr)  # our own export: no need to go through C
        else:
            DLPACK_DELETER(fn)(addr)


def from_dlpack(x):
    """A Tensor sharing memory with a DLPack producer: an object with __dlpack__ (numpy arrays,
    torch tensors, ndrt Tensors) or a legacy "dltensor" capsule. cpu memory only."""
    if isinstance(x, Tensor):
        return x.retain()
    if _is_capsule(x):
        cap = x
    elif hasattr(x, "__dlpack__"):
        if hasattr(x, "__dlpack_device__"):
            dev = tuple(x.__dlpack_device__())
            if int(dev[0]) not in (kDLCPU, kDLCUDAHost):
                raise NotSupportedError("ndrt: from_dlpack of a tensor on DLPack device %s: only cpu memory "
                                        "can be wrapped (move it to the cpu first)" % (dev,))
        cap = x.__dlpack__()
    else:
        raise TypeError("ndrt: from_dlpack needs an object with __dlpack__ or a DLPack capsule, got %s"
                        % type(x).__name__)
    if not _PyCapsule_IsValid(cap, _NAME):
        raise InvalidArgumentError("ndrt: the capsule is not an unconsumed 'dltensor' (name %r): a DLPack "
                                   "capsule can be consumed once" % (_PyCapsule_GetName(cap),))
    addr = _PyCapsule_GetPointer(cap, _NAME)
    mt = DLManagedTensor.from_address(addr)
    dl = mt.dl_tensor
    dev = (dl.device.device_type, dl.device.device_id)
    if dev[0] not in (kDLCPU, kDLCUDAHost):
        raise NotSupportedError("ndrt: from_dlpack: memory on DLPack device %s cannot be wrapped (cpu only)" % (dev,))
    if dl.dtype.lanes != 1:
        raise DtypeError("ndrt: from_dlpack: vector dtypes (lanes=%d) are not supported" % dl.dtype.lanes)
    name = _FROM_DL.get((dl.dtype.code, dl.dtype.bits))
    if name is None:
        raise DtypeError("ndrt: from_dlpack: DLPack dtype code %d with %d bits has no ndrt equivalent"
                         % (dl.dtype.code, dl.dtype.bits))
    n = dl.ndim
    if n > 8:
        raise InvalidArgumentError("ndrt: from_dlpack: rank %d is more than ndrt's 8" % n)
    shape = [dl.shape[i] for i in range(n)]
    strides = [dl.strides[i] for i in range(n)] if n and dl.strides else None
    data = (dl.data or 0) + int(dl.byte_offset)
    # From here on the DLManagedTensor is ours: the release hook calls its deleter.
    if _PyCapsule_SetName(cap, _USED_NAME):
        raise InvalidArgumentError("ndrt: from_dlpack: could not mark the capsule consumed")
    fin = _Finalizer(_call_foreign_deleter, addr)  # runs once, whoever runs it first
    try:
        return wrap_memory(name, shape, strides, data, fin)
    except BaseException:
        fin.run()
        raise


def _tensor_dlpack(self, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export (a "dltensor" capsule, zero-copy). cpu tensors only."""
    return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def _tensor_dlpack_device(self):
    """(device type, device id) in DLPack's terms: (1, 0) for cpu, (2, N) for cuda:N."""
    return _dlpack_device(self)


Tensor.__dlpack__ = _tensor_dlpack
Tensor.__dlpack_device__ = _tensor_dlpack_device
Tensor.to_dlpack = to_dlpack


def live_exports():
    """Exported DLManagedTensors whose deleter has not run yet (for leak checks)."""
    return len(_exports)
