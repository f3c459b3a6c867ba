"""Finds and loads libndrt with ctypes, checks its ABI version and declares every C function used.

Search order (the first that exists wins; an explicit setting never falls back silently):
  1. the environment variable NDRT_LIBRARY: a path to the library file or to a folder holding it;
     if it is set and cannot be loaded, import fails (naming the path) instead of trying elsewhere;
  2. libndrt.so (or libndrt.so.0) next to this package (a wheel or a copied build);
  3. the system: ctypes.util.find_library("ndrt"), then the loader's own search for libndrt.so.0.
"""
import ctypes
import ctypes.util
import os

# The ABI this package was written for (NDRT_ABI_VERSION of include/ndrt/ndrt.h).
EXPECTED_ABI = 1

_LIB_NAMES = ("libndrt.so", "libndrt.so.0")


class AbiMismatchError(ImportError):
    """The loaded libndrt speaks another ABI version than this package was written for."""

    def __init__(self, message, library_abi, expected_abi, path):
        super().__init__(message)
        self.library_abi = library_abi
        self.expected_abi = expected_abi
        self.path = path


def _candidates():
    env = os.environ.get("NDRT_LIBRARY")
    if env:
        if os.path.isdir(env):
            for n in _LIB_NAMES:
                p = os.path.join(env, n)
                if os.path.exists(p):
                    return [("NDRT_LIBRARY", p)], True
            return [("NDRT_LIBRARY", os.path.join(env, _LIB_NAMES[0]))], True
        return [("NDRT_LIBRARY", env)], True
    here = os.path.dirname(os.path.abspath(__file__))
    out = [("next to the package", os.path.join(here, n)) for n in _LIB_NAMES]
    out = [c for c in out if os.path.exists(c[1])]
    found = ctypes.util.find_library("ndrt")
    if found:
        out.append(("system (find_library)", found))
    out.append(("system loader", "libndrt.so.0"))
    out.append(("system loader", "libndrt.so"))
    return out, False


def load(expected_abi=None):
    """Loads libndrt and returns (CDLL, path). Raises ImportError (AbiMismatchError for a version
    mismatch) with what was tried. Re-runnable: tests call it with a patched EXPECTED_ABI."""
    expected = EXPECTED_ABI if expected_abi is None else expected_abi
    candidates, explicit = _candidates()
    tried = []
    for where, path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s: %s (%s)" % (where, path, e))
            if explicit:
                raise ImportError("ndrt: NDRT_LIBRARY=%s could not be loaded: %s" % (os.environ.get("NDRT_LIBRARY"), e))
            continue
        try:
            fn = lib.ndrt_abi_version
        except AttributeError:
            tried.append("%s: %s is not libndrt (no ndrt_abi_version)" % (where, path))
            if explicit:
                raise ImportError("ndrt: %s (from NDRT_LIBRARY) is not libndrt: it has no ndrt_abi_version" % path)
            continue
        fn.argtypes = []
        fn.restype = ctypes.c_uint32
        got = int(fn())
        if got != expected:
            raise AbiMismatchError(
                "ndrt: %s has ABI version %d but this Python package was written for ABI version %d; "
                "use the ndrt Python package that matches the library, or point NDRT_LIBRARY at a "
                "libndrt of ABI version %d" % (path, got, expected, expected), got, expected, path)
        _declare(lib)
        return lib, _real_path(lib, path)
    raise ImportError("ndrt: libndrt not found. Set NDRT_LIBRARY to the library path. Tried:\n  " + "\n  ".join(tried))


def _real_path(lib, fallback):
    """The file the dynamic loader actually opened (dladdr on a symbol), else what we asked for."""
    try:
        class DlInfo(ctypes.Structure):
            _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                        ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
        dladdr.restype = ctypes.c_int
        info = DlInfo()
        addr = ctypes.cast(lib.ndrt_abi_version, ctypes.c_void_p).value
        if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
            return os.path.realpath(info.dli_fname.decode())
    except Exception:  # pragma: no cover - best effort only
        pass
    return fallback


