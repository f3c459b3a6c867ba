"""ndrt: Python binding of the ndrt runtime (ctypes over the flat C ABI of libndrt).

    import numpy as np, ndrt
    a = ndrt.from_numpy(np.ones((2, 3), np.float32))   # zero-copy
    y = ndrt.ops.add(a, a)                              # ops generated from the registry
    y.numpy()                                           # copy out (numpy(copy=False): a view)

The library is found through NDRT_LIBRARY, then next to this package, then the system
(see ndrt._lib); its ABI version is checked at import.
"""
from ._lib import EXPECTED_ABI, AbiMismatchError, library_path
from .errors import (NdrtError, OutOfMemoryError, BackendError, LoadError, InvalidHandleError,
                     InvalidArgumentError, UnknownOpError, ShapeError, DtypeError, DeviceMismatchError,
                     NotSupportedError, NotConfiguredError, InternalError)
from ._types import Device, dtype_name, DTYPE_CODES
from ._tensor import Tensor, from_numpy, tensor, asarray, empty, zeros, ones, full, pending_releases
from .dlpack import from_dlpack, to_dlpack
from .runtime import (abi_version, version, live_handles, device_count, devices, device_name,
                      default_device_type, thread_device, attach, thread_attach, device, synchronize,
                      memory_stats, memory_trim, memory_reset_peak, set_memory_pressure_callback,
                      config_get, config_set, config, profiler_enable, profiler_clear, profiler_count,
                      profiler_summary, profiler_write_trace, profile, set_log_callback)
from . import ops
from . import distributed
from ._opgen import OpInfo

__version__ = version()

# dtype names, usable wherever a dtype is asked for
f32, f64, f16, bf16, i8, u8, i32, i64 = "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64"
bool_ = "bool"
DTYPES = tuple(DTYPE_CODES)


def op_names():
    """Registry names of every op, in id order."""
    return [info.name for info in ops._infos.values()]


def describe_op(name):
    """The registry's description of an op (OpInfo: .raw is the JSON as a dict)."""
    try:
        return ops._infos[name]
    except KeyError:
        raise UnknownOpError("ndrt: no op named %r (ops: %s)" % (name, ", ".join(op_names())),
                             205) from None


def op_id(name):
    """The runtime's id of an op (ndrt_op_find); UnknownOpError if there is none."""
    import ctypes
    from ._lib import lib
    from .errors import check
    out = ctypes.c_int32()
    check(lib.ndrt_op_find(name.encode(), ctypes.byref(out)))
    return out.value


def call_op(name, *inputs, out=None, **attrs):
    """Runs an op by registry name: attributes by their registry names, defaults for the rest."""
    from ._opgen import run
    info = describe_op(name)
    values = []
    for a in info.attrs:
        if a.name in attrs:
            values.append(attrs.pop(a.name))
        elif a.required:
            raise InvalidArgumentError("ndrt: %s: attribute '%s' is required" % (name, a.name), 201)
        else:
            values.append(a.default)
    if attrs:
        raise TypeError("ndrt: %s has no attribute(s) %s" % (name, ", ".join(attrs)))
    if info.variadic and len(inputs) == len(info.inputs) and isinstance(inputs[-1], (list, tuple)):
        inputs = tuple(inputs[:-1]) + tuple(inputs[-1])
    return run(info, inputs, out, values)


__all__ = [
    "EXPECTED_ABI", "AbiMismatchError", "library_path",
    "NdrtError", "OutOfMemoryError", "BackendError", "LoadError", "InvalidHandleError", "InvalidArgumentError",
    "UnknownOpError", "ShapeError", "DtypeError", "DeviceMismatchError", "NotSupportedError",
    "NotConfiguredError", "InternalError",
    "Device", "dtype_name", "DTYPES", "f32", "f64", "f16", "bf16", "i8", "u8", "i32", "i64", "bool_",
    "Tensor", "from_numpy", "tensor", "asarray", "empty", "zeros", "ones", "full", "pending_releases",
    "from_dlpack", "to_dlpack",
    "abi_version", "version", "live_handles", "device_count", "devices", "device_name", "default_device_type",
    "thread_device", "attach", "thread_attach", "device", "synchronize", "memory_stats", "memory_trim",
    "memory_reset_peak", "set_memory_pressure_callback", "config_get", "config_set", "config",
    "profiler_enable", "profiler_clear", "profiler_count", "profiler_summary", "profiler_write_trace", "profile",
    "set_log_callback", "ops", "distributed", "OpInfo", "op_names", "describe_op", "op_id", "call_op",
]
