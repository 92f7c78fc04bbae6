"""The sandbox for templates from ``--templates DIR``: no reach into Python, and bounded time and size.

jinja2's ``SandboxedEnvironment`` keeps a template away from Python's internals and caps ``range``, but
a template can still ask for a string of a billion characters (``'x' * 10**9``, ``s ~ s`` in a loop,
``'x'.center(10**9)``, a ``%`` format with a huge width), a number of millions of digits
(``10 ** 10**8``), or loop for hours. Here every such value is refused before it is made, and the
whole rendering has a time budget and an output bound; either ends it with a ``TemplateError``.
"""

from __future__ import annotations

import functools
import math
import os
import re
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import Concat
from jinja2.sandbox import SandboxedEnvironment, SecurityError

#: The most characters (or items) one value a template makes may have.
MAX_VALUE_SIZE = 4_000_000
#: The most characters one rendered template may have.
MAX_OUTPUT = 64_000_000
#: The largest int a template may pass to a call or a sizing filter (a width, a count).
MAX_ARGUMENT = 1_000_000
#: The most bits a number a template computes may have.
MAX_NUMBER_BITS = 100_000
#: Bytes of memory a rendering may take beyond what the process holds (what the bounds above miss:
#: a join or replace of large values, a set-block of many).
RENDER_MEMORY = 2 << 30
#: Seconds one template may take to render (the bundled chapter of 16k entries takes a few).
RENDER_SECONDS = 30.0

# Filters whose int arguments size what they make.
_SIZING_FILTERS = ("center", "indent", "truncate", "wordwrap", "batch", "slice", "format")
# A width or precision of seven digits or more in a format string: "%0999999999d", "{:>999999999}".
_HUGE_WIDTH = re.compile(r"\d{7,}")


class TemplateTooSlow(Exception):
    """The rendering passed its time budget."""


class ValueTooLarge(SecurityError):
    """A template asked for a value larger than the bounds allow."""


def _size(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple) else 0


def _check_arguments(args: Iterable[Any], format_string: bool = False) -> None:
    for value in args:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_ARGUMENT:
            raise ValueTooLarge(f"a number argument over {MAX_ARGUMENT:,} is refused in a template")
        if isinstance(value, str) and (format_string or "%" in value) and _HUGE_WIDTH.search(value):
            raise ValueTooLarge("a format width or precision of seven digits or more is refused in a template")


def _checked_product(left: Any, right: Any) -> None:
    for sequence, count in ((left, right), (right, left)):
        if _size(sequence) and isinstance(count, int) and _size(sequence) * max(count, 0) > MAX_VALUE_SIZE:
            raise ValueTooLarge(f"a repeated value of more than {MAX_VALUE_SIZE:,} items is refused in a template")


def _checked_power(base: Any, exponent: Any) -> None:
    big = isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1 and exponent > 0
    if big and exponent * math.log2(abs(base)) > MAX_NUMBER_BITS:
        raise ValueTooLarge(f"a number of more than {MAX_NUMBER_BITS:,} bits is refused in a template")


def bounded_join(pieces: Iterable[Any]) -> str:
    """``~`` (jinja2's ``str_join``), refusing a result longer than MAX_VALUE_SIZE."""
    text = "".join(map(str, pieces))
    if len(text) > MAX_VALUE_SIZE:
        raise ValueTooLarge(f"a string of more than {MAX_VALUE_SIZE:,} characters is refused in a template")
    return text


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles ``a ~ b`` to the environment's bounded join (jinja2 offers no hook for it)."""

    def visit_Concat(self, node: Concat, frame: Frame) -> None:
        self.write("environment.bounded_join((")
        for argument in node.nodes:
            self.visit(argument, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(SandboxedEnvironment):
    """jinja2's sandbox, with every value a template makes bounded in size (see the module's docstring)."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.bounded_join = bounded_join

    def bound_filters(self) -> None:
        """Wrap the filters whose arguments size their result (call once all filters are in place)."""
        for name in _SIZING_FILTERS:
            if name in self.filters:
                self.filters[name] = _with_checked_arguments(self.filters[name])

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        if operator_name == "*":
            _checked_product(left, right)
        elif operator_name == "**":
            _checked_power(left, right)
        elif operator_name == "+" and _size(left) + _size(right) > MAX_VALUE_SIZE:
            raise ValueTooLarge(f"a value of more than {MAX_VALUE_SIZE:,} items is refused in a template")
        elif operator_name == "%" and isinstance(left, str):
            _check_arguments([left, *(right if isinstance(right, tuple) else [right])], format_string=True)
        return super().call_binop(context, operator_name, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (jinja2's signature)
        _check_arguments([*args, *kwargs.values()])
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        _check_arguments([getattr(value, "__self__", "")], format_string=True)
        return wrapped


def _with_checked_arguments(function: Any) -> Any:
    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        _check_arguments([*args, *kwargs.values()])
        return function(*args, **kwargs)

    return checked


def bounded_output(pieces: Iterator[str]) -> str:
    """The rendered text, refused once it passes MAX_OUTPUT characters."""
    kept: list[str] = []
    size = 0
    for piece in pieces:
        size += len(piece)
        if size > MAX_OUTPUT:
            raise ValueTooLarge(f"a template's output of more than {MAX_OUTPUT:,} characters is refused")
        kept.append(piece)
    return "".join(kept)


def _address_space() -> int | None:
    """Bytes of address space this process holds (Linux), or None where that cannot be told."""
    try:
        with open("/proc/self/statm", encoding="ascii") as stream:
            pages = int(stream.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def memory_budget(extra: int) -> Iterator[None]:
    """Allocations past ``extra`` more bytes fail with MemoryError here (an address-space limit, put back after)."""
    try:
        import resource
    except ImportError:  # not POSIX: the size bounds still hold
        yield
        return
    used = _address_space()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = None if used is None else used + extra
    unlimited = resource.RLIM_INFINITY
    if limit is None or (soft != unlimited and soft <= limit) or (hard != unlimited and hard < limit):
        yield  # a tighter limit is already set, or none can be computed
        return
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Raise TemplateTooSlow in the code running here once ``seconds`` have passed.

    A timer signal interrupts the template's Python code between two steps, however it loops. It works
    in the main thread only (where surveytool renders); elsewhere the size bounds still hold.
    """
    usable = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0]:  # a timer someone else set is left alone
        yield
        return
    started = time.monotonic()

    def expire(signum: int, frame: Any) -> None:
        raise TemplateTooSlow(
            f"rendering took longer than {seconds:g} s (stopped after {time.monotonic() - started:.1f} s)"
        )

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
