"""Generates one Python function per registered op from the registry's JSON descriptions.

Each function has the op's inputs as positional parameters (a variadic last input becomes *name),
its attributes as parameters with the registry's defaults (keyword-only after a variadic input or
once a required attribute follows a defaulted one), the op's trailing optional inputs as
keyword-only parameters defaulting to None (left out of the call; a None before a given one is an
error), and `out=` for given outputs. Attributes are
encoded as the header documents above ndrt_exec: int/bool/dtype one value in `ints`, ints lists a
count then the values in `ints`, floats one value in `floats`; every attribute is always encoded
(defaults included), so the runtime never has to fill a gap. Attribute types this binding does not
know yet keep their default: giving one raises NotSupportedError, and so does giving any attribute
after one (its position in the arrays would be unknown).
"""
import ctypes
import json
import keyword
import operator
import re

import numpy as np

from ._lib import lib
from ._types import dtype_code, dtype_name
from .errors import check, error_from_status, NotSupportedError, InvalidArgumentError
from ._tensor import Tensor, _from_handle, from_numpy

_exec = lib.ndrt_exec
_c_int64 = ctypes.c_int64
_handle_arrays = {}

KNOWN_ATTR_TYPES = ("int", "float", "bool", "dtype", "ints")


def _harr(n):
    t = _handle_arrays.get(n)
    if t is None:
        t = _handle_arrays[n] = _c_int64 * n
    return t


class AttrInfo:
    __slots__ = ("name", "pyname", "type", "default", "required")

    def __init__(self, name, pyname, type, default, required):
        self.name, self.pyname, self.type, self.default, self.required = name, pyname, type, default, required

    def __repr__(self):
        d = "required" if self.required else "default=%r" % (self.default,)
        return "AttrInfo(%s: %s, %s)" % (self.name, self.type, d)


class OpInfo:
    """What the registry says about one op (`.raw` is the parsed JSON)."""

    def __init__(self, raw):
        self.raw = raw
        self.id = int(raw["id"]) if "id" in raw else None
        self.name = raw["name"]
        self.doc = raw.get("doc", "")
        self.inputs = [i["name"] for i in raw.get("inputs", [])]
        flags = [bool(i.get("optional", False)) for i in raw.get("inputs", [])]
        self.n_optional = 0  # trailing optional inputs
        while self.n_optional < len(flags) and flags[len(flags) - 1 - self.n_optional]:
            self.n_optional += 1
        if any(flags[:len(flags) - self.n_optional]):
            raise InvalidArgumentError("ndrt: op %s: an optional input is followed by a required one" % self.name)
        self.outputs = [o["name"] for o in raw.get("outputs", [])]
        self.variadic = bool(raw.get("variadic", False))
        self.inplace = bool(raw.get("inplace", False))
        self.kernels = raw.get("kernels", {})
        self.attrs = []
        self.unknown_from = None  # index of the first attribute of an unknown type
        used = set()
        for n in self.inputs:
            used.add(_pyname(n, used))
        used.add("out")
        for k, a in enumerate(raw.get("attrs", [])):
            t = a.get("type")
            req = bool(a.get("required", False)) or "default" not in a
            d = a.get("default")
            if t == "ints" and d is not None:
                d = tuple(d)
            elif t == "dtype" and d is not None:
                d = dtype_name(d)
            elif t == "float" and d is not None:
                d = float(d)
            if t not in KNOWN_ATTR_TYPES and self.unknown_from is None:
                self.unknown_from = k
                req = False  # cannot be passed anyway
            self.attrs.append(AttrInfo(a["name"], _pyname(a["name"], used), t, d, req))
            used.add(self.attrs[-1].pyname)
        self.input_pynames = []
        used = set()
        for n in self.inputs:
            p = _pyname(n, used)
            used.add(p)
            self.input_pynames.append(p)

    def __repr__(self):
        return "OpInfo(%s)" % self.name