# ----------------------------------------------------------------------------------------------
# C types of the header
# ----------------------------------------------------------------------------------------------
c_status = ctypes.c_int32
c_dtype = ctypes.c_int32
c_device = ctypes.c_int32
c_handle = ctypes.c_int64
P_i64 = ctypes.POINTER(ctypes.c_int64)
P_i32 = ctypes.POINTER(ctypes.c_int32)
P_handle = ctypes.POINTER(c_handle)
P_double = ctypes.POINTER(ctypes.c_double)
P_size = ctypes.POINTER(ctypes.c_size_t)

# typedef void (*ndrt_release_fn)(void* data, void* user);
RELEASE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
# typedef void (*ndrt_pressure_fn)(int64_t in_use_bytes, void* user);
PRESSURE_FN = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_void_p)
# typedef void (*ndrt_log_fn)(int32_t level, const char* message, void* user);
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int32, ctypes.c_char_p, ctypes.c_void_p)


class MemoryStats(ctypes.Structure):
    _fields_ = [("in_use", ctypes.c_int64), ("cached", ctypes.c_int64), ("peak", ctypes.c_int64),
                ("hits", ctypes.c_int64), ("misses", ctypes.c_int64), ("oom_count", ctypes.c_int64),
                ("wrapped", ctypes.c_int64)]


_c = ctypes
# name: (restype, argtypes) — every function of the header this package calls.
SIGNATURES = {
    "ndrt_abi_version": (_c.c_uint32, []),
    "ndrt_version_string": (_c.c_char_p, []),
    "ndrt_last_error": (_c.c_char_p, []),
    "ndrt_status_name": (_c.c_char_p, [c_status]),
    "ndrt_tensor_create": (c_status, [c_dtype, _c.c_int32, P_i64, c_device, P_handle]),
    "ndrt_tensor_from_host": (c_status, [c_dtype, _c.c_int32, P_i64, _c.c_void_p, _c.c_size_t, c_device, P_handle]),
    "ndrt_tensor_wrap": (c_status, [c_dtype, _c.c_int32, P_i64, P_i64, _c.c_void_p, _c.c_size_t, RELEASE_FN,
                                    _c.c_void_p, P_handle]),
    "ndrt_tensor_read": (c_status, [c_handle, _c.c_void_p, _c.c_size_t]),
    "ndrt_tensor_write": (c_status, [c_handle, _c.c_void_p, _c.c_size_t]),
    "ndrt_tensor_retain": (c_status, [c_handle, P_handle]),
    "ndrt_tensor_release": (c_status, [c_handle]),
    "ndrt_tensor_dtype": (c_status, [c_handle, P_i32]),
    "ndrt_tensor_rank": (c_status, [c_handle, P_i32]),
    "ndrt_tensor_shape": (c_status, [c_handle, P_i64, _c.c_int32]),
    "ndrt_tensor_strides": (c_status, [c_handle, P_i64, _c.c_int32]),
    "ndrt_tensor_offset": (c_status, [c_handle, P_i64]),
    "ndrt_tensor_numel": (c_status, [c_handle, P_i64]),
    "ndrt_tensor_device": (c_status, [c_handle, P_i32]),
    "ndrt_tensor_is_contiguous": (c_status, [c_handle, P_i32]),
    "ndrt_tensor_data_ptr": (c_status, [c_handle, _c.POINTER(_c.c_void_p)]),
    "ndrt_tensor_reshape": (c_status, [c_handle, _c.c_int32, P_i64, P_handle]),
    "ndrt_tensor_permute": (c_status, [c_handle, _c.c_int32, P_i32, P_handle]),
    "ndrt_tensor_transpose": (c_status, [c_handle, _c.c_int32, _c.c_int32, P_handle]),
    "ndrt_tensor_slice": (c_status, [c_handle, _c.c_int32, _c.c_int64, _c.c_int64, _c.c_int64, P_handle]),
    "ndrt_tensor_expand": (c_status, [c_handle, _c.c_int32, P_i64, P_handle]),
    "ndrt_tensor_contiguous": (c_status, [c_handle, P_handle]),
    "ndrt_tensor_cast": (c_status, [c_handle, c_dtype, P_handle]),
    "ndrt_tensor_to_device": (c_status, [c_handle, c_device, P_handle]),
    "ndrt_live_handles": (c_status, [P_i64]),
    "ndrt_memory_stats_get": (c_status, [c_device, _c.POINTER(MemoryStats)]),
    "ndrt_memory_trim": (c_status, [c_device]),
    "ndrt_memory_reset_peak": (c_status, [c_device]),
    "ndrt_memory_set_pressure_callback": (c_status, [_c.c_int64, PRESSURE_FN, _c.c_void_p]),
    "ndrt_device_count": (c_status, [_c.c_int32, P_i32]),
    "ndrt_device_name": (c_status, [c_device, _c.c_char_p, _c.c_size_t]),
    "ndrt_default_device_type": (c_status, [P_i32]),
    "ndrt_thread_device": (c_status, [P_i32]),
    "ndrt_thread_attach": (c_status, [c_device]),
    "ndrt_synchronize": (c_status, [c_device]),
    "ndrt_event_record": (c_status, [c_device, P_i64]),
    "ndrt_event_wait": (c_status, [_c.c_int64, c_device]),
    "ndrt_event_synchronize": (c_status, [_c.c_int64]),
    "ndrt_event_query": (c_status, [_c.c_int64, P_i32]),
    "ndrt_event_release": (c_status, [_c.c_int64]),
    "ndrt_op_count": (c_status, [P_i32]),
    "ndrt_op_find": (c_status, [_c.c_char_p, P_i32]),
    "ndrt_op_describe": (c_status, [_c.c_int32, _c.c_char_p, _c.c_size_t, P_size]),
    "ndrt_exec": (c_status, [_c.c_int32, P_handle, _c.c_int32, P_handle, _c.c_int32, P_i64, _c.c_int32,
                             P_double, _c.c_int32]),
    "ndrt_config_set": (c_status, [_c.c_char_p, _c.c_char_p]),
    "ndrt_config_get": (c_status, [_c.c_char_p, _c.c_char_p, _c.c_size_t, P_size]),
    "ndrt_set_log_callback": (c_status, [LOG_FN, _c.c_void_p]),
    "ndrt_profiler_enable": (c_status, [_c.c_int32]),
    "ndrt_profiler_clear": (c_status, []),
    "ndrt_profiler_count": (c_status, [P_i64]),
    "ndrt_profiler_write_trace": (c_status, [_c.c_char_p]),
    "ndrt_profiler_summary": (c_status, [_c.c_char_p, _c.c_size_t, P_size]),
    "ndrt_get_api": (c_status, [_c.c_uint32, _c.POINTER(_c.c_void_p)]),
}

