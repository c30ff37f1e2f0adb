"""The SymPy constructions (this layer imports SymPy only).

* :mod:`~pe_symbolic.encodings.symbols`: the canonical symbols and their assumptions;
* :mod:`~pe_symbolic.encodings.rot2`: the one primitive, the 2x2 rotation, and the layouts
  that place its blocks;
* :mod:`~pe_symbolic.encodings.sinusoidal`: PE(t), the frequency schedules, T(k) and the
  layout permutation;
* :mod:`~pe_symbolic.encodings.rope`: R(m) and the elementwise (``rotate_half``) form.
"""

from __future__ import annotations

from . import rope, rot2, sinusoidal, symbols

__all__ = ["rope", "rot2", "sinusoidal", "symbols"]