def _pyname(name, used):
    p = re.sub(r"\W", "_", name)
    if not p or p[0].isdigit():
        p = "_" + p
    while keyword.iskeyword(p) or p in used or p == "out":
        p += "_"
    return p


def _parse_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(_fix_non_finite(text))


def _fix_non_finite(text):
    """%.17g prints non-finite float defaults as nan / inf / -inf, which JSON lacks: rewrite those
    bare tokens (outside string literals) as NaN / Infinity, which Python's json accepts."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        m = re.match(r"(-?)(nan|inf)(?![A-Za-z0-9_])", text[i:i + 5])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            out.append("NaN" if m.group(2) == "nan" else m.group(1) + "Infinity")
            i += len(m.group(0))
            continue
        out.append(c)
        i += 1
    return "".join(out)


def describe_all():
    """Parsed descriptions of every registered op, in id order."""
    n = ctypes.c_int32()
    check(lib.ndrt_op_count(ctypes.byref(n)))
    out = []
    for i in range(n.value):
        need = ctypes.c_size_t()
        check(lib.ndrt_op_describe(i, None, 0, ctypes.byref(need)))
        buf = ctypes.create_string_buffer(need.value)
        check(lib.ndrt_op_describe(i, buf, need.value, ctypes.byref(need)))
        raw = _parse_json(buf.value.decode("utf-8"))
        raw.setdefault("id", i)
        out.append(raw)
    return out


# ----------------------------------------------------------------------------------------------
# Calling
# ----------------------------------------------------------------------------------------------
def _as_input(x, temps):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        t = from_numpy(np.asarray(x))
    elif hasattr(x, "__dlpack__"):
        from .dlpack import from_dlpack
        t = from_dlpack(x)
    else:
        raise TypeError("ndrt: op inputs are Tensors, numpy arrays or DLPack producers, got %s"
                        % type(x).__name__)
    temps.append(t)
    return t


def _enc_bool(v, a, op):
    if isinstance(v, (bool, np.bool_)):
        return 1 if v else 0
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return int(v)
    raise TypeError("ndrt: %s: attribute '%s' is a bool, got %r" % (op.name, a.name, v))


def encode_attrs(op, values):
    """(ints list, floats list) for attribute values in description order."""
    ints, floats = [], []
    for k, (a, v) in enumerate(zip(op.attrs, values)):
        if op.unknown_from is not None and k >= op.unknown_from:
            for b, w in zip(op.attrs[k:], values[k:]):
                if not _is_default(w, b.default):
                    raise NotSupportedError(
                        "ndrt: %s: attribute '%s' cannot be passed: this binding does not know the type '%s' of "
                        "attribute '%s', so it cannot place later values" % (op.name, b.name, op.attrs[op.unknown_from].type,
                                                                          op.attrs[op.unknown_from].name))
            break
        t = a.type
        try:
            if t == "float":
                floats.append(float(v))
            elif t == "int":
                ints.append(operator.index(v))
            elif t == "bool":
                ints.append(_enc_bool(v, a, op))
            elif t == "dtype":
                ints.append(dtype_code(v))
            else:  # ints
                if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                    ints.append(1)
                    ints.append(int(v))
                else:
                    vals = [operator.index(x) for x in v]
                    ints.append(len(vals))
                    ints.extend(vals)
        except TypeError as e:
            if str(e).startswith("ndrt:"):
                raise
            raise TypeError("ndrt: %s: attribute '%s' is of type %s, got %r" % (op.name, a.name, t, v)) from None
    return ints, floats


def _is_default(v, d):
    if v is d:
        return True
    try:
        return bool(v == d)
    except Exception:
        return False


def run(op, inputs, out, values):
    """Runs `op` (OpInfo) on inputs with attribute values (description order) and out=."""
    temps = []
    try:
        ins = [_as_input(x, temps) for x in inputs]
        n_out = len(op.outputs)
        if out is None:
            outs = [None] * n_out
        elif isinstance(out, Tensor):
            outs = [out]
        elif isinstance(out, (tuple, list)):
            outs = list(out)
        else:
            raise TypeError("ndrt: %s: out= takes an ndrt Tensor%s, got %s"
                            % (op.name, "" if len(op.outputs) == 1 else " or a tuple of them", type(out).__name__))
        if len(outs) != n_out:
            raise InvalidArgumentError("ndrt: %s has %d output(s) (%s), out= gave %d"
                                       % (op.name, n_out, ", ".join(op.outputs), len(outs)))
        for i, o in enumerate(outs):
            if o is not None:
                if not isinstance(o, Tensor):
                    raise TypeError("ndrt: %s: out= takes ndrt Tensors, got %s" % (op.name, type(o).__name__))
                if o._readonly:
                    raise ValueError("ndrt: %s: output %d wraps read-only memory" % (op.name, i))
        ints, floats = encode_attrs(op, values) if op.attrs else ((), ())
        h_in = _harr(len(ins))(*[t._h for t in ins]) if ins else None
        h_out = _harr(n_out)(*[o._h if o is not None else 0 for o in outs]) if n_out else None
        ni, nf = len(ints), len(floats)
        st = _exec(op.id, h_in, len(ins), h_out, n_out, (_c_int64 * ni)(*ints) if ni else None, ni,
                   (ctypes.c_double * nf)(*floats) if nf else None, nf)
        if st:
            raise error_from_status(st)
        res = tuple(o if o is not None else _from_handle(h_out[i]) for i, o in enumerate(outs))
    finally:
        for t in temps:
            t.close()
    if n_out == 1:
        return res[0]
    return res


# Body of the generated function for the common case: Tensor inputs, no attributes, one output.
# The int32 arguments are ctypes objects built once (their conversion is the cheapest), and a
# given output passes the handle array it caches (the runtime only writes 0 entries).
_FAST_TEMPLATE = """
def {fname}({params}):
    if {all_tensors}:
        if out is None:
            _o = _H1(0)
            _st = _exec(_OPID, _HI({handles}), _NIN, _o, _N1, None, _N0, None, _N0)
            if _st:
                raise _err(_st)
            return _new(_o[0])
        if out.__class__ is _T and not out._readonly:
            _oa = out._ha
            if _oa is None:
                _oa = out._handle_array()
            _st = _exec(_OPID, _HI({handles}), _NIN, _oa, _N1, None, _N0, None, _N0)
            if _st:
                raise _err(_st)
            return out
    return _run(_op, ({inputs}), out, ())
