"""Exceptions: one class per status group, each carrying the runtime's message and `.status`."""
from ._lib import lib

# Status codes of include/ndrt/ndrt.h (fixed values, never renumbered).
OK = 0
ERR_OUT_OF_MEMORY = 100
ERR_BACKEND = 101
ERR_INVALID_HANDLE = 200
ERR_INVALID_ARGUMENT = 201
ERR_SHAPE_MISMATCH = 202
ERR_DTYPE_MISMATCH = 203
ERR_DEVICE_MISMATCH = 204
ERR_UNKNOWN_OP = 205
ERR_NOT_SUPPORTED = 300
ERR_NOT_CONFIGURED = 301
ERR_LOAD = 400
ERR_INTERNAL = 500


class NdrtError(Exception):
    """Base of every error the runtime reports. `.status` is the ndrt_status code, `.status_name`
    its symbolic name, `str(e)` the runtime's message (ndrt_last_error)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = _status_name(status) if status is not None else None


class OutOfMemoryError(NdrtError, MemoryError):
    """NDRT_ERR_OUT_OF_MEMORY (100): an allocation failed after the cache was trimmed."""


class BackendError(NdrtError):
    """NDRT_ERR_BACKEND (101): a driver or vendor library failed."""


class LoadError(BackendError):
    """NDRT_ERR_LOAD (400): a backend library or file could not be loaded."""


class InvalidHandleError(NdrtError, ValueError):
    """NDRT_ERR_INVALID_HANDLE (200): zero, stale, released or invented handle (a closed Tensor)."""


class InvalidArgumentError(NdrtError, ValueError):
    """NDRT_ERR_INVALID_ARGUMENT (201): bad value, bad attribute, wrong arity; base of UnknownOpError."""


class UnknownOpError(InvalidArgumentError):
    """NDRT_ERR_UNKNOWN_OP (205): no op with that name or id."""


class ShapeError(NdrtError, ValueError):
    """NDRT_ERR_SHAPE_MISMATCH (202)."""


class DtypeError(NdrtError, TypeError):
    """NDRT_ERR_DTYPE_MISMATCH (203)."""


class DeviceMismatchError(NdrtError):
    """NDRT_ERR_DEVICE_MISMATCH (204): tensors not on the thread's current device."""


class NotSupportedError(NdrtError):
    """NDRT_ERR_NOT_SUPPORTED (300): no kernel for the op/backend/dtype; base of NotConfiguredError."""


class NotConfiguredError(NotSupportedError):
    """NDRT_ERR_NOT_CONFIGURED (301): a feature or version this build does not provide."""


class InternalError(NdrtError):
    """NDRT_ERR_INTERNAL (500): a bug in ndrt; please report it with the message."""


_BY_STATUS = {
    ERR_OUT_OF_MEMORY: OutOfMemoryError,
    ERR_BACKEND: BackendError,
    ERR_LOAD: LoadError,
    ERR_INVALID_HANDLE: InvalidHandleError,
    ERR_INVALID_ARGUMENT: InvalidArgumentError,
    ERR_UNKNOWN_OP: UnknownOpError,
    ERR_SHAPE_MISMATCH: ShapeError,
    ERR_DTYPE_MISMATCH: DtypeError,
    ERR_DEVICE_MISMATCH: DeviceMismatchError,
    ERR_NOT_SUPPORTED: NotSupportedError,
    ERR_NOT_CONFIGURED: NotConfiguredError,
    ERR_INTERNAL: InternalError,
}
# Unknown future codes fall to the class of their range (1xx resources, 2xx bad input, ...).
_BY_RANGE = {1: BackendError, 2: InvalidArgumentError, 3: NotSupportedError, 4: LoadError, 5: InternalError}


def _status_name(status):
    return lib.ndrt_status_name(status).decode("utf-8", "replace")


def exception_class(status):
    """The Python class a status maps to."""
    return _BY_STATUS.get(status) or _BY_RANGE.get(status // 100, NdrtError)


def error_from_status(status, context=None):
    """Builds the exception for a failed call. Must run on the thread that made the call, right
    after it (the message is thread-local)."""
    msg = lib.ndrt_last_error().decode("utf-8", "replace")
    if not msg:
        msg = _status_name(status)
    if context:
        msg = "%s: %s" % (context, msg)
    return exception_class(status)(msg, status)


def raise_status(status, context=None):
    raise error_from_status(status, context)


def check(status, context=None):
    """Raises the matching NdrtError when status is not NDRT_OK."""
    if status:
        raise error_from_status(status, context)
