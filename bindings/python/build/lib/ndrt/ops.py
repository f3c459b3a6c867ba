"""One function per op of the runtime's registry, generated at import from ndrt_op_describe.

    ndrt.ops.add(a, b)                 # new output
    ndrt.ops.add(a, b, out=c)          # given output
    ndrt.ops.sum(x, axes=(0, 2), keepdims=True)

help(ndrt.ops.<name>) shows the registry's doc, inputs, outputs, attributes with defaults and the
kernels per backend. ndrt.op_names(), ndrt.describe_op(name) and ndrt.call_op(name, ...) reach ops
by their registry name.
"""
from ._opgen import populate as _populate

_infos = _populate(globals())


def __getattr__(name):
    raise AttributeError("ndrt.ops has no op %r; the runtime registers: %s" % (name, ", ".join(sorted(_infos))))
