"""pe_symbolic.jax against the NumPy core: both table routes (x64 off: the NumPy core's
tables through pure_callback; x64 on, in a subprocess: the lowered float64 formulas), jit,
grad, vmap, and the float64 refusal."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import ml_dtypes  # noqa: E402

import pe_symbolic.jax as PJ  # noqa: E402
import pe_symbolic.numeric as N  # noqa: E402

LLAMA = N.model_config("llama-3.1-8b")
pytestmark = pytest.mark.skipif(PJ.x64_enabled(), reason="these tests are for JAX's default (x64 off)")


def _x(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _ids(batch, seq, start=0):
    return np.ascontiguousarray(np.broadcast_to(np.arange(start, start + seq)[None], (batch, seq)))


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.float16])
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_matches_the_numpy_core(dtype, layout):
    x = _x((2, 3, 40, 128), dtype)
    ids = _ids(2, 40, start=9000)
    got = np.asarray(PJ.apply_rope(jnp.asarray(x), jnp.asarray(ids), config=LLAMA, layout=layout))
    want = N.apply_rope(x, position_ids=ids, config=LLAMA, layout=layout)
    assert got.dtype == np.dtype(dtype) and got.shape == x.shape
    if layout == "split":  # the NumPy core's tables, the same operations: the same bits
        np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))
    else:  # NumPy's complex multiply may fuse: within an ulp of the pair's size
        xs = x.astype(np.float64).reshape(2, 3, 40, 64, 2)
        mag = np.repeat(np.abs(xs).sum(-1), 2, axis=-1)
        eps = 2.0 ** -(23 if dtype is np.float32 else (7 if dtype is ml_dtypes.bfloat16 else 10))
        assert (np.abs(got.astype(np.float64) - want.astype(np.float64)) <= 2 * eps * mag).all()


def test_jitted_tables_are_reused_only_for_the_same_positions(monkeypatch):
    """Under jit (x64 off) the host computes the tables once for ids it saw last (every layer
    of a model passes the same ids) and again for any other ids: never stale."""
    from pe_symbolic.numeric import _numpy_backend as rope

    calls = []
    real = rope._rope_cos_sin
    monkeypatch.setattr(rope, "_rope_cos_sin", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    f = jax.jit(lambda x, i: PJ.apply_rope(x, i, config=LLAMA))
    x = _x((2, 2, 24, 128))
    a, b = _ids(2, 24, start=500), _ids(2, 24, start=501)
    b2 = b.copy()
    b2[1, 7] = 0  # one position changed
    for ids, n in ((a, 1), (a, 1), (b, 2), (b2, 3), (b2, 3), (a, 4)):
        got = np.asarray(f(jnp.asarray(x), jnp.asarray(ids)))
        # (XLA may contract a*b - c*d into an FMA under jit: within two ulp; a stale table would
        # be off by up to the whole rotation)
        want = N.apply_rope(x, position_ids=ids, config=LLAMA)
        np.testing.assert_allclose(got, want, rtol=0, atol=2 * 2.0**-23 * np.abs(x).max())
        assert len(calls) == n


def test_tables_are_the_numpy_cores_bit_for_bit():
    ids = _ids(1, 64, start=1_000_000 - 64)
    c, s = PJ.rope_cos_sin(jnp.asarray(ids), config=LLAMA)
    wc, ws = N.rope_cos_sin(ids, config=LLAMA, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(c), wc)
    np.testing.assert_array_equal(np.asarray(s), ws)
    t = PJ.sinusoidal_table(jnp.arange(100), 16, layout="split", order="cos_sin", dtype=jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(t), N.sinusoidal_table(np.arange(100), 16, layout="split",
                                                                    order="cos_sin", dtype=ml_dtypes.bfloat16))


def test_jit_grad_and_vmap():
    x = jnp.asarray(_x((2, 4, 16, 64), seed=2))
    ids = jnp.asarray(_ids(2, 16, start=300))
    f = jax.jit(lambda x, ids: PJ.apply_rope(x, ids, base=500000.0))
    eager = PJ.apply_rope(x, ids, base=500000.0)
    np.testing.assert_allclose(np.asarray(f(x, ids)), np.asarray(eager), rtol=0, atol=4e-7)
    # a rotation keeps norms: the gradient of |R x|^2 is 2x
    g = jax.grad(lambda v: (f(v, ids) ** 2).sum())(x)
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(x), rtol=0, atol=4e-6)
    # gradient against finite differences of one entry (float32: a coarse step)
    def one(v):
        return PJ.apply_rope(v, ids, base=500000.0)[1, 2, 3, 5]
    grad = np.asarray(jax.grad(one)(x))
    h = 1e-2
    for idx in ((1, 2, 3, 5), (1, 2, 3, 37)):  # the entry and its split-layout partner
        e = np.zeros(x.shape, np.float32)
        e[idx] = h
        fd = (float(one(x + e)) - float(one(x - e))) / (2 * h)
        assert abs(fd - grad[idx]) < 1e-3
    vm = jax.vmap(lambda xi, pi: PJ.apply_rope(xi, positions=pi, base=500000.0))(x, ids)
    np.testing.assert_allclose(np.asarray(vm), np.asarray(eager), rtol=0, atol=4e-7)


def test_float64_needs_x64_and_is_refused_without_it():
    with pytest.raises(TypeError, match="jax_enable_x64"):
        PJ.rope_cos_sin(jnp.arange(4), 8, dtype=jnp.float64)
    with pytest.raises(TypeError, match="jax.Array.*pe_symbolic.numeric.apply_rope"):
        PJ.apply_rope(np.ones((1, 2, 4, 8), np.float32), jnp.asarray(_ids(1, 4)))
    with pytest.raises(TypeError, match="pe_symbolic.jax"):
        N.apply_rope(jnp.ones((2, 4)), [0, 1])


def test_dynamic_config_under_jit_asks_for_seq_len():
    cfg = {"rope_theta": 10000.0, "head_dim": 32, "max_position_embeddings": 64,
           "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    x = jnp.asarray(_x((1, 2, 8, 32)))
    ids = jnp.asarray(_ids(1, 8, start=100))
    eager = PJ.apply_rope(x, ids, config=cfg)  # seq_len = max(ids) + 1, read on the host
    np.testing.assert_array_equal(np.asarray(eager), N.apply_rope(np.asarray(x), position_ids=np.asarray(ids), config=cfg))
    with pytest.raises(ValueError, match="pass seq_len="):
        jax.jit(lambda x, ids: PJ.apply_rope(x, ids, config=cfg))(x, ids)
    jitted = jax.jit(lambda x, ids: PJ.apply_rope(x, ids, config=cfg, seq_len=108))(x, ids)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=0, atol=4e-7)


def test_x64_route_in_a_subprocess():
    """With x64 on, the tables are the lowered float64 formulas in the graph, rounded once."""
    code = textwrap.dedent("""
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp, numpy as np, ml_dtypes
        import pe_symbolic.jax as PJ, pe_symbolic.numeric as N
        cfg = N.model_config("llama-3.1-8b")
        rng = np.random.default_rng(0)
        ids = np.broadcast_to(np.arange(5000, 5032)[None], (2, 32)).copy()
        x64 = rng.standard_normal((2, 2, 32, 128))
        got = np.asarray(PJ.apply_rope(jnp.asarray(x64), jnp.asarray(ids), config=cfg))
        want = N.apply_rope(x64, position_ids=ids, config=cfg)
        assert got.dtype == np.float64
        assert np.abs(got - want).max() <= (2**-52 * 5032 * 2 + 1e-15) * np.abs(x64).max() * 2, np.abs(got - want).max()
        x32 = x64.astype(np.float32)
        got = np.asarray(jax.jit(lambda x, i: PJ.apply_rope(x, i, config=cfg))(jnp.asarray(x32), jnp.asarray(ids)))
        want = N.apply_rope(x32, position_ids=ids, config=cfg)
        assert np.abs(got - want).max() <= 4 * 2**-23 * np.abs(x32).max(), np.abs(got - want).max()
        c, s = PJ.rope_cos_sin(jnp.arange(0, 4000, 7), 64, dtype=jnp.bfloat16)
        wc, ws = N.rope_cos_sin(np.arange(0, 4000, 7), 64, dtype=ml_dtypes.bfloat16)
        assert (np.asarray(c) != wc).mean() < 1e-3 and (np.asarray(s) != ws).mean() < 1e-3
        t = PJ.sinusoidal_table(jnp.arange(3000), 32, dtype=jnp.float64)
        assert np.abs(np.asarray(t) - N.sinusoidal_table(np.arange(3000), 32)).max() < 2**-52 * 3000 * 2
        print("ok")
    """)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip().endswith("ok")


def test_fast_path_and_device():
    """Repeated eager calls skip the checks they passed (one kept outcome per key), a changed
    call is checked in full with the cold call's message, and ``device=`` places the tables."""
    PJ._B.fast.clear()
    x, ids = jnp.asarray(_x((2, 2, 6, 128))), jnp.asarray(_ids(2, 6, start=3000))
    first = PJ.apply_rope(x, ids, config=LLAMA)
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(PJ.apply_rope(x, ids, config=LLAMA)), np.asarray(first))
    assert len(PJ._B.fast) == 1
    with pytest.raises(ValueError, match=r"position_ids of shape \(2, 7\) need x of shape"):
        PJ.apply_rope(x, jnp.asarray(_ids(2, 7)), config=LLAMA)
    dev = jax.devices()[0]
    c, s = PJ.rope_cos_sin(ids, config=LLAMA, device=dev)
    assert dev in c.devices() and dev in s.devices()
    assert PJ.sinusoidal_table(jnp.arange(3), 8, device=dev).shape == (3, 8)
    np.testing.assert_array_equal(np.asarray(PJ.apply_rope(x, cos_sin=(c, s))), np.asarray(first))


