"""numeric.lower printing for torch and JAX (and NumPy): the printer gaps found while
planning are closed, dtypes are kept, and only the listed targets are accepted."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from pe_symbolic.numeric import lower

x = sp.Symbol("x", real=True)
i = sp.Symbol("i", integer=True)
# every gap at once: an irrational constant (sqrt(2), log(10), pi), Max and Min against
# constants, KroneckerDelta
EXPR = sp.sqrt(2) * sp.Max(x, 1) + sp.log(10) + sp.KroneckerDelta(i, 2) + sp.Min(x, sp.pi)
XS, IS = [0.5, 3.0, 4.0], [2, 1, 2]


def _want():
    f = sp.lambdify((x, i), EXPR, modules="mpmath")
    return np.array([float(f(a, b)) for a, b in zip(XS, IS)])


def test_numpy_keeps_float32_and_evaluates_every_gap():
    f = lower.lower("translation.identity", EXPR, (x, i))
    got = f(np.array(XS, np.float32), np.array(IS))
    assert got.dtype == np.float32  # sqrt(2) as a float64 scalar would promote it
    np.testing.assert_allclose(got, _want(), rtol=1e-6)
    assert "sqrt" not in f.__code__.co_names  # printed as a literal


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_torch(dtype):
    torch = pytest.importorskip("torch")
    f = lower.lower("translation.identity", EXPR, (x, i), modules="torch")
    got = f(torch.tensor(XS, dtype=getattr(torch, dtype)), torch.tensor(IS))
    assert got.dtype == getattr(torch, dtype)
    np.testing.assert_allclose(got.double().numpy(), _want(), rtol={"bfloat16": 2e-2}.get(dtype, 1e-6))
    # plain numbers too (Max / Min / KroneckerDelta of Python scalars)
    assert float(f(2.0, 2)) == pytest.approx(float(EXPR.subs({x: 2, i: 2})), rel=1e-15)


def test_jax():
    pytest.importorskip("jax")
    import jax.numpy as jnp

    f = lower.lower("translation.identity", EXPR, (x, i), modules="jax")
    got = f(jnp.asarray(XS, jnp.float32), jnp.asarray(IS))
    assert got.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(got), _want(), rtol=1e-6)


def test_targets_are_listed_and_mpmath_keeps_exact_constants():
    with pytest.raises(ValueError, match="modules='tensorflow' is not allowed; use one of 'numpy', 'mpmath', 'torch', 'jax'"):
        lower.lower("translation.identity", x, (x,), modules="tensorflow")
    with pytest.raises(ValueError, match="modules='mpmath' is not allowed"):
        lower.rope_pair("mpmath")
    import mpmath

    f = lower.lower("translation.identity", sp.sqrt(2) * x, (x,), modules="mpmath")
    with mpmath.workdps(40):
        assert abs(f(mpmath.mpf(1)) - mpmath.sqrt(2)) < mpmath.mpf(10) ** -38