# Functions added after ABI 1 was first published (the api table's "since 0.3" entries): declared
# when the library has them; a library without them still imports, and the module that needs them
# (ndrt.distributed) raises NotConfiguredError when used.
c_comm = ctypes.c_int64
OPTIONAL_SIGNATURES = {
    "ndrt_comm_world": (c_status, [P_handle]),
    "ndrt_comm_rank": (c_status, [c_comm, P_i32]),
    "ndrt_comm_size": (c_status, [c_comm, P_i32]),
    "ndrt_comm_local_rank": (c_status, [c_comm, P_i32]),
    "ndrt_comm_split": (c_status, [c_comm, _c.c_int32, _c.c_int32, P_handle]),
    "ndrt_comm_release": (c_status, [c_comm]),
    "ndrt_allreduce": (c_status, [c_comm, c_handle, _c.c_int32]),
    "ndrt_broadcast": (c_status, [c_comm, c_handle, _c.c_int32]),
    "ndrt_allgather": (c_status, [c_comm, c_handle, c_handle]),
    "ndrt_reduce_scatter": (c_status, [c_comm, c_handle, c_handle, _c.c_int32]),
    "ndrt_barrier": (c_status, [c_comm]),
    "ndrt_allreduce_async": (c_status, [c_comm, P_handle, _c.c_int32, _c.c_int32, P_i64]),
}
missing_optional = set()


def _declare(lib):
    missing = []
    for name, (res, args) in SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = res
        fn.argtypes = args
    if missing:
        raise ImportError("ndrt: the loaded libndrt lacks %s (a library older than its ABI version says?)"
                          % ", ".join(missing))
    missing_optional.clear()
    for name, (res, args) in OPTIONAL_SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing_optional.add(name)
            continue
        fn.restype = res
        fn.argtypes = args


lib, library_path = load()
