#!/usr/bin/python3
"""Op-wrapper generator shared by the ndrt bindings.

The runtime's registry describes every op as JSON (ndrt_op_count / ndrt_op_describe). This module
reads those descriptions from a freshly built libndrt (ctypes, no compiler needed) into a small,
language-neutral model (`Op`, `Attr`), and emits bindings from it. A new op therefore reaches every
binding without hand-written glue.

Shared part (any binding may import it):
    load_ops(lib_path)          -> [Op]  the registry of that library, in id order
    load_ops_json(path)         -> [Op]  the same from a file written with --json
    encode_attrs(op, values)    -> (ints, floats)  the ndrt_exec attribute encoding, for a prefix
                                   of op.attrs (a reference for runtime encoders and tests)
    snake_to_camel / identifier helpers for languages with reserved words

Java part (the Java binding's build calls it):
    emit_java(ops, package, class_name) -> source of org.ndrt.Ops

A Python emitter can live in bindings/python/ and do `sys.path.insert(0, <bindings>)`,
`import gen_ops`, `ops = gen_ops.load_ops(path)`.

Command line:
    /usr/bin/python3 gen_ops.py --lib build/libndrt.so [--json ops.json] \
        [--java out/org/ndrt/Ops.java --java-package org.ndrt --java-class Ops]
    /usr/bin/python3 gen_ops.py --from-json ops.json --java ...   (no library needed)

Attribute types handled: int, float, bool, dtype, ints; variadic last inputs; trailing optional
inputs ("optional": true: Java gets every overload without them and with them, a null optional
input being left out); ops with any number of outputs (0..8). An attribute type the generator does not know stops generation with an error
naming the op, so that a registry change never silently drops an op.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import keyword
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

ATTR_TYPES = ("int", "float", "bool", "dtype", "ints")

# dtype names as ndrt_op_describe writes them, with their ndrt_dtype codes (ndrt.h).
DTYPE_CODES = {"f32": 1, "f64": 2, "f16": 3, "bf16": 4, "i8": 5, "u8": 6, "i32": 7, "i64": 8, "bool": 9}


class GenError(Exception):
    """A description the generator cannot turn into a binding."""


@dataclass
class Attr:
    name: str
    type: str  # one of ATTR_TYPES
    required: bool
    default: Any = None  # int | float | bool | str (dtype name) | list[int]; None when required

    def default_value_text(self) -> str:
        """The default as ndrt_op_describe spells it (for docs)."""
        if self.required:
            return "required"
        if self.type == "bool":
            return "true" if self.default else "false"
        if self.type == "ints":
            return "[" + ", ".join(str(v) for v in self.default) + "]"
        if self.type == "float":
            return repr(float(self.default))
        return str(self.default)


@dataclass
class Op:
    id: int
    name: str
    doc: str
    inputs: List[str]
    outputs: List[str]
    variadic: bool
    inplace: bool
    attrs: List[Attr]
    kernels: Dict[str, List[str]] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict)  # the JSON as described, for extensions
    n_optional: int = 0  # the last n_optional inputs may be left out (trailing optional inputs)

    @property
    def n_required_inputs(self) -> int:
        return len(self.inputs) - self.n_optional

    def first_optional_prefix(self) -> int:
        """Smallest number of leading attributes a caller must give (up to the last required one)."""
        n = 0
        for i, a in enumerate(self.attrs):
            if a.required:
                n = i + 1
        return n


def _parse_attr(op_name: str, j: Dict[str, Any]) -> Attr:
    t = j.get("type")
    if t not in ATTR_TYPES:
        raise GenError(f"op '{op_name}': attribute '{j.get('name')}' has type {t!r}, which this generator "
                       f"does not know (known: {', '.join(ATTR_TYPES)}); extend bindings/gen_ops.py")
    required = bool(j.get("required", False)) or "default" not in j
    default = None if required else j["default"]
    if not required:
        ok = {
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "bool": lambda v: isinstance(v, bool),
            "dtype": lambda v: isinstance(v, str),
            "ints": lambda v: isinstance(v, list) and all(isinstance(x, int) for x in v),
        }[t](default)
        if not ok:
            raise GenError(f"op '{op_name}': attribute '{j['name']}' of type {t} has default {default!r}")
    return Attr(name=j["name"], type=t, required=required, default=default)


def _optional_inputs(name: str, inputs: List[Dict[str, Any]], variadic: bool) -> int:
    flags = [bool(x.get("optional", False)) for x in inputs]
    n = 0
    while n < len(flags) and flags[len(flags) - 1 - n]:
        n += 1
    if any(flags[:len(flags) - n]):
        raise GenError(f"op '{name}': an optional input is followed by a required one (only trailing inputs "
                       f"may be optional)")
    if n and variadic:
        raise GenError(f"op '{name}': a variadic op with optional inputs")
    return n


def op_from_json(j: Dict[str, Any], op_id: Optional[int] = None) -> Op:
    name = j["name"]
    return Op(
        id=int(j.get("id", op_id if op_id is not None else -1)),
        name=name,
        doc=j.get("doc", ""),
        inputs=[x["name"] for x in j.get("inputs", [])],
        outputs=[x["name"] for x in j.get("outputs", [])],
        variadic=bool(j.get("variadic", False)),
        inplace=bool(j.get("inplace", False)),
        attrs=[_parse_attr(name, a) for a in j.get("attrs", [])],
        kernels={k: list(v) for k, v in j.get("kernels", {}).items()},
        raw=j,
        n_optional=_optional_inputs(name, j.get("inputs", []), bool(j.get("variadic", False))),
    )


def describe_json(lib: ctypes.CDLL) -> List[Dict[str, Any]]:
    """Raw JSON descriptions of every registered op of an already loaded libndrt."""
    lib.ndrt_op_count.argtypes = [ctypes.POINTER(ctypes.c_int32)]
    lib.ndrt_op_count.restype = ctypes.c_int32
    lib.ndrt_op_describe.argtypes = [ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_size_t)]
    lib.ndrt_op_describe.restype = ctypes.c_int32
    lib.ndrt_last_error.restype = ctypes.c_char_p
    lib.ndrt_last_error.argtypes = []

    def check(status: int, what: str) -> None:
        if status != 0:
            raise GenError(f"{what} failed with status {status}: {lib.ndrt_last_error().decode()}")

    n = ctypes.c_int32()
    check(lib.ndrt_op_count(ctypes.byref(n)), "ndrt_op_count")
    out = []
    for i in range(n.value):
        needed = ctypes.c_size_t()
        check(lib.ndrt_op_describe(i, None, 0, ctypes.byref(needed)), f"ndrt_op_describe({i}) size")
        buf = ctypes.create_string_buffer(needed.value)
        check(lib.ndrt_op_describe(i, buf, needed.value, ctypes.byref(needed)), f"ndrt_op_describe({i})")
        out.append(json.loads(buf.value.decode("utf-8")))
    return out


def load_ops(lib_path: str) -> List[Op]:
    """Every op registered in the libndrt at lib_path, in id order."""
    lib = ctypes.CDLL(os.path.abspath(lib_path))
    return [op_from_json(j, i) for i, j in enumerate(describe_json(lib))]


def load_ops_json(path: str) -> List[Op]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return [op_from_json(j, i) for i, j in enumerate(data["ops"] if isinstance(data, dict) else data)]


def encode_attrs(op: Op, values: Sequence[Any]) -> Tuple[List[int], List[float]]:
    """ndrt_exec's attribute arrays for the first len(values) attributes of op (the rest default).

    int/bool/dtype: one value in ints (dtype as name or code); ints: count then values;
    float: one value in floats.
    """
    if len(values) > len(op.attrs):
        raise GenError(f"{op.name}: {len(values)} attribute values for {len(op.attrs)} attributes")
    ints: List[int] = []
    floats: List[float] = []
    for a, v in zip(op.attrs, values):
        if a.type == "float":
            floats.append(float(v))
        elif a.type == "ints":
            v = list(v)
            ints.append(len(v))
            ints.extend(int(x) for x in v)
        elif a.type == "dtype":
            ints.append(DTYPE_CODES[v] if isinstance(v, str) else int(v))
        elif a.type == "bool":
            ints.append(1 if v else 0)
        else:
            ints.append(int(v))
    return ints, floats


# ------------------------------------------------------------------------------------------------
# Identifier helpers

def snake_to_camel(name: str, upper_first: bool = False) -> str:
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", name) if p]
    if not parts:
        return "_"
    s = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    s = s[:1].upper() + s[1:] if upper_first else s[:1].lower() + s[1:]
    if s[0].isdigit():
        s = "_" + s
    if name.endswith("_"):  # "relu_" (an in-place variant) must not become "relu"
        s += "_"
    return s


JAVA_RESERVED = {
    "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
    "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
    "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
    "protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
    "throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null", "var",
    "yield", "_",
    # java.lang.Object's methods and names the generated class uses itself
    "equals", "hashCode", "toString", "getClass", "notify", "notifyAll", "wait", "clone", "finalize",
    "exec", "find", "opId", "names", "count",
}


def java_ident(name: str, upper_first: bool = False) -> str:
    s = snake_to_camel(name, upper_first)
    return s + "_" if s in JAVA_RESERVED else s


# ------------------------------------------------------------------------------------------------
# Java emitter

JAVA_ATTR_TYPES = {"int": "long", "float": "double", "bool": "boolean", "dtype": "DType", "ints": "long[]"}


def _javadoc_text(s: str) -> str:
    """Doc text made safe for a javadoc comment: HTML-escaped, backticks as <code>, no comment end,
    no backslash (javac reads \\u escapes even in comments)."""
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace("\\", "&#92;").replace("*/", "*&#47;").replace("@", "&#64;")
    s = re.sub(r"`([^`]*)`", r"<code>\1</code>", s)
    return s


def _java_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _java_default(a: Attr) -> str:
    if a.type == "int":
        return f"{int(a.default)}L"
    if a.type == "float":
        v = float(a.default)
        if v != v:
            return "Double.NaN"
        if v in (float("inf"), float("-inf")):
            return "Double.POSITIVE_INFINITY" if v > 0 else "Double.NEGATIVE_INFINITY"
        return repr(v)
    if a.type == "bool":
        return "true" if a.default else "false"
    if a.type == "dtype":
        if a.default in DTYPE_CODES:
            return f"DType.{a.default.upper()}"
        return f"DType.fromName({_java_string(a.default)})"
    if a.type == "ints":
        return "new long[] {" + ", ".join(f"{int(v)}L" for v in a.default) + "}"
    raise GenError(a.type)


@dataclass
class _JavaOp:
    op: Op
    method: str
    const: str
    inputs: List[str]   # Java parameter names
    attrs: List[str]
    outputs: List[str]
    result_class: Optional[str]
    attrs_class: Optional[str]


def _plan_java(ops: List[Op]) -> List[_JavaOp]:
    used_methods: Dict[str, str] = {}
    used_results: set = set()
    plans = []
    for op in ops:
        method = java_ident(op.name)
        if method in used_methods:
            base, k = method, 2
            while f"{base}{k}" in used_methods:
                k += 1
            method = f"{base}{k}"
            print(f"gen_ops: op '{op.name}' maps to a Java name already taken by '{used_methods[base]}'; "
                  f"generated as {method}", file=sys.stderr)
        used_methods[method] = op.name
        taken: set = set()

        def param(n: str) -> str:
            p = java_ident(n)
            while p in taken:
                p += "_"
            taken.add(p)
            return p

        inputs = [param(n) for n in op.inputs]
        attrs = [param(a.name) for a in op.attrs]
        outputs = [param(n) for n in op.outputs]
        result_class = None
        base = java_ident(op.name, upper_first=True).rstrip("_")
        if len(op.outputs) > 1:
            result_class = base + "Result"
            while result_class in used_results:
                result_class += "_"
            used_results.add(result_class)
        attrs_class = None
        if op.attrs:
            attrs_class = base + "Attrs"
            while attrs_class in used_results:
                attrs_class += "_"
            used_results.add(attrs_class)
        const = "OP_" + re.sub(r"[^0-9A-Za-z]", "_", op.name).upper()
        while const in (p.const for p in plans):
            const += "_"
        plans.append(_JavaOp(op, method, const, inputs, attrs, outputs, result_class, attrs_class))
    return plans


def params_full(in_params: List[str], attr_params: List[str], out_params: List[str]) -> List[str]:
    return in_params + attr_params + out_params


def _java_erasure(param: str) -> str:
    """'Tensor[] xs' -> 'Tensor[]' (for {@link} signatures)."""
    return param.rsplit(" ", 1)[0]


def _emit_attrs_class(p: "_JavaOp", o: List[str]) -> None:
    op, c = p.op, p.attrs_class
    required = [(a, n) for a, n in zip(op.attrs, p.attrs) if a.required]
    o.append(f"  /**")
    o.append(f"   * Attributes of {{@code {_javadoc_text(op.name)}}} by name, preset to the registry's defaults"
             + (" (the required ones are the constructor's)." if required else "."))
    o.append(f"   * Setters return this: {{@code new {c}()"
             + "".join(f".{n}(...)" for a, n in list(zip(op.attrs, p.attrs))[:2] if not a.required) + "}.")
    o.append("   */")
    o.append(f"  public static final class {c} {{")
    for a, n in zip(op.attrs, p.attrs):
        jt = JAVA_ATTR_TYPES[a.type]
        init = "" if a.required else f" = {_java_default(a)}"
        o.append(f"    {jt} {n}{init};")
    o.append("")
    if required:
        o.append("    /**")
        for a, n in required:
            o.append(f"     * @param {n} attribute <code>{_javadoc_text(a.name)}</code> ({a.type}, required)")
        o.append("     */")
    else:
        o.append("    /** Every attribute at its default. */")
    ctor_params = ", ".join(f"{JAVA_ATTR_TYPES[a.type]} {n}" for a, n in required)
    o.append(f"    public {c}({ctor_params}) {{")
    for a, n in required:
        if a.type in ("ints", "dtype"):
            o.append(f"      this.{n} = java.util.Objects.requireNonNull({n}, \"{n}\");")
        else:
            o.append(f"      this.{n} = {n};")
    o.append("    }")
    for a, n in zip(op.attrs, p.attrs):
        jt = JAVA_ATTR_TYPES[a.type]
        o.append("")
        o.append("    /**")
        o.append(f"     * @param value attribute <code>{_javadoc_text(a.name)}</code> ({a.type}; default "
                 f"{_javadoc_text(a.default_value_text())})")
        o.append("     * @return this")
        o.append("     */")
        if a.type == "ints":
            o.append(f"    public {c} {n}(long... value) {{")
            o.append(f"      this.{n} = java.util.Objects.requireNonNull(value, \"{n}\").clone();")
        elif a.type == "dtype":
            o.append(f"    public {c} {n}(DType value) {{")
            o.append(f"      this.{n} = java.util.Objects.requireNonNull(value, \"{n}\");")
        else:
            o.append(f"    public {c} {n}({jt} value) {{")
            o.append(f"      this.{n} = value;")
        o.append("      return this;")
        o.append("    }")
    o.append("  }")
    o.append("")


def _small_path(op: Op) -> bool:
    """Ops that NdrtC.exec_small runs: no attributes, fixed inputs (at most 4), one output."""
    return not op.attrs and not op.variadic and not op.n_optional and len(op.inputs) <= 4 and len(op.outputs) == 1


def _emit_java_op(p: _JavaOp, out: List[str]) -> None:
    op = p.op
    n_out = len(op.outputs)
    ret = "void" if n_out == 0 else ("Tensor" if n_out == 1 else p.result_class)

    in_params = []
    for i, name in enumerate(p.inputs):
        last = i == len(p.inputs) - 1
        in_params.append(f"Tensor[] {name}" if (op.variadic and last) else f"Tensor {name}")
    attr_params = [f"{JAVA_ATTR_TYPES[a.type]} {n}" for a, n in zip(op.attrs, p.attrs)]
    out_params = [f"Tensor {n}" for n in p.outputs]
    # Trailing optional inputs: every overload below comes without them (null passed on) and with them.
    # (Giving an op without attributes an optional input makes its old full form (inputs, outputs)
    # read as (inputs, optional input): such an op should get an attribute along with it.)
    n_req = op.n_required_inputs
    opt_variants = (False, True) if op.n_optional else (True,)

    def doc(n_attrs: int, given_outputs: bool, with_optional: bool = True) -> None:
        out.append("  /**")
        text = _javadoc_text(op.doc.strip()) or f"The {op.name} op."
        for line in text.split("\n"):
            out.append(f"   * {line}".rstrip())
        out.append("   *")
        extra = [f"Op <code>{_javadoc_text(op.name)}</code> (registry id {op.id} when generated)."]
        if op.kernels:
            ks = "; ".join(f"{b}: {', '.join(v)}" for b, v in op.kernels.items())
            extra.append(f"Kernels: {_javadoc_text(ks)}.")
        if op.inplace:
            extra.append("May run in place: an output may be the very same view as an input.")
        if given_outputs:
            extra.append("Outputs given here are written (their shape and dtype must be what the op infers); "
                         "a {@code null} output is allocated by the runtime.")
        else:
            extra.append("Outputs are allocated by the runtime and belong to the caller (close them).")
        out.append("   * <p>" + " ".join(extra))
        if n_attrs < len(op.attrs):
            rest = ", ".join(f"{_javadoc_text(a.name)} = {_javadoc_text(a.default_value_text())}"
                             for a in op.attrs[n_attrs:])
            out.append(f"   * <p>Defaults used: {rest}.")
        if not with_optional:
            out.append("   * <p>Optional inputs left out: " + ", ".join(_javadoc_text(n) for n in op.inputs[n_req:]) + ".")
        for i, (name, jn) in enumerate(zip(op.inputs, p.inputs)):
            if i >= n_req and not with_optional:
                continue
            variadic = op.variadic and i == len(op.inputs) - 1
            out.append(f"   * @param {jn} input <code>{_javadoc_text(name)}</code>"
                       + (" (variadic: one or more tensors)" if variadic else "")
                       + (" (optional: {@code null} leaves it out, and every optional input after it)"
                          if i >= n_req else ""))
        for a, jn in list(zip(op.attrs, p.attrs))[:n_attrs]:
            out.append(f"   * @param {jn} attribute <code>{_javadoc_text(a.name)}</code> ({a.type}; "
                       f"default {_javadoc_text(a.default_value_text())})")
        if given_outputs:
            for name, jn in zip(op.outputs, p.outputs):
                out.append(f"   * @param {jn} output <code>{_javadoc_text(name)}</code>, or {{@code null}}")
        if n_out == 1:
            out.append(f"   * @return output <code>{_javadoc_text(op.outputs[0])}</code>")
        elif n_out > 1:
            out.append(f"   * @return outputs {', '.join(_javadoc_text(o) for o in op.outputs)}")
        out.append("   */")

    # Overloads by attribute prefix: callers may stop after any attribute past the last required one;
    # the rest take the defaults the registry describes.
    min_attrs = op.first_optional_prefix()
    for n_attrs in range(min_attrs, len(op.attrs) + 1):
        for with_opt in opt_variants:
            if with_opt and n_attrs == len(op.attrs) and n_out == 0:
                continue  # same parameters as the full form below
            ins = in_params if with_opt else in_params[:n_req]
            params = ins + attr_params[:n_attrs]
            args = list(p.inputs) if with_opt else list(p.inputs[:n_req]) + ["null"] * op.n_optional
            args += list(p.attrs[:n_attrs])
            args += [_java_default(a) for a in op.attrs[n_attrs:]]
            args += ["null"] * n_out
            doc(n_attrs, False, with_opt)
            out.append(f"  public static {ret} {p.method}({', '.join(params)}) {{")
            out.append(f"    {'return ' if n_out else ''}{p.method}({', '.join(args)});")
            out.append("  }")
            out.append("")

    # Named attributes: an options object (defaults preset, required ones in its constructor).
    if p.attrs_class:
        c = p.attrs_class
        attrs_name = "attrs"
        while attrs_name in p.inputs or attrs_name in p.outputs:
            attrs_name += "_"
        fields = [f"{attrs_name}.{n}" for n in p.attrs]
        for with_opt in opt_variants:
            for given in (False, True):
                if given and n_out == 0:
                    continue  # no outputs: the form without them is the only one
                out.append("  /**")
                out.append(f"   * {{@code {_javadoc_text(op.name)}}} with its attributes by name: see {{@link {c}}} and "
                           f"{{@link #{p.method}({', '.join(_java_erasure(x) for x in params_full(in_params, attr_params, out_params))})}}.")
                out.append("   *")
                for i, (name, jn) in enumerate(zip(op.inputs, p.inputs)):
                    if i >= n_req and not with_opt:
                        continue
                    out.append(f"   * @param {jn} input <code>{_javadoc_text(name)}</code>"
                               + (" (optional: {@code null} leaves it out)" if i >= n_req else ""))
                out.append(f"   * @param {attrs_name} the attributes")
                if given:
                    for name, jn in zip(op.outputs, p.outputs):
                        out.append(f"   * @param {jn} output <code>{_javadoc_text(name)}</code>, or {{@code null}}")
                if n_out == 1:
                    out.append(f"   * @return output <code>{_javadoc_text(op.outputs[0])}</code>")
                elif n_out > 1:
                    out.append(f"   * @return outputs {', '.join(_javadoc_text(o_) for o_ in op.outputs)}")
                out.append("   */")
                ins = in_params if with_opt else in_params[:n_req]
                ps = ins + [f"{c} {attrs_name}"] + (out_params if given else [])
                in_args = list(p.inputs) if with_opt else list(p.inputs[:n_req]) + ["null"] * op.n_optional
                args = in_args + fields + (list(p.outputs) if given else ["null"] * n_out)
                out.append(f"  public static {ret} {p.method}({', '.join(ps)}) {{")
                out.append(f"    java.util.Objects.requireNonNull({attrs_name}, \"{attrs_name}\");")
                out.append(f"    {'return ' if n_out else ''}{p.method}({', '.join(args)});")
                out.append("  }")
                out.append("")

    # The full form: every attribute, outputs given (null = allocate).
    params = in_params + attr_params + out_params
    doc(len(op.attrs), True)
    out.append(f"  public static {ret} {p.method}({', '.join(params)}) {{")
    if _small_path(op):
        # no attributes, <= 4 inputs, one output: handles travel as scalars (no JNI array work)
        hs = [f"Tensor.handleOf({n}, \"{n}\")" for n in p.inputs] + ["0L"] * (4 - len(p.inputs))
        o = p.outputs[0]
        out.append(f"    long h$ = Ops.execSmall({p.const}, {_java_string(op.name)}, {len(p.inputs)}, "
                   f"{', '.join(hs)}, Tensor.handleOrZero({o}));")
        for n in list(p.inputs) + [o]:
            out.append(f"    java.lang.ref.Reference.reachabilityFence({n});")
        out.append(f"    return {o} != null ? {o} : Tensor.adopt(h$);")
        out.append("  }")
        out.append("")
        return
    fixed = [n for i, n in enumerate(p.inputs) if not (op.variadic and i == len(p.inputs) - 1)]
    if op.variadic:
        var = p.inputs[-1]
        out.append(f"    java.util.Objects.requireNonNull({var}, \"{var}\");")
        out.append(f"    long[] in$ = new long[{len(fixed)} + {var}.length];")
        for i, n in enumerate(fixed):
            out.append(f"    in$[{i}] = Tensor.handleOf({n}, \"{n}\");")
        out.append(f"    for (int i$ = 0; i$ < {var}.length; ++i$) "
                   f"in$[{len(fixed)} + i$] = Tensor.handleOf({var}[i$], \"{var}\");")
    elif op.n_optional:
        # given: the required inputs and the optional ones up to the last non-null one (a null
        # optional input before a given one is refused by handleOf)
        out.append(f"    int nIn$ = {n_req};")
        for i in range(n_req, len(fixed)):
            out.append(f"    if ({fixed[i]} != null) nIn$ = {i + 1};")
        out.append("    long[] in$ = new long[nIn$];")
        for i, n in enumerate(fixed):
            if i < n_req:
                out.append(f"    in$[{i}] = Tensor.handleOf({n}, \"{n}\");")
            else:
                out.append(f"    if (nIn$ > {i}) in$[{i}] = Tensor.handleOf({n}, \"{n}\");")
    elif fixed:
        out.append("    long[] in$ = {" + ", ".join(f"Tensor.handleOf({n}, \"{n}\")" for n in fixed) + "};")
    else:
        out.append("    long[] in$ = null;")
    if n_out:
        out.append("    long[] out$ = {" + ", ".join(f"Tensor.handleOrZero({n})" for n in p.outputs) + "};")
    else:
        out.append("    long[] out$ = null;")
    # attributes
    int_attrs = [(a, n) for a, n in zip(op.attrs, p.attrs) if a.type != "float"]
    float_attrs = [(a, n) for a, n in zip(op.attrs, p.attrs) if a.type == "float"]
    if int_attrs:
        fixed_len = sum(1 for a, _ in int_attrs)
        lists = [n for a, n in int_attrs if a.type == "ints"]
        size = " + ".join([str(fixed_len)] + [f"{n}.length" for n in lists])
        for n in lists:
            out.append(f"    java.util.Objects.requireNonNull({n}, \"{n}\");")
        out.append(f"    long[] ints$ = new long[{size}];")
        out.append("    int k$ = 0;")
        for a, n in int_attrs:
            if a.type == "ints":
                out.append(f"    ints$[k$++] = {n}.length;")
                out.append(f"    System.arraycopy({n}, 0, ints$, k$, {n}.length);")
                out.append(f"    k$ += {n}.length;")
            elif a.type == "bool":
                out.append(f"    ints$[k$++] = {n} ? 1L : 0L;")
            elif a.type == "dtype":
                out.append(f"    ints$[k$++] = java.util.Objects.requireNonNull({n}, \"{n}\").code();")
            else:
                out.append(f"    ints$[k$++] = {n};")
    else:
        out.append("    long[] ints$ = null;")
    if float_attrs:
        out.append("    double[] floats$ = {" + ", ".join(n for _, n in float_attrs) + "};")
    else:
        out.append("    double[] floats$ = null;")
    out.append(f"    Ops.exec({p.const}, {_java_string(op.name)}, in$, out$, ints$, floats$);")
    # keep every Java tensor reachable until the native call has returned
    fence = list(fixed) + ([p.inputs[-1]] if op.variadic else []) + list(p.outputs)
    for n in fence:
        out.append(f"    java.lang.ref.Reference.reachabilityFence({n});")
    if n_out == 1:
        o = p.outputs[0]
        out.append(f"    return {o} != null ? {o} : Tensor.adopt(out$[0]);")
    elif n_out > 1:
        vals = ", ".join(f"{o} != null ? {o} : Tensor.adopt(out$[{i}])" for i, o in enumerate(p.outputs))
        out.append(f"    return new {p.result_class}({vals});")
    out.append("  }")
    out.append("")


def emit_java(ops: List[Op], package: str = "org.ndrt", class_name: str = "Ops") -> str:
    plans = _plan_java(ops)
    o: List[str] = []
    o.append("// GENERATED by bindings/gen_ops.py from ndrt_op_describe of the libndrt built with it.")
    o.append("// Do not edit: add or change ops in runtime/ops/ and rebuild.")
    o.append(f"package {package};")
    o.append("")
    o.append("import org.ndrt.capi.NdrtC;")
    o.append("")
    o.append("/**")
    o.append(" * One static method per op registered in the runtime, generated at build time from the")
    o.append(" * registry's descriptions ({@code ndrt_op_describe}).")
    o.append(" *")
    o.append(" * <p>Each op has overloads that stop after any attribute (the rest take the registry's")
    o.append(" * defaults) and return outputs allocated by the runtime, and one overload taking every")
    o.append(" * attribute and the output tensors to write (a {@code null} output is allocated). Ops run on")
    o.append(" * the calling thread's current device ({@link Device#current()}); failures throw an")
    o.append(" * {@link NdrtException} subclass carrying the runtime's message.")
    o.append(" *")
    o.append(f" * <p>Ops when generated ({len(ops)}): " + ", ".join(_javadoc_text(op.name) for op in ops) + ".")
    o.append(" */")
    o.append(f"public final class {class_name} {{")
    o.append(f"  private {class_name}() {{}}")
    o.append("")
    o.append("  /** Names of the ops this class was generated for, in registry order. */")
    o.append("  public static final java.util.List<String> GENERATED_OPS = java.util.List.of(")
    o.append("      " + ",\n      ".join(_java_string(op.name) for op in ops) + ");")
    o.append("")
    for p in plans:
        o.append(f"  private static final int {p.const} = opId({_java_string(p.op.name)});")
    o.append("")
    o.append("  /** The id of an op in the loaded runtime, or -1 when it has no op of that name. */")
    o.append("  static int opId(String name) {")
    o.append("    try {")
    o.append("      return NdrtC.op_find(name);")
    o.append("    } catch (NdrtException e) {")
    o.append("      return -1;")
    o.append("    }")
    o.append("  }")
    o.append("")
    o.append("  static void exec(int id, String name, long[] in, long[] out, long[] ints, double[] floats) {")
    o.append("    if (id < 0) {")
    o.append("      throw new InvalidArgumentException(205, \"op '\" + name + \"' is not registered in the loaded \"")
    o.append("          + \"ndrt library (the Java classes were generated from another build)\");")
    o.append("    }")
    o.append("    NdrtC.exec(id, in, out, ints, floats);")
    o.append("  }")
    o.append("")
    o.append("  static long execSmall(int id, String name, int n, long i0, long i1, long i2, long i3, long out) {")
    o.append("    if (id < 0) {")
    o.append("      throw new InvalidArgumentException(205, \"op '\" + name + \"' is not registered in the loaded \"")
    o.append("          + \"ndrt library (the Java classes were generated from another build)\");")
    o.append("    }")
    o.append("    return NdrtC.exec_small(id, n, i0, i1, i2, i3, out);")
    o.append("  }")
    o.append("")
    for p in plans:
        if p.result_class:
            fields = p.outputs
            o.append(f"  /** Outputs of {{@code {_javadoc_text(p.op.name)}}}; closing it closes every output. */")
            o.append(f"  public static final class {p.result_class} implements AutoCloseable {{")
            for f_, name in zip(fields, p.op.outputs):
                o.append(f"    /** Output <code>{_javadoc_text(name)}</code>. */")
                o.append(f"    public final Tensor {f_};")
            o.append("")
            o.append(f"    {p.result_class}({', '.join('Tensor ' + f_ for f_ in fields)}) {{")
            for f_ in fields:
                o.append(f"      this.{f_} = {f_};")
            o.append("    }")
            o.append("")
            o.append("    /** The outputs in the op's order. */")
            o.append(f"    public Tensor[] toArray() {{ return new Tensor[] {{{', '.join(fields)}}}; }}")
            o.append("")
            o.append("    @Override")
            o.append("    public void close() {")
            for f_ in fields:
                o.append(f"      {f_}.close();")
            o.append("    }")
            o.append("  }")
            o.append("")
    for p in plans:
        if p.attrs_class:
            _emit_attrs_class(p, o)
    for p in plans:
        _emit_java_op(p, o)
    o.append("}")
    return "\n".join(o) + "\n"


def _write_if_changed(path: str, text: str) -> None:
    """Write only when the content differs, so that a rebuilt library with the same registry does
    not force the Java sources to recompile."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--lib", help="path of the libndrt shared library to describe")
    src.add_argument("--from-json", help="a file written with --json instead of a library")
    ap.add_argument("--json", help="write the registry's descriptions as JSON here")
    ap.add_argument("--java", help="write the Java Ops class here")
    ap.add_argument("--java-package", default="org.ndrt")
    ap.add_argument("--java-class", default="Ops")
    ap.add_argument("--stamp", help="touch this file when done (for build systems)")
    args = ap.parse_args(argv)
    try:
        if args.lib:
            lib = ctypes.CDLL(os.path.abspath(args.lib))
            raw = describe_json(lib)
            ops = [op_from_json(j, i) for i, j in enumerate(raw)]
        else:
            ops = load_ops_json(args.from_json)
            raw = [op.raw for op in ops]
        if args.json:
            _write_if_changed(args.json, json.dumps({"ops": raw}, indent=1) + "\n")
        if args.java:
            _write_if_changed(args.java, emit_java(ops, args.java_package, args.java_class))
        if args.stamp:
            with open(args.stamp, "w", encoding="utf-8") as f:
                f.write(f"{len(ops)} ops\n")
    except GenError as e:
        print(f"gen_ops: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
