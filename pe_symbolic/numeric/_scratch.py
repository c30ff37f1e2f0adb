"""Scratch memory kept between calls, one set of buffers per thread.

The kernels' temporaries (phasor tables of a block of positions, the rounded float tables,
the split layout's swapped copy, the accurate route's workspace) are a few MiB and the same
sizes call after call. Allocated fresh each call they cost more than the arithmetic that
fills them: memory that the allocator takes from the kernel is zero pages, and the first
write to each 4 KiB page faults (measured on the 2-CPU EPYC VM, one head of 4096 x 128
float64: filling a fresh 2 MiB phasor table took 1.28 ms against 0.27 ms for the same table
in memory used before, and a whole ``apply_rope`` call 3.8 ms against 1.6 ms with the
buffers kept). So each temporary comes from a named buffer of the calling thread, grown when
a call needs more and kept for the next call.

Sound use: a scratch array is private to one call of one thread; no result handed to the
caller is, or views, a scratch array (the kernels write their results into ``out``). Two
temporaries alive at once use two names. Buffers above :data:`KEEP_BYTES` are not kept.
"""

from __future__ import annotations

import math
import threading

import numpy as np

__all__ = ["KEEP_BYTES", "scratch"]

#: A scratch buffer larger than this is allocated for the call that needs it and not kept
#: (the kernels' own temporaries stay far below: tables of at most 8 MiB, groups of 0.5 MiB).
KEEP_BYTES = 32 * 1024 * 1024

_local = threading.local()


def scratch(name: str, shape: tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    """An uninitialised C-contiguous array from the calling thread's buffer ``name``.

    Parameters
    ----------
    name : str
        Which buffer: temporaries alive at the same time need different names.
    shape : tuple of int
    dtype : numpy.dtype

    Returns
    -------
    numpy.ndarray
        Of ``shape`` and ``dtype``, aligned for any dtype up to 16 bytes; it is overwritten by
        the next request for ``name`` in the same thread.

    Examples
    --------
    >>> a = scratch("example", (2, 3), np.float64)
    >>> a.shape, a.flags.c_contiguous
    ((2, 3), True)
    >>> b = scratch("example", (4,), np.float32)  # the same memory, reused
    >>> np.shares_memory(a, b)
    True
    """
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    pool = _local.__dict__.setdefault("pool", {})
    buf = pool.get(name)
    if buf is None or buf.nbytes < nbytes:
        buf = np.empty(-(-max(nbytes, 1) // 16), np.complex128).view(np.uint8)
        if buf.nbytes <= KEEP_BYTES:
            pool[name] = buf
    return buf[:nbytes].view(dtype).reshape(shape)
