"""stubjit: run-time kernel specialization for Python.

Describe what to compute, a kernel's signature and body, and launch it over a domain
on numpy arrays (wrapped without copying on the CPU backend)::

    import numpy as np, stubjit
    rt = stubjit.Runtime()
    saxpy = rt.kernel("saxpy", [stubjit.scalar("a", np.float32), stubjit.in_("x", np.float32),
                                stubjit.inout("y", np.float32)], "y = a * x + y;")
    saxpy(y.shape, 2.0, x, y)

Errors are subclasses of stubjit.Error carrying the details of the C++ error
(ArgumentError.parameter, PlanError.limit, CompileError.log, ...). docs/python.md has
the rest.
"""

from ._errors import (AliasError, ArgumentError, BackendError, CompileError, DomainError,
                      Error, FieldError, LaunchError, PlanError, SignatureError)
from ._stubjit import (Domain, Field, Kernel, LaunchSummary, Param, Plan, Runtime, Stream,
                       group, in_, index, inout, local_index, mask, payload, probe_backends,
                       result, scalar, scan, shared, sort, specialized, tile_index)

__all__ = [
    "AliasError", "ArgumentError", "BackendError", "CompileError", "DomainError", "Error",
    "FieldError", "LaunchError", "PlanError", "SignatureError", "Domain", "Field", "Kernel",
    "LaunchSummary", "Param", "Plan", "Runtime", "Stream", "group", "in_", "index", "inout",
    "local_index", "mask", "payload", "probe_backends", "result", "scalar", "scan", "shared",
    "sort", "specialized", "tile_index",
]
