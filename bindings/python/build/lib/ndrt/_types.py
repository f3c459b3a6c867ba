"""dtypes and devices: names, codes, numpy equivalents."""
import numpy as np

# dtype names as the runtime prints them, and their ndrt_dtype codes.
DTYPE_CODES = {"f32": 1, "f64": 2, "f16": 3, "bf16": 4, "i8": 5, "u8": 6, "i32": 7, "i64": 8, "bool": 9}
DTYPE_NAMES = {v: k for k, v in DTYPE_CODES.items()}
ITEMSIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i8": 1, "u8": 1, "i32": 4, "i64": 8, "bool": 1}

# numpy has no bfloat16: bf16 has no numpy dtype (see Tensor.numpy(raw_bf16=True)).
TO_NUMPY = {"f32": np.dtype(np.float32), "f64": np.dtype(np.float64), "f16": np.dtype(np.float16),
            "i8": np.dtype(np.int8), "u8": np.dtype(np.uint8), "i32": np.dtype(np.int32),
            "i64": np.dtype(np.int64), "bool": np.dtype(np.bool_)}
FROM_NUMPY = {v: k for k, v in TO_NUMPY.items()}

_ALIASES = {"float32": "f32", "float": "f32", "float64": "f64", "double": "f64", "float16": "f16",
            "half": "f16", "bfloat16": "bf16", "int8": "i8", "uint8": "u8", "int32": "i32",
            "int64": "i64", "bool_": "bool", "b1": "bool"}


def dtype_name(x):
    """Normalises a dtype given as 'f32', 'float32', an ndrt code, a numpy dtype or scalar type,
    or a torch dtype, to the runtime's name ('f32', ..., 'bool')."""
    if isinstance(x, str):
        if x in DTYPE_CODES:
            return x
        if x in _ALIASES:
            return _ALIASES[x]
        if x.startswith("torch."):
            return dtype_name(x[6:])
    elif isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        if int(x) in DTYPE_NAMES:
            return DTYPE_NAMES[int(x)]
        raise ValueError("ndrt: %d is not an ndrt dtype code (1..9)" % int(x))
    elif x is bool:
        return "bool"
    else:
        s = str(x)
        if s.startswith("torch."):
            return dtype_name(s)
        try:
            nd = np.dtype(x)
        except TypeError:
            nd = None
        if nd is not None and nd in FROM_NUMPY:
            return FROM_NUMPY[nd]
        if nd is not None:
            raise TypeError("ndrt: numpy dtype %s has no ndrt equivalent (ndrt has %s)"
                            % (nd, ", ".join(DTYPE_CODES)))
    raise TypeError("ndrt: %r is not a dtype (use one of %s)" % (x, ", ".join(DTYPE_CODES)))


def dtype_code(x):
    return DTYPE_CODES[dtype_name(x)]


# ---------------------------------------------------------------------------------------------
# Devices: int32 (type << 16) | index; cpu:0 is 0; -1 means the thread's current device.
# ---------------------------------------------------------------------------------------------
DEVICE_TYPES = {"cpu": 0, "cuda": 1}
DEVICE_TYPE_NAMES = {0: "cpu", 1: "cuda"}
DEVICE_CURRENT = -1


class Device:
    """A device: `type` ('cpu' or 'cuda') and `index`. str() gives 'cpu:0'; compares equal to that
    string too. `code` is the packed ndrt_device value."""
    __slots__ = ("type", "index")

    def __init__(self, type, index=0):
        if type not in DEVICE_TYPES:
            raise ValueError("ndrt: unknown device type %r (cpu or cuda)" % (type,))
        if not 0 <= int(index) <= 0xFFFF:
            raise ValueError("ndrt: device index %r out of range" % (index,))
        self.type = type
        self.index = int(index)

    @property
    def code(self):
        return (DEVICE_TYPES[self.type] << 16) | self.index

    @classmethod
    def from_code(cls, code):
        return cls(DEVICE_TYPE_NAMES.get(code >> 16, "cuda" if code >> 16 == 1 else "cpu"), code & 0xFFFF)

    def __str__(self):
        return "%s:%d" % (self.type, self.index)

    def __repr__(self):
        return "Device('%s')" % self

    def __eq__(self, other):
        if isinstance(other, Device):
            return self.type == other.type and self.index == other.index
        if isinstance(other, str):
            try:
                return self == parse_device(other)
            except ValueError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash((self.type, self.index))


def parse_device(x):
    """Device from 'cpu', 'cpu:1', 'cuda:0', a Device, or a packed int code."""
    if isinstance(x, Device):
        return x
    if isinstance(x, str):
        t, _, i = x.partition(":")
        if t not in DEVICE_TYPES:
            raise ValueError("ndrt: %r is not a device (expected 'cpu', 'cpu:N' or 'cuda:N')" % x)
        try:
            return Device(t, int(i) if i else 0)
        except ValueError:
            raise ValueError("ndrt: %r is not a device (expected 'cpu', 'cpu:N' or 'cuda:N')" % x) from None
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0:
        return Device.from_code(int(x))
    raise ValueError("ndrt: %r is not a device" % (x,))


def device_code(x):
    """Packed code; None means the calling thread's current device."""
    if x is None:
        return DEVICE_CURRENT
    return parse_device(x).code
