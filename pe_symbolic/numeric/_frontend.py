"""What the torch and JAX backends share with the NumPy core: the frequency plan, as plain
Python values, and the argument checks that do not look at tensor values.

:func:`table_plan` resolves the frequency keywords (``base``, ``config=``, ``inv_freq=``,
M-RoPE sections, attention factor) exactly as :func:`pe_symbolic.numeric.apply_rope` does
(through :func:`~pe_symbolic.numeric._rope_plan.frequency_plan`), and returns a
:class:`TablePlan` of Python floats and ints: hashable, so the backends can cache it, and a
constant to ``torch.compile`` and ``jax.jit`` (its values are baked into the graph).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import check_layout

__all__ = ["TablePlan", "needs_length", "table_plan", "table_plan_sinusoidal"]


@dataclass(frozen=True)
class TablePlan:
    """Frequencies (float64, each rounded once from its 40-digit value), rotary dim, M-RoPE
    pair axes (``None``: one position axis), attention factor (multiplies both tables)."""

    w: tuple[float, ...]
    rotary_dim: int
    axes: tuple[int, ...] | None
    attention: float

    @property
    def h(self) -> int:
        """Pairs: ``rotary_dim // 2``."""
        return self.rotary_dim // 2

    @property
    def n_axes(self) -> int:
        """Position axes the positions carry: 3 for M-RoPE, else 1."""
        return 1 if self.axes is None else 3


def _hashable(v: Any) -> Any:
    if isinstance(v, Mapping):
        return ("__map__", tuple(sorted((str(k), _hashable(x)) for k, x in v.items())))
    if isinstance(v, (list, tuple)):
        return ("__seq__", tuple(_hashable(x) for x in v))
    if isinstance(v, np.ndarray):
        return ("__arr__", v.dtype.str, v.shape, v.tobytes())
    return v


def needs_length(config: Any, inv_freq: Any, layer_type: str | None, seq_len: Any) -> bool:
    """Whether the plan needs the current length from the positions (``dynamic`` and
    ``longrope`` configs without ``seq_len=``)."""
    from .rope import _config_and_length

    if config is None or inv_freq is not None or seq_len is not None:
        return False
    spec, n = _config_and_length(config, inv_freq, layer_type, seq_len, lambda: np.zeros(1))
    return n is not None


def table_plan(*, d: int | None, base: Any = 10000.0, rotary_dim: int | None = None,
               config: Mapping[str, Any] | None = None, inv_freq: Any = None,
               layer_type: str | None = None, seq_len: int | None = None,
               mrope_section: Sequence[int] | None = None, mrope_interleaved: bool = False,
               attention_factor: float | None = None) -> TablePlan:
    """The :class:`TablePlan` of the RoPE keywords (as in :func:`pe_symbolic.numeric.apply_rope`).

    ``seq_len`` must be given for ``dynamic`` / ``longrope`` configs (the backends read it
    from the positions first, see :func:`needs_length`).

    >>> p = table_plan(d=4, base=100.0)
    >>> p.w, p.rotary_dim, p.axes, p.attention
    ((1.0, 0.1), 4, None, 1.0)
    """
    key = tuple(_hashable(v) for v in (d, base, rotary_dim, config, inv_freq, layer_type, seq_len,
                                       mrope_section, mrope_interleaved, attention_factor))
    try:
        hash(key)
    except TypeError:
        key = None
    if key is not None:
        return _cached_plan(key, lambda: _plan(d, base, rotary_dim, config, inv_freq, layer_type, seq_len,
                                               mrope_section, mrope_interleaved, attention_factor))
    return _plan(d, base, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section,
                 mrope_interleaved, attention_factor)


_PLANS: dict[Any, TablePlan] = {}


def _cached_plan(key: Any, make: Callable[[], TablePlan]) -> TablePlan:
    plan = _PLANS.get(key)
    if plan is None:
        plan = make()
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _plan(d, base, rotary_dim, config, inv_freq, layer_type, seq_len, mrope_section,
          mrope_interleaved, attention_factor) -> TablePlan:
    from ._rope_plan import frequency_plan
    from .rope import _config_and_length

    config, seq_len = _config_and_length(config, inv_freq, layer_type, seq_len, lambda: None)
    fp = frequency_plan(d=d, base=base, rotary_dim=rotary_dim, config=config, inv_freq=inv_freq,
                        layer_type=layer_type, seq_len=seq_len, mrope_section=mrope_section,
                        mrope_interleaved=mrope_interleaved, attention_factor=attention_factor)
    return TablePlan(tuple(float(v) for v in fp.w_hi), int(fp.rotary_dim),
                     None if fp.axes is None else tuple(int(a) for a in fp.axes), float(fp.attention))


@functools.lru_cache(maxsize=128)
def table_plan_sinusoidal(d: int, base: float, schedule: str) -> TablePlan:
    """The plan of a sinusoidal table (:func:`pe_symbolic.numeric.sinusoidal_table`'s keywords).

    >>> table_plan_sinusoidal(6, 100.0, "tensor2tensor").w
    (1.0, 0.1, 0.01)
    """
    from ._checks import check_numeric_d
    from ._core import _check_numeric_base, _omega_dd

    d = check_numeric_d(d)
    hi, _ = _omega_dd(d, _check_numeric_base(base), schedule)
    return TablePlan(tuple(float(v) for v in hi), d, None, 1.0)


def slot_order(layout: str) -> str:
    """``layout`` checked (``"split"`` or ``"interleaved"``)."""
    return check_layout(layout)


def rope_shape_error(pos_shape: tuple[int, ...], lead: tuple[int, ...], name: str) -> str | None:
    """Why positions of shape ``pos_shape`` cannot rotate ``x`` with ``x.shape[:-1] == lead``, or ``None``."""
    try:
        b = np.broadcast_shapes(pos_shape, lead)
    except ValueError:
        return f"positions of shape {pos_shape} do not broadcast against {name} = {lead}"
    if b != lead:
        return (f"positions of shape {pos_shape} broadcast against {name} = {lead} to {b}; "
                "positions must not enlarge x")
    return None
