"""Optional compiled kernels (the ``fast`` extra, numba): imported once, on first use.

Each compiled route of the numeric core (the fused split RoPE kernel, the 16-bit RoPE
kernels, the accurate sin/cos loop) is an :class:`OptionalKernel`. Its module is imported
the first time a call could use it, never at package import (importing numba costs ~0.2 s
and loading a kernel ~0.25 s). If the import fails for any reason (numba absent, a numba
built for another NumPy, no writable cache directory), the NumPy route runs instead, with
the same results, and the reason is kept in :attr:`OptionalKernel.unavailable`. The first
attempt decides for the life of the process.

Each module keeps its own switch ``FUSED``: ``None`` (the compiled route where it imports,
for large calls, and for medium ones once a large call has imported it), ``False`` (always
NumPy) or ``True`` (always compiled: an ``ImportError`` naming the reason when it cannot be
imported). :meth:`OptionalKernel.route` reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["OptionalKernel"]


class OptionalKernel:
    """A compiled kernel that may be unavailable, imported once on first use.

    Parameters
    ----------
    what : str
        What it is, for the error when it is required but cannot be imported (e.g. ``"the
        fused split kernel"``).
    load : callable
        Imports and returns the kernel (a function or a module). Any exception it raises
        means "unavailable".

    Examples
    --------
    >>> def load():
    ...     raise ImportError("No module named 'numba'")
    >>> k = OptionalKernel("an example kernel", load)
    >>> k.route(None), k.unavailable
    ('numpy', "ImportError: No module named 'numba'")
    >>> k.route(True)
    Traceback (most recent call last):
    ...
    ImportError: an example kernel cannot be used: ImportError: No module named 'numba'
    """

    def __init__(self, what: str, load: Callable[[], Any]) -> None:
        self.what = what
        self._load = load
        self._kernel: Any = None
        self._tried = False
        #: Why the kernel could not be imported ("" while it could, or was not tried yet).
        self.unavailable = ""

    def get(self) -> Any:
        """The kernel, imported on the first call; ``None`` when it cannot be imported."""
        if not self._tried:
            self._tried = True
            try:
                self._kernel = self._load()
            except Exception as e:  # ImportError; a numba built for another NumPy; no cache dir
                self.unavailable = f"{type(e).__name__}: {e}"
        return self._kernel

    @property
    def loaded(self) -> bool:
        """Whether the kernel has been imported already (so that using it costs nothing more)."""
        return self._kernel is not None

    def route(self, fused: bool | None) -> str:
        """``"numba"`` when the switch ``fused`` allows the compiled route and it imports,
        else ``"numpy"``; an ``ImportError`` when ``fused`` is ``True`` and it does not."""
        if fused is False:
            return "numpy"
        if self.get() is None:
            if fused:
                raise ImportError(f"{self.what} cannot be used: {self.unavailable}")
            return "numpy"
        return "numba"

    def wanted(self, fused: bool | None, large: bool, medium: bool = False) -> bool:
        """Whether a call takes the compiled route: ``fused`` when it is set, else whether
        the call is ``large`` enough to be worth importing the kernel, or ``medium`` (large
        enough to gain from it) and the kernel imported already; and it imports."""
        if fused is None and medium and self.loaded:
            return True
        if not (large if fused is None else fused):
            return False
        return self.route(fused) == "numba"