"""

_GENERIC_TEMPLATE = """
def {fname}({params}):
    return _run(_op, {inputs_expr}, out, ({values}))
"""


def make_function(op):
    """The Python function for `op` (an OpInfo)."""
    ns = {"_run": run, "_op": op, "_exec": _exec, "_err": error_from_status, "_new": _from_handle,
          "_T": Tensor, "_H1": _harr(1), "_HI": _harr(max(len(op.inputs), 1)),
          "_OPID": ctypes.c_int32(int(op.id)), "_NIN": ctypes.c_int32(len(op.inputs)),
          "_N1": ctypes.c_int32(1), "_N0": ctypes.c_int32(0)}
    params = []
    n_req = len(op.inputs) - op.n_optional
    fixed = op.input_pynames[:-1] if op.variadic else list(op.input_pynames[:n_req])
    optional = list(op.input_pynames[n_req:]) if not op.variadic else []
    params.extend(fixed)
    kwonly = False
    if op.variadic:
        params.append("*" + op.input_pynames[-1])
        kwonly = True
    seen_default = False
    for k, a in enumerate(op.attrs):
        if a.required and seen_default and not kwonly:
            params.append("*")
            kwonly = True
        if a.required:
            params.append(a.pyname)
        else:
            ns["_d%d" % k] = a.default
            params.append("%s=_d%d" % (a.pyname, k))
            seen_default = True
    if optional:
        if not kwonly:
            params.append("*")
            kwonly = True
        params.extend("%s=None" % p for p in optional)
    params.append("out=None" if kwonly else "*, out=None")
    fname = _pyname(op.name, set())
    if op.variadic:
        var = op.input_pynames[-1]
        ns["_flatten"] = _flatten_variadic
        inputs_expr = "(%s) + _flatten(%s, %r)" % ("".join(p + ", " for p in fixed), var, op.name)
    else:
        inputs_expr = "(%s)" % "".join(p + ", " for p in fixed)
    if optional:
        ns["_optional"] = _given_optional
        ns["_optional_names"] = tuple(optional)
        inputs_expr += " + _optional((%s), _optional_names, %r)" % ("".join(p + ", " for p in optional), op.name)
    values = "".join(a.pyname + ", " for a in op.attrs)
    if not op.variadic and not optional and not op.attrs and len(op.outputs) == 1 and op.inputs:
        src = _FAST_TEMPLATE.format(
            fname=fname, params=", ".join(params),
            all_tensors=" and ".join("%s.__class__ is _T" % p for p in fixed),
            handles=", ".join("%s._h" % p for p in fixed), inputs="".join(p + ", " for p in fixed))
    else:
        src = _GENERIC_TEMPLATE.format(fname=fname, params=", ".join(params), inputs_expr=inputs_expr, values=values)
    exec(compile(src, "<ndrt.ops.%s>" % fname, "exec"), ns)
    fn = ns[fname]
    fn.__doc__ = make_doc(op)
    fn.__module__ = "ndrt.ops"
    fn.__qualname__ = fname
    fn.op_info = op
    return fname, fn


def _given_optional(xs, names, op_name):
    """The optional inputs up to the last one given (None leaves an input out, so only trailing ones may be)."""
    n = len(xs)
    while n and xs[n - 1] is None:
        n -= 1
    for i in range(n):
        if xs[i] is None:
            raise InvalidArgumentError("ndrt: %s: optional input '%s' is None but '%s' after it is given (optional "
                                       "inputs are left out from the end)" % (op_name, names[i], names[n - 1]))
    return tuple(xs[:n])


def _flatten_variadic(xs, name):
    if len(xs) == 1 and isinstance(xs[0], (list, tuple)):
        xs = tuple(xs[0])
    if not xs:
        raise InvalidArgumentError("ndrt: %s takes one or more tensors for its last input" % name)
    return tuple(xs)


def make_doc(op):
    lines = [op.doc or op.name, ""]
    ins = list(op.input_pynames)
    if op.variadic and ins:
        ins[-1] = "*" + ins[-1] + " (one or more)"
    n_req = len(ins) - op.n_optional
    ins = ins[:n_req] + ["%s=None (optional, keyword)" % p for p in ins[n_req:]]
    lines.append("Inputs: %s." % (", ".join(ins) if ins else "none"))
    outs = ", ".join(op.outputs)
    lines.append("Outputs: %s: returned%s; pass out= to write into given tensor%s (shape and dtype must be "
                 "what the op infers)." % (outs, "" if len(op.outputs) == 1 else " as a tuple",
                                           "" if len(op.outputs) == 1 else "s (a tuple, None entries allocated)"))
    if op.attrs:
        lines.append("Attributes:")
        for a in op.attrs:
            d = "required" if a.required else "default %r" % (a.default,)
            extra = "" if a.type in KNOWN_ATTR_TYPES else " (type unknown to this binding: cannot be passed)"
            lines.append("  %s (%s, %s)%s" % (a.pyname, a.type, d, extra))
    if op.inplace:
        lines.append("In place: an output may be the very same view as an input.")
    if op.kernels:
        lines.append("Kernels: " + "; ".join("%s: %s" % (b, ", ".join(d)) for b, d in op.kernels.items()))
    return "\n".join(lines)


def populate(namespace):
    """Adds one function per registered op to `namespace`; returns {op name: OpInfo}."""
    infos = {}
    names = []
    for raw in describe_all():
        op = OpInfo(raw)
        fname, fn = make_function(op)
        namespace[fname] = fn
        infos[op.name] = op
        names.append(fname)
    namespace["__all__"] = names
    return infos