# --- position ids in a float type (issue 42, item 6) -------------------------------------


def test_float_position_ids_past_where_their_type_holds_every_integer_are_refused():
    x = jnp.ones((1, 2, 40, 128))
    ids = jnp.arange(65500, 65540)[None].astype(jnp.float16)  # inf from 65520 on
    with pytest.raises(ValueError, match=r"position_ids of dtype float16 must be below 2,048 .*2,049 is the first"):
        PJ.apply_rope(x, position_ids=ids, config=LLAMA)
    with pytest.raises(ValueError, match=r"float32 must be below 16,777,216"):
        PJ.apply_rope(x[:, :, :2], position_ids=jnp.array([[0.0, 2.0**24 + 2]]), config=LLAMA)


def test_16_bit_position_ids_where_exact_are_converted_with_a_warning_and_refused_under_jit():
    x = jnp.asarray(np.random.default_rng(0).standard_normal((1, 2, 100, 128)), jnp.float32)
    ids = jnp.arange(100)[None]
    want = PJ.apply_rope(x, position_ids=ids, config=LLAMA)
    with pytest.warns(UserWarning, match=r"bfloat16: converted \(exact here"):
        got = PJ.apply_rope(x, position_ids=ids.astype(jnp.bfloat16), config=LLAMA)
    assert np.array_equal(np.asarray(got), np.asarray(want))
    with pytest.raises(TypeError, match=r"bfloat16 are refused under a JAX transformation"):
        jax.jit(lambda i: PJ.apply_rope(x, position_ids=i, config=LLAMA))(ids.astype(jnp.bfloat16))
