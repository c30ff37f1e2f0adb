"""torch itself, looked up once at import (torch is optional), and the host-side planning of
:mod:`pe_symbolic.torch`: the frequency plans and the lowered formulas as plain Python values,
constants to ``torch.compile``, and the dtype checks.

What the rest of the package builds on (:mod:`~pe_symbolic.torch._backend`,
:mod:`~pe_symbolic.torch._rotate`); this module imports torch only inside a ``try`` (a
missing torch is said when a function is called).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..numeric import _frontend as F
from ..numeric import lower as _lower


_FLOATS = ("float64", "float32", "float16", "bfloat16")


#: ``[torch, torch.Tensor, torch.compiler.is_compiling]`` (looked up on every call), or
#: empty where torch is not installed. Filled here, at import, never later: a first call
#: inside ``torch.compile`` must not change module state (Dynamo replays what it traced).
_MODULE: list[Any] = []
try:
    import torch as _torch_module
except ImportError:  # (the functions say so when called)
    pass
else:
    _MODULE[:] = [_torch_module, _torch_module.Tensor, _torch_module.compiler.is_compiling]


def _torch():
    if not _MODULE:
        raise ImportError("pe_symbolic.torch needs torch, which is not installed: "
                          "pip install 'pe_symbolic[torch]' (or pip install torch)")
    return _MODULE[0]


def _compiling() -> bool:
    return bool(_torch() and _MODULE[2]())


def _intercepted() -> bool:
    """Whether a torch dispatch mode is active (``make_fx``'s proxy and fake-tensor modes,
    FunctionalTensorMode): the tensors made now are the tracer's (a FakeTensor has no data),
    so no cache is read or written (a cached FakeTensor met a real input in the next eager
    call: ``verify_rope`` traces ``apply_rope`` with ``make_fx`` before it tests it)."""
    return _torch()._C._len_torch_dispatch_stack() > 0


# ----------------------------------------------------------------------------------------
# host-side planning: plain Python values, a constant to torch.compile


def _plan_values(**kw: Any) -> tuple:
    """The frequency plan's values (a tuple of Python numbers): host work (config parsing,
    40-digit frequencies), run once at trace time under ``torch.compile`` and baked into
    the graph as a constant."""
    p = F.table_plan(**kw)
    return (p.w, p.rotary_dim, p.axes, p.attention, p.n_axes)


def _sinusoidal_values(d: int, base: Any, schedule: str) -> tuple:
    """As :func:`_plan_values`, for :func:`sinusoidal_table`."""
    p = F.table_plan_sinusoidal(d, base, schedule)
    return (p.w, p.rotary_dim, p.axes, p.attention)


#: The lowered formulas, fetched through numeric.lower on first use (outside any trace).
_FORMULAS: dict[str, Any] = {}
_GETTERS = {"pair": "rope_pair", "cos_sin": "rope_angle_cos_sin", "sinusoidal": "sinusoidal_pair"}


def _load_formula(name: str) -> bool:
    """Fetch ``numeric.lower``'s formulas (modules="torch") into :data:`_FORMULAS`, all at
    once: under ``torch.compile`` this runs at trace time (a constant), and dynamo reads
    the dict once per trace, so it must hold every formula by then."""
    if name not in _FORMULAS:
        for key, getter in _GETTERS.items():
            _FORMULAS[key] = getattr(_lower, getter)("torch")
    return True


def _formula(name: str) -> Any:
    _load_formula(name)
    return _FORMULAS[name]


def _sinusoidal_plan(d: int, base: Any, schedule: str) -> F.TablePlan:
    return F.TablePlan(*_sinusoidal_values(d, base, schedule))


# What torch.compiler.assume_constant_result(fn) does (it sets this flag and returns fn),
# without importing torch here: dynamo calls these at trace time instead of tracing them.
_plan_values._dynamo_marked_constant = True  # type: ignore[attr-defined]
_load_formula._dynamo_marked_constant = True  # type: ignore[attr-defined]
_sinusoidal_values._dynamo_marked_constant = True  # type: ignore[attr-defined]


def _static(v: Any) -> Any:
    """``v`` with every symbolic number made a plain one. Under dynamic shapes (``dynamic=True``,
    or the automatic dynamic shapes of a recompilation) the head dim and the numbers of a
    config can be symbolic; the frequencies depend on them, so they are fixed (specialized,
    with a guard) before the host plans the frequencies. Mappings, lists and tuples are
    rebuilt; anything else is returned as it is."""
    import operator

    if isinstance(v, int) and not isinstance(v, bool):
        # (under dynamo a symbolic int passes for an int; index() specializes it, int() would not)
        return operator.index(v)
    if isinstance(v, float):
        return float.fromhex(v.hex())  # (exact; specializes a symbolic float, float() would not)
    if isinstance(v, Mapping):
        return {k: _static(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_static(x) for x in v)
    return v


def _check_dtype(dtype: Any, name: str = "dtype"):
    torch = _torch()
    if dtype is None:
        return torch.get_default_dtype()
    if isinstance(dtype, str):
        dtype = getattr(torch, dtype, dtype)
    if not isinstance(dtype, torch.dtype) or str(dtype).removeprefix("torch.") not in _FLOATS:
        raise TypeError(f"{name}={dtype!r} is not allowed; use one of torch.float64, torch.float32, "
                        "torch.float16, torch.bfloat16")
    return dtype


def _float64(t):
    """Positions as float64 (on the CPU for an MPS tensor: MPS has no float64)."""
    torch = _torch()
    return (t.to("cpu") if t.device.type == "mps" else t).to(torch.float64)


def _tensor_type():
    """``torch.Tensor``."""
    return _torch().Tensor
