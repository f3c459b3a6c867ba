"""Devices and thread affinity, memory statistics, configuration, profiler, logging."""
import contextlib
import ctypes

from ._lib import lib, MemoryStats, PRESSURE_FN, LOG_FN
from ._types import Device, DEVICE_TYPES, DEVICE_TYPE_NAMES, device_code, parse_device
from .errors import check

_byref = ctypes.byref


def abi_version():
    return int(lib.ndrt_abi_version())


def version():
    """The runtime's version string, e.g. '0.1.0'."""
    return lib.ndrt_version_string().decode()


def live_handles():
    """Live tensor handles in the process (leak checks)."""
    out = ctypes.c_int64()
    check(lib.ndrt_live_handles(_byref(out)))
    return out.value


# ---------------------------------------------------------------------------------------- devices
def device_count(device_type="cpu"):
    """Devices of a type: cpu is 1 (or cpu.virtual_devices); cuda is 0 without driver or GPU."""
    t = DEVICE_TYPES[device_type] if isinstance(device_type, str) else int(device_type)
    out = ctypes.c_int32()
    check(lib.ndrt_device_count(t, _byref(out)))
    return out.value


def devices():
    """Every device present: [Device('cpu:0'), ..., Device('cuda:0'), ...]."""
    return [Device(t, i) for t in ("cpu", "cuda") for i in range(device_count(t))]


def device_name(device):
    buf = ctypes.create_string_buffer(64)
    check(lib.ndrt_device_name(device_code(device), buf, len(buf)))
    return buf.value.decode()


def default_device_type():
    """'cpu' or 'cuda': the type new threads are assigned to (BACKEND_PRIORITY_CPU/_GPU)."""
    out = ctypes.c_int32()
    check(lib.ndrt_default_device_type(_byref(out)))
    return DEVICE_TYPE_NAMES.get(out.value, str(out.value))


def thread_device():
    """The calling thread's current device (assigned round-robin on first use)."""
    out = ctypes.c_int32()
    check(lib.ndrt_thread_device(_byref(out)))
    return Device.from_code(out.value)


def attach(device):
    """Makes `device` ('cpu:0', 'cuda:1', a Device) the calling thread's current device."""
    check(lib.ndrt_thread_attach(parse_device(device).code))


thread_attach = attach


@contextlib.contextmanager
def device(dev):
    """with ndrt.device('cpu:1'): ... runs the block attached to dev, then restores."""
    prev = thread_device()
    attach(dev)
    try:
        yield parse_device(dev)
    finally:
        attach(prev)


def synchronize(device=None):
    """Waits for the work this thread issued on `device` (None: the current one)."""
    check(lib.ndrt_synchronize(device_code(device)))


# ----------------------------------------------------------------------------------------- memory
def memory_stats(device=None):
    """Pool statistics of a device as a dict: in_use, cached, peak, hits, misses, oom_count,
    wrapped (bytes of caller memory wrapped zero-copy and still alive)."""
    s = MemoryStats()
    check(lib.ndrt_memory_stats_get(device_code(device), _byref(s)))
    return {name: int(getattr(s, name)) for name, _ in MemoryStats._fields_}


def memory_trim(device=None):
    """Returns cached (unused) memory of `device` to the system."""
    check(lib.ndrt_memory_trim(device_code(device)))


def memory_reset_peak(device=None):
    check(lib.ndrt_memory_reset_peak(device_code(device)))


_callbacks_kept = []  # every callback ever handed to the runtime stays alive (it may be mid-call)


def set_memory_pressure_callback(threshold_bytes, fn):
    """fn(in_use_bytes) runs (on the allocating thread) when host memory in use reaches the
    threshold (while in use stays over it, again after every eighth of the threshold of growth since
    the previous call returned). None removes it. Exceptions in fn are printed."""
    if fn is None:
        check(lib.ndrt_memory_set_pressure_callback(0, PRESSURE_FN(), None))
        return

    def trampoline(in_use, user):
        try:
            fn(int(in_use))
        except BaseException:
            import traceback
            traceback.print_exc()
    cb = PRESSURE_FN(trampoline)
    _callbacks_kept.append(cb)
    check(lib.ndrt_memory_set_pressure_callback(int(threshold_bytes), cb, None))


# ------------------------------------------------------------------------------------------ config
def _get_text(fn, *args):
    need = ctypes.c_size_t()
    check(fn(*args, None, 0, _byref(need)))
    while True:
        buf = ctypes.create_string_buffer(need.value)
        check(fn(*args, buf, need.value, _byref(need)))
        if need.value <= len(buf):
            return buf.value.decode("utf-8", "replace")


def config_get(key):
    """Current value of a configuration key as text (see the README's table)."""
    return _get_text(lib.ndrt_config_get, key.encode())


def config_set(key, value):
    """Sets a configuration key; bools become '1'/'0', numbers their decimal text."""
    if isinstance(value, bool):
        value = "1" if value else "0"
    check(lib.ndrt_config_set(key.encode(), str(value).encode()))


class _Config:
    """ndrt.config['cpu.threads'] reads, ndrt.config['cpu.threads'] = 2 writes."""

    def __getitem__(self, key):
        return config_get(key)

    def __setitem__(self, key, value):
        config_set(key, value)

    def get(self, key, default=None):
        try:
            return config_get(key)
        except Exception:
            return default

    def __repr__(self):
        return "<ndrt config>"


config = _Config()


# ---------------------------------------------------------------------------------------- profiler
def profiler_enable(on=True):
    check(lib.ndrt_profiler_enable(1 if on else 0))


def profiler_clear():
    check(lib.ndrt_profiler_clear())


def profiler_count():
    out = ctypes.c_int64()
    check(lib.ndrt_profiler_count(_byref(out)))
    return out.value


def profiler_summary():
    """Per-op table (op, backend, implementation, dtype, calls, total/mean/min/max us) as text."""
    return _get_text(lib.ndrt_profiler_summary)


def profiler_write_trace(path):
    """Chrome trace-event JSON (opens in Perfetto or chrome://tracing)."""
    check(lib.ndrt_profiler_write_trace(str(path).encode()))


@contextlib.contextmanager
def profile(clear=True):
    """with ndrt.profile(): ... records every op of the block; read profiler_summary() after."""
    if clear:
        profiler_clear()
    profiler_enable(True)
    try:
        yield
    finally:
        profiler_enable(False)


# ----------------------------------------------------------------------------------------- logging
LOG_LEVELS = {0: "error", 1: "warn", 2: "info", 3: "debug"}


def set_log_callback(fn):
    """fn(level_name, message) receives log lines at or above log.level (any thread) instead of
    stderr; None restores stderr."""
    if fn is None:
        check(lib.ndrt_set_log_callback(LOG_FN(), None))
        return

    def trampoline(level, msg, user):
        try:
            fn(LOG_LEVELS.get(level, str(level)), msg.decode("utf-8", "replace"))
        except BaseException:
            pass
    cb = LOG_FN(trampoline)
    _callbacks_kept.append(cb)
    check(lib.ndrt_set_log_callback(cb, None))
