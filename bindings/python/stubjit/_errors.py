"""stubjit's errors: one class per C++ error (include/stubjit/error.hpp), each carrying
the same details as attributes. Catch ``stubjit.Error`` for all of them."""


class Error(Exception):
    """Any failure stubjit reports."""


class DomainError(Error):
    """An invalid compute domain. ``dimension``: the dimension at fault, -1 for the
    domain as a whole."""

    dimension = -1


class SignatureError(Error):
    """An invalid kernel description: a name that is not an identifier, a duplicate
    parameter, a pattern the signature cannot have."""


class ArgumentError(Error):
    """An argument that does not match its parameter. ``parameter``: its name ("" when
    the number of arguments is wrong)."""

    parameter = ""


class AliasError(ArgumentError):
    """A writable field bound to two parameters of one launch: ``parameter`` and
    ``other_parameter``."""

    other_parameter = ""


class PlanError(Error):
    """A domain the device's limits cannot cover, or a forced mode that cannot.
    ``limit``: the limit's name (e.g. "max_grid[y]"); ``limit_value``: its value."""

    limit = ""
    limit_value = 0


class CompileError(Error):
    """The run-time compiler refused the kernel's stub. ``log``: the compiler's output,
    lines of the body reported as ``<kernel>.body:<line>:<col>``; ``kernel``: its name;
    ``source``: the whole generated source."""

    kernel = ""
    log = ""
    source = ""


class BackendError(Error):
    """A backend that cannot be selected, loaded or driven."""


class LaunchError(BackendError):
    """A dispatch that failed after ``issued`` of the launch's ``total`` were issued."""

    issued = 0
    total = 0


class FieldError(Error):
    """Misuse of a field: a copy of the wrong size, a view out of bounds, an array
    whose strides are not whole elements."""
