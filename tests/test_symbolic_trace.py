"""The symbolic tracer (pe_symbolic.audit.symbolic_trace): what it computes is what the code computes."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from pe_symbolic.audit.symbolic_trace import TraceError, Traced, exact_number, trace_rope

SHAPE = (1, 2, 3, 4)
IDS = np.array([[0, 3, 7]])


def _evaluate(tr, x: np.ndarray) -> np.ndarray:
    sub = {tr.x[idx]: sp.Rational(float(x[idx])) for idx in np.ndindex(*x.shape)}
    return np.array([float(sp.N(e.xreplace(sub), 30)) for e in tr.out.flat]).reshape(x.shape)


def _torch_cases():
    torch = pytest.importorskip("torch")
    inv = torch.tensor([1.0, 0.1], dtype=torch.float64)
    return torch, {
        "slices, negation, cat": lambda x, i: torch.cat([-x[..., 2:], x[..., :2]], -1) * 0.5 + x,
        "strided slices": lambda x, i: torch.stack([x[..., 0::2] - x[..., 1::2], x[..., 1::2]], -1).flatten(-2),
        "select, unsqueeze, expand": lambda x, i: x * x[:, :1, :, 1:2].expand(-1, 2, -1, 4),
        "transpose, permute, reshape": lambda x, i: x.transpose(1, 2).permute(0, 2, 1, 3).reshape(1, 2, 3, 4) * 2,
        "repeat_interleave, repeat": lambda x, i: x * torch.repeat_interleave(inv, 2).repeat(1, 1, 1, 1),
        "split, rsub, div, pow": lambda x, i: torch.cat([1 - a / 4 for a in x.split(2, -1)], -1) ** 2,
        "matmul with a constant": lambda x, i: x @ torch.arange(16, dtype=x.dtype).reshape(4, 4),
        "sum keepdim": lambda x, i: x - x.sum(-1, keepdim=True),
        "positions as angles": lambda x, i: x * torch.cos(i[:, None, :, None].double() * torch.repeat_interleave(inv, 2)),
        "complex multiply": lambda x, i: torch.view_as_real(
            torch.view_as_complex(x.reshape(1, 2, 3, 2, 2)) * torch.polar(
                torch.ones(2, dtype=torch.float64), inv).conj()).flatten(-2),
    }


@pytest.mark.parametrize("name", ["slices, negation, cat", "strided slices", "select, unsqueeze, expand",
                                  "transpose, permute, reshape", "repeat_interleave, repeat", "split, rsub, div, pow",
                                  "matmul with a constant", "sum keepdim", "positions as angles", "complex multiply"])
def test_the_torch_interpreter_computes_what_torch_computes(name):
    torch, cases = _torch_cases()
    fn = cases[name]
    x = np.random.default_rng(0).standard_normal(SHAPE)
    tr = trace_rope(fn, "torch", SHAPE, positions=IDS, dtype="float64")
    want = fn(torch.from_numpy(x), torch.from_numpy(IDS)).numpy()
    np.testing.assert_allclose(_evaluate(tr, x), want, rtol=1e-12, atol=1e-12)


def test_the_numpy_tracer_computes_what_numpy_computes():
    def fn(x, ids):
        ang = ids[..., None] * np.array([1.0, 0.1])
        c = np.cos(np.repeat(ang, 2, -1))[:, None]
        return x * c + np.concatenate([-x[..., 1::2], x[..., ::2]], -1) * 0.25 - x.sum(-1, keepdims=True) / 3

    x = np.random.default_rng(1).standard_normal(SHAPE)
    tr = trace_rope(fn, "numpy", SHAPE, positions=IDS)
    np.testing.assert_allclose(_evaluate(tr, x), fn(x, IDS), rtol=1e-12, atol=1e-12)


def test_what_depends_on_a_value_fails_the_trace_instead_of_being_guessed():
    with pytest.raises(TraceError, match="needs the value"):
        trace_rope(lambda x, ids: x * float(ids[0, 0]), "numpy", SHAPE)
    with pytest.raises(TraceError, match="needs the value"):
        trace_rope(lambda x, ids: x if (ids > 2).all() else -x, "numpy", SHAPE)
    # a float cast is exact in the trace (as torch's .float() is); an integer cast of x truncates,
    # a narrower integer cast of the positions may wrap: both fail
    tr = trace_rope(lambda x, ids: x.astype(np.float32) * np.cos(ids.astype(np.float32))[:, None, :, None], "numpy",
                    SHAPE)
    assert tr.out[0, 0, 0, 0] == tr.x[0, 0, 0, 0] * sp.cos(tr.positions[0, 0])
    with pytest.raises(TraceError, match="truncates"):
        trace_rope(lambda x, ids: x.astype(np.int64), "numpy", SHAPE)
    with pytest.raises(TraceError, match="may wrap"):
        trace_rope(lambda x, ids: x * ids.astype(np.int16)[:, None, :, None], "numpy", SHAPE)
    assert trace_rope(lambda x, ids: x * ids.astype(np.int64)[:, None, :, None], "numpy", SHAPE).symbolic_positions
    with pytest.raises(TraceError, match="shape"):
        trace_rope(lambda x, ids: x[..., :2], "numpy", SHAPE, positions=IDS)
    with pytest.raises(TraceError, match="not implemented"):
        trace_rope(lambda x, ids: x, "tensorflow", SHAPE)


def test_torch_branches_on_values_and_truncating_casts_fail_the_trace():
    torch = pytest.importorskip("torch")

    def branch(x, ids):
        return x if bool(ids.max() > 5) else -x

    with pytest.raises(TraceError, match="could not trace"):
        trace_rope(branch, "torch", SHAPE)
    with pytest.raises(TraceError, match="truncates"):
        trace_rope(lambda x, ids: x * (x * 4).long().to(x.dtype), "torch", SHAPE, positions=IDS, dtype="float64")
    with pytest.raises(TraceError, match="does not know"):
        trace_rope(lambda x, ids: torch.where(x > 0, x, -x), "torch", SHAPE, positions=IDS, dtype="float64")


def test_exact_numbers_are_the_binary_values():
    assert exact_number(0.1) == sp.Rational(3602879701896397, 36028797018963968)
    assert exact_number(np.float16(0.1)) == sp.Rational(1638, 16384)
    assert exact_number(True) == 1 and exact_number(Traced(sp.Symbol("m"))) == sp.Symbol("m")
    with pytest.raises(TraceError, match="non-finite"):
        exact_number(float("inf"))


def test_the_jaxpr_interpreter_computes_what_jax_computes():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def fn(x, ids):
        inv = jnp.array([1.0, 0.1], dtype=x.dtype)
        ang = ids[..., None].astype(x.dtype) * jnp.repeat(inv, 2)
        rot = jnp.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)
        mix = jnp.einsum("bhsd,de->bhse", x, jnp.arange(16, dtype=x.dtype).reshape(4, 4))
        return x * jnp.cos(ang)[:, None] + rot * jnp.sin(ang)[:, None] - mix / 8 + x.sum(-1, keepdims=True) ** 2

    x = np.random.default_rng(2).standard_normal(SHAPE).astype(np.float32)
    tr = trace_rope(fn, "jax", SHAPE, positions=IDS.astype(np.int32), dtype="float32")
    np.testing.assert_allclose(_evaluate(tr, x), np.asarray(fn(jnp.asarray(x), jnp.asarray(IDS)), dtype=np.float64),
                               rtol=2e-5, atol=2e-5)
    with pytest.raises(TraceError, match="truncates"):
        trace_rope(lambda x, ids: x * (x * 4).astype(jnp.int32), "jax", SHAPE, positions=IDS, dtype="float32")
    with pytest.raises(TraceError, match="could not trace"):
        trace_rope(lambda x, ids: x if bool(ids.max() > 5) else -x, "jax", SHAPE)


def test_a_trace_at_a_stated_length_knows_only_the_maximum_of_the_positions():
    # HF's dynamic / longrope read the length as max(position_ids) + 1: pinned, it is a number
    def longrope(x, ids):
        inv = np.array([1.0, 0.5]) if ids.max() + 1 > 100 else np.array([1.0, 0.25])
        return x * np.cos(np.repeat(ids[..., None] * inv, 2, -1))[:, None]

    tr = trace_rope(longrope, "numpy", SHAPE, length=200)
    assert tr.length == 200 and tr.length_used
    assert tr.out[0, 0, 0, 2] == tr.x[0, 0, 0, 2] * sp.cos(tr.positions[0, 0] / 2)
    with pytest.raises(TraceError, match="sequence length"):
        trace_rope(longrope, "numpy", SHAPE)
    # a row's maximum, a shifted array's maximum, any comparison: still refused
    with pytest.raises(TraceError):
        trace_rope(lambda x, ids: x * ids[0].max(), "numpy", SHAPE, length=200)
    with pytest.raises(TraceError):
        trace_rope(lambda x, ids: x * (ids + 1).max(), "numpy", SHAPE, length=200)
    with pytest.raises(TraceError, match="needs the value"):
        trace_rope(lambda x, ids: x if (ids == 10).any() else -x, "numpy", SHAPE, length=200)


def test_the_torch_trace_at_a_stated_length_pins_only_the_whole_maximum():
    torch = pytest.importorskip("torch")

    def rope(x, ids):
        long = torch.max(ids) + 1 > 100
        inv = torch.where(long, torch.tensor([1.0, 0.5], dtype=torch.float64), torch.tensor([1.0, 0.25],
                                                                                            dtype=torch.float64))
        return x * torch.cos(ids[..., None].double() * inv.repeat_interleave(2))[:, None]

    tr = trace_rope(rope, "torch", SHAPE, length=200, dtype="float64")
    assert tr.length_used and tr.out[0, 0, 0, 2] == tr.x[0, 0, 0, 2] * sp.cos(tr.positions[0, 0] / 2)
    with pytest.raises(TraceError, match="sequence length"):
        trace_rope(rope, "torch", SHAPE, dtype="float64")
    with pytest.raises(TraceError):
        trace_rope(lambda x, ids: x * torch.amax(ids, dim=1)[:, None, None, None], "torch", SHAPE, length=200,
                   dtype="float64")


def test_an_in_place_write_into_a_traced_slice_keeps_torchs_aliasing():
    torch = pytest.importorskip("torch")

    def interleaved_mrope(x, ids):  # Qwen3-VL: h and w written into strided slices of t's angles
        freqs = ids[None].double().expand(3, -1, -1)[..., None] * torch.tensor([1.0, 0.5, 0.25, 0.125],
                                                                               dtype=torch.float64)
        freqs = freqs * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)[:, None, None, None]
        freqs_t = freqs[0]  # a view of freqs: written below
        freqs_t[..., 1:4:3] = freqs[1, ..., 1:4:3]
        freqs_t[..., 2:4:3] = freqs[2, ..., 2:4:3]
        return x * torch.cos(freqs[0]).repeat_interleave(1, -1)[:, None]

    x = np.random.default_rng(3).standard_normal(SHAPE)
    tr = trace_rope(interleaved_mrope, "torch", SHAPE, positions=IDS, dtype="float64")
    want = interleaved_mrope(torch.from_numpy(x), torch.from_numpy(IDS)).numpy()
    np.testing.assert_allclose(_evaluate(tr, x), want, rtol=1e-12, atol=1e-12)
    table = torch.zeros(4, dtype=torch.float64)

    def into_a_constant(x, ids):
        table.copy_(x[0, 0, 0])
        return x * table

    with pytest.raises(TraceError, match="in place into a constant"):
        trace_rope(into_a_constant, "torch", SHAPE, positions=IDS, dtype="float64")


def test_a_lookup_by_a_traced_position_is_refused_not_missed():
    # {1500: ...}.get(m, default) would silently take the default for a symbol: refused
    special = {1500: 0.25}

    def table(x, ids):
        bump = np.array([[special.get(p, 0.0) for p in row] for row in ids])
        return x * np.cos(ids + bump)[:, None, :, None]

    with pytest.raises(TraceError, match="dict or set lookup"):
        trace_rope(table, "numpy", SHAPE)
