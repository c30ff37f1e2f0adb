r"""The ``pe_symbolic-torch`` and ``pe_symbolic-jax`` rows: the package's own tensor
backends (:mod:`pe_symbolic.torch`, :mod:`pe_symbolic.jax`) measured for real.

For these two presets the audit runs the backend's public functions on the positions of
each band: :func:`pe_symbolic.torch.rope_cos_sin` (the tables, in float32 as
:func:`~pe_symbolic.torch.apply_rope` uses them) and :func:`~pe_symbolic.torch.apply_rope`
(the rotation of the audit's unit pairs in the activation dtype), with the model config's
frequencies. The angle measured is the one the backend feeds to ``cos``: the float64
product of the float64 positions and the frequencies of the plan (the operation of the
lowered ``cos(m*theta)``). The bound beside the measurement takes those frequencies.

With JAX's default (x64 off) the tables are the NumPy core's (angle addition from
double-double angles), and the angle column reports those as 0, as the ``pe_symbolic``
row does.

Where the framework is not installed the row is the NumPy emulation of the recipe (a
float64 product of float64 frequencies), and its note says so. JAX runs with its default
(x64 off): the tables are then the NumPy core's, through ``jax.pure_callback``; with
x64 on, the lowered float64 formulas (the note says which).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .emulate import Chunk, Emulation
from .measure import RecipeAudit, measure

__all__ = ["BACKEND_PRESETS", "measure_backend"]

#: Presets measured through the package's own tensor backends: preset name -> framework.
BACKEND_PRESETS = {"pe_symbolic-torch": "torch", "pe_symbolic-jax": "jax"}


def _framework(name: str):
    """The backend module and a version note, or ``None`` when the framework is absent."""
    try:
        if BACKEND_PRESETS[name] == "torch":
            import torch

            from .. import torch as backend

            return backend, f"torch {torch.__version__}"
        import jax

        from .. import jax as backend

        route = "x64: lowered float64 tables" if backend.x64_enabled() else \
            "x64 off: the NumPy core's tables through jax.pure_callback"
        return backend, f"jax {jax.__version__} ({route})"
    except ImportError:
        return None


class _Chunker:
    def __init__(self, em: Emulation, context: int, backend: Any, framework: str, device: str) -> None:
        self.em, self.context, self.B, self.fw = em, context, backend, framework
        tg = em.target
        self.h = tg.pairs
        self.kw = dict(config=tg.spec, seq_len=tg.seq_len)
        from ..numeric._frontend import table_plan

        self.plan = table_plan(d=None, **self.kw)
        self.device = device
        if framework == "torch":
            import torch

            self.T = torch
            self.act = getattr(torch, em.act)
        else:
            import jax.numpy as jnp

            self.T = jnp
            self.act = jnp.dtype(em.act)

    def used_inv_freq(self) -> np.ndarray:
        return np.asarray(self.plan.w, dtype=np.float64)

    def _tensor(self, arr: np.ndarray, dtype: Any):
        if self.fw == "torch":
            return self.T.tensor(arr, dtype=dtype, device=self.device)
        return self.T.asarray(arr).astype(dtype)

    def _numpy(self, v: Any) -> np.ndarray:
        if self.fw == "torch":
            return v.detach().to("cpu", self.T.float64).numpy()
        return np.asarray(v, dtype=np.float64)

    def __call__(self, t: np.ndarray) -> Chunk:
        with np.errstate(over="ignore", invalid="ignore"):
            return self._chunk(t)

    def _pairs(self, x_pairs, pos):
        """The unit pairs rotated by the backend's apply_rope in the activation dtype."""
        P, h = pos.shape[0], self.h
        x = np.concatenate([x_pairs[0], x_pairs[1]]).reshape(1, 2 * h)
        xt = self._tensor(np.broadcast_to(x, (P, 2 * h)).copy(), self.act)
        out = self._numpy(self.B.apply_rope(xt, positions=pos, **self.kw))
        return out[:, :h], out[:, h:]

    def _chunk(self, t: np.ndarray) -> Chunk:
        em, tg, h = self.em, self.em.target, self.h
        P = t.size
        ext = em.extended(t, self.context)
        if self.fw == "torch":
            pos = self.T.tensor(ext.astype(np.int64), device=self.device)
        else:
            pos = self.T.asarray(ext.astype(np.int64 if self.B.x64_enabled() else np.int32))
        p, e = em.exact_angles(ext)
        if self.fw == "jax" and not self.B.x64_enabled():
            # the NumPy core's tables (pure_callback): its angles are double-doubles, exact
            # to < 2**-100 relative, reported as 0 as the emulation's pe_symbolic row does
            angle_err = np.zeros((ext.size, h))
        else:
            # the angle as fed to cos: float64 positions times the plan's float64 frequencies
            ang = ext.astype(np.float64)[:, None] * self.used_inv_freq()[None, :]
            angle_err = np.abs((ang - p) - e)
        table_dtype = self.T.float32
        c, s = self.B.rope_cos_sin(pos, layout="split", dtype=table_dtype, **self.kw)
        c, s = self._numpy(c)[:, :h], self._numpy(s)[:, :h]
        cx, sx = tg.exact_cos_sin(ext)
        table_err = np.maximum(np.abs(c - cx), np.abs(s - sx))
        out, score = em.rotation_errors(P, self._pairs(em.q, pos), self._pairs(em.k, pos), cx, sx)
        return Chunk(t, angle_err[:P], table_err[:P], out, score)


def measure_backend(em: Emulation, context: int, *, device: str = "cpu", exhaustive: bool | None = None,
                    progress: Callable[[int, int], None] | None = None) -> RecipeAudit:
    """:func:`~pe_symbolic.audit.measure.measure` with the package's torch or JAX backend
    computing the values (the emulation, with a note, where the framework is absent)."""
    name = em.recipe.name
    if em.target.kind != "rope":
        raise ValueError(f"recipe {name!r} is RoPE (pe_symbolic.{BACKEND_PRESETS[name]}.apply_rope); "
                         "the target is a sinusoidal table")
    found = _framework(name)
    if found is None:
        res = measure(em, context, exhaustive=exhaustive, progress=progress)
        res.note = "; ".join(x for x in (f"{BACKEND_PRESETS[name]} not installed: emulated in NumPy", res.note) if x)
        return res
    backend, version = found
    fw = BACKEND_PRESETS[name]
    chunker = _Chunker(em, context, backend, fw, device if fw == "torch" else "cpu")
    em.set_inv(chunker.used_inv_freq())  # the bound takes the backend's own frequencies
    res = measure(em, context, exhaustive=exhaustive, chunker=chunker, progress=progress)
    res.backend = f"pe_symbolic.{fw}-{device if fw == 'torch' else 'cpu'}"
    res.note = "; ".join(x for x in (version, res.note) if x)
    return res
