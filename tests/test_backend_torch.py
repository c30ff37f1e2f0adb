"""pe_symbolic.torch against the NumPy core and the mpmath oracle; gradients; torch.compile."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ml_dtypes  # noqa: E402

import pe_symbolic.numeric as N  # noqa: E402
import pe_symbolic.torch as PT  # noqa: E402
from pe_symbolic.torch import _backend as PTB  # noqa: E402
from pe_symbolic.torch import _rotate as PTR  # noqa: E402
from pe_symbolic import reference  # noqa: E402
from pe_symbolic.numeric import lower  # noqa: E402
from pe_symbolic.numeric._checks import round_to  # noqa: E402
from strategies import shipped_config_case  # noqa: E402

LLAMA = N.model_config("llama-3.1-8b")
DTYPES = {"float32": (torch.float32, np.float32), "bfloat16": (torch.bfloat16, ml_dtypes.bfloat16),
          "float16": (torch.float16, np.float16), "float64": (torch.float64, np.float64)}


def _x(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)


def _np(t):
    if t.dtype == torch.bfloat16:
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy()


def _ids(batch, seq, start=0):
    return (torch.arange(seq) + start)[None].expand(batch, seq).contiguous()


# ----------------------------------------------------------------------------------------
# against the NumPy core


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_split_layout_is_bit_identical_to_the_numpy_core(dtype):
    """Same tables (float64 rounded once) and the same operations: the same bits."""
    tdt, _ = DTYPES[dtype]
    x = _x((2, 4, 96, 128), tdt)
    ids = _ids(2, 96, start=4000)
    got = PT.apply_rope(x, ids, config=LLAMA)
    want = N.apply_rope(_np(x), position_ids=ids.numpy(), config=LLAMA)
    assert got.dtype == tdt and got.shape == x.shape
    np.testing.assert_array_equal(got.float().numpy(), want.astype(np.float32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_interleaved_layout_is_ulp_bounded(dtype):
    """NumPy's interleaved kernel is a complex multiply (an FMA on some CPUs): not the same
    operations, so within an ulp of the rotated pair's size, not bitwise."""
    tdt, _ = DTYPES[dtype]
    x = _x((1, 3, 80, 64), tdt, seed=1)
    ids = _ids(1, 80, start=123)
    got = PT.apply_rope(x, ids, base=500000.0, layout="interleaved").double().numpy()
    want = N.apply_rope(_np(x), position_ids=ids.numpy(), base=500000.0, layout="interleaved").astype(np.float64)
    xs = x.double().numpy().reshape(1, 3, 80, 32, 2)
    mag = np.repeat(np.abs(xs).sum(-1), 2, axis=-1)
    eps = {"float32": 2.0**-23, "float64": 2.0**-52, "bfloat16": 2.0**-7}[dtype]
    # float64 shows the tables' difference too: angle error <= 2**-52 |angle| here (|angle| <= 203)
    table = 2.0**-52 * 203 if dtype == "float64" else 0.0
    assert (np.abs(got - want) <= (2 * eps + table) * mag + 1e-300).all()


@pytest.mark.parametrize("name", sorted(N.model_configs()))
@pytest.mark.filterwarnings("ignore:.*equals config.*:UserWarning")  # Llama-4-Scout: low == high, as HF warns
def test_every_shipped_config_matches_the_numpy_core(name):
    cfg, spec, lt, ids, layout = shipped_config_case(name, _ids(2, 24, start=5000), torch.stack)
    x = _x((2, 2, 24, spec.head_dim), torch.float64, seed=3)
    got = PT.apply_rope(x, ids, config=cfg, layer_type=lt, layout=layout).numpy()
    want = N.apply_rope(x.numpy(), position_ids=ids.numpy(), config=cfg, layer_type=lt, layout=layout)
    # float64: the angle is one float64 product here (error <= 2**-52 |angle|), angle addition there
    tol = 2.0**-52 * 5100 * 4 + 1e-15
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * np.abs(x.numpy()).max() * 2)


@pytest.mark.parametrize("scaling", [
    {"rope_type": "linear", "factor": 4.0},
    {"rope_type": "ntk", "factor": 2.0},
    {"rope_type": "dynamic", "factor": 2.0},
    {"rope_type": "proportional", "factor": 2.0},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024},
])
def test_every_rope_type_of_the_parser(scaling):
    cfg = {"rope_theta": 10000.0, "head_dim": 32, "max_position_embeddings": 2048, "rope_scaling": scaling}
    x = _x((1, 2, 40, 32), torch.float32, seed=4)
    ids = _ids(1, 40, start=3000)  # past max_position_embeddings: dynamic rescales
    got = PT.apply_rope(x, ids, config=cfg)
    want = N.apply_rope(x.numpy(), position_ids=ids.numpy(), config=cfg)
    np.testing.assert_array_equal(got.numpy(), want)


def test_rope_cos_sin_matches_the_numpy_core_and_rounds_16_bit_tables_once():
    pos = torch.arange(0, 8192, 3)
    for tdt, ndt in (DTYPES["float32"], DTYPES["bfloat16"], DTYPES["float16"]):
        for layout in ("split", "interleaved"):
            c, s = PT.rope_cos_sin(pos, config=LLAMA, dtype=tdt, layout=layout)
            wc, ws = N.rope_cos_sin(pos.numpy(), config=LLAMA, dtype=ndt, layout=layout)
            assert c.dtype == tdt and c.shape == (pos.numel(), 128)
            for got, want in ((c, wc), (s, ws)):
                got, want = got.double().numpy(), want.astype(np.float64)
                ulp = np.spacing(np.abs(want).astype(ndt).astype(np.float64)) if ndt is np.float32 else \
                    np.abs(want) * 2.0 ** -(7 if ndt is ml_dtypes.bfloat16 else 10) + 2.0**-24
                assert (np.abs(got - want) <= ulp).all()
                assert (got != want).mean() < 1e-3  # almost always the same bits


def test_round_once_is_correct_rounding_where_torch_rounds_twice():
    rng = np.random.default_rng(5)
    # float64 values just off the 16-bit dtypes' ties, where float64 -> float32 -> 16 bit errs
    base = rng.uniform(-1, 1, 4000)
    for ndt, tdt, bits in ((ml_dtypes.bfloat16, torch.bfloat16, 8), (np.float16, torch.float16, 11)):
        lo = base.astype(ndt).astype(np.float64)
        tie = lo + np.spacing(lo.astype(ndt)).astype(np.float64) / 2  # exact ties ...
        v = np.concatenate([base, tie + np.abs(tie) * 2.0**-40, tie - np.abs(tie) * 2.0**-40, tie])
        got = PTB._round_once(torch.from_numpy(v), tdt).float().numpy()
        want = round_to(v, np.dtype(ndt)).astype(np.float32)
        np.testing.assert_array_equal(got, want)
        twice = torch.from_numpy(v).to(tdt).float().numpy()
        assert (twice != want).any()  # the case it is for


@pytest.mark.parametrize("layout", ["interleaved", "split"])
@pytest.mark.parametrize("order", ["sin_cos", "cos_sin"])
def test_sinusoidal_table_matches_the_numpy_core(layout, order):
    pos = torch.arange(0, 5000, 7)
    got = PT.sinusoidal_table(pos, 64, layout=layout, order=order, dtype=torch.float32)
    want = N.sinusoidal_table(pos.numpy(), 64, layout=layout, order=order, dtype=np.float32)
    assert got.shape == (pos.numel(), 64)
    assert (np.abs(got.numpy() - want) <= np.spacing(np.abs(want))).all()
    got64 = PT.sinusoidal_table(pos, 64, layout=layout, order=order, dtype=torch.float64).numpy()
    want64 = N.sinusoidal_table(pos.numpy(), 64, layout=layout, order=order)
    assert np.abs(got64 - want64).max() <= 2.0**-52 * 5000 * 2


def test_tables_at_a_million_positions_against_the_oracle():
    """Angles in float64, never float32: within 2**-52 |angle| (+ an ulp) at 1M positions
    (base 500000), where HF's float32 angles are off by 7.5e-2 rad."""
    pos = np.array([131071.0, 999_999.0, 2.0**20 - 1])
    c, s = PT.rope_cos_sin(torch.from_numpy(pos), 128, base=500000.0, dtype=torch.float64)
    ref = reference.to_float(reference.sinusoidal_table(pos, 128, base=500000, layout="split",
                                                        order="cos_sin", dps=40))
    err = max(np.abs(c[:, :64].numpy() - ref[:, :64]).max(), np.abs(s[:, :64].numpy() - ref[:, 64:]).max())
    assert err <= 2.0**-52 * 2.0**20 + 2.0**-52
    assert err < 1e-9


# ----------------------------------------------------------------------------------------
# tensors in, tensors out


def test_tuple_positions_cos_sin_and_partial_rotary_agree():
    q, k = _x((2, 8, 16, 64)), _x((2, 2, 16, 64), seed=9)
    ids = _ids(2, 16, start=10)
    qr, kr = PT.apply_rope((q, k), ids, base=10000.0)
    cs = PT.rope_cos_sin(ids, 64)
    torch.testing.assert_close(PT.apply_rope(q, cos_sin=cs), qr, rtol=0, atol=0)
    torch.testing.assert_close(PT.apply_rope(k, positions=ids[:, None, :]), kr, rtol=0, atol=0)
    half = PT.apply_rope(q, ids, rotary_dim=32)
    assert torch.equal(half[..., 32:], q[..., 32:])
    want = N.apply_rope(q.numpy(), position_ids=ids.numpy(), rotary_dim=32)
    np.testing.assert_array_equal(half.numpy(), want)


def test_no_conversion_and_no_gradient_is_lost():
    x = _x((1, 2, 8, 16), torch.float32).requires_grad_(True)
    y = PT.apply_rope(x, _ids(1, 8))
    assert isinstance(y, torch.Tensor) and y.requires_grad and y.dtype == torch.float32
    (y ** 2).sum().backward()  # a rotation keeps norms: d/dx |Rx|^2 = 2x
    torch.testing.assert_close(x.grad, 2 * x.detach(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_gradcheck_float64(layout):
    x = _x((1, 2, 5, 8), torch.float64, seed=11).requires_grad_(True)
    ids = _ids(1, 5, start=100)
    assert torch.autograd.gradcheck(lambda v: PT.apply_rope(v, ids, layout=layout, rotary_dim=6), (x,))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's own (inductor imports torch.jit)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_torch_compile_fullgraph_matches_eager():
    x = _x((2, 4, 32, 128), torch.float32, seed=12)
    ids = _ids(2, 32, start=70000)

    def f(x, ids):
        a = PT.apply_rope(x, ids, config=LLAMA)
        b = PT.apply_rope(x, ids, base=500000.0, layout="interleaved")
        c = PT.apply_rope(x.to(torch.bfloat16), ids, config=LLAMA, rotary_dim=None)
        return a, b, PT.sinusoidal_table(ids, 16), c

    cf = torch.compile(f, fullgraph=True)
    got, want = cf(x, ids), f(x, ids)
    for g, w in zip(got[:3], want[:3]):
        # compiled kernels may contract a*b - c*d into an FMA: within an ulp, not bitwise
        torch.testing.assert_close(g, w, rtol=2.0**-22, atol=2.0**-22)
    assert got[3].dtype == torch.bfloat16  # rotated in float32, rounded once: within a bf16 ulp
    torch.testing.assert_close(got[3].float(), want[3].float(), rtol=2.0**-7, atol=2.0**-7)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's own (inductor imports torch.jit)
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("layout", ["split", "interleaved"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_compiled_rotation_with_given_tables_matches_eager(layout, dtype):
    """Compiled on the CPU with tables from rope_cos_sin: eager's rotation up to FMA
    contraction, for a batch's one row expanded, distinct rows, partial rotary_dim, and x as
    HF's transposed (batch, seq, heads, d) view."""
    torch._dynamo.reset()  # six shapes and strides below: each its own graph (at most 8 per function)
    dtype = getattr(torch, dtype)
    ids = _ids(3, 40, start=9000)
    shifted = ids + torch.arange(3)[:, None]
    cf = torch.compile(lambda x, c, s: PT.apply_rope(x, cos_sin=(c, s), layout=layout), fullgraph=True)
    for rd, pos in ((32, ids), (32, shifted), (16, ids)):
        c, s = PT.rope_cos_sin(pos, rd, base=500000.0, layout=layout, dtype=torch.float32)
        for x in (_x((3, 4, 40, 32), dtype, seed=rd), _x((3, 40, 4, 32), dtype, seed=rd).transpose(1, 2)):
            got, want = cf(x, c, s), PT.apply_rope(x, cos_sin=(c, s), layout=layout)
            assert got.dtype == dtype and got.shape == x.shape
            tol = 2.0**-22 if dtype == torch.float32 else 2.0**-7  # FMA contraction: within an ulp
            torch.testing.assert_close(got.float(), want.float(), rtol=tol, atol=tol)
            assert torch.equal(got[..., rd:], x[..., rd:])


def test_numpy_core_refuses_tensors_and_names_the_backend():
    with pytest.raises(TypeError, match="pe_symbolic.torch"):
        N.apply_rope(torch.ones(2, 4), [0, 1])
    with pytest.raises(TypeError, match="pe_symbolic.torch"):
        N.rope_cos_sin(torch.arange(3), 4)


def test_bad_arguments_are_named():
    x = _x((1, 2, 4, 8))
    with pytest.raises(TypeError, match="torch.Tensor.*pe_symbolic.numeric.apply_rope"):
        PT.apply_rope(x.numpy(), _ids(1, 4))
    with pytest.raises(TypeError, match="x.dtype=torch.int64 is not allowed"):
        PT.apply_rope(torch.ones(1, 2, 4, 8, dtype=torch.int64), _ids(1, 4))
    with pytest.raises(ValueError, match="exactly one of positions .*, position_ids .* and cos_sin"):
        PT.apply_rope(x)
    with pytest.raises(ValueError, match=r"position_ids of shape \(1, 5\) need x of shape \(batch, heads, seq, d\)"):
        PT.apply_rope(x, _ids(1, 5))
    with pytest.raises(ValueError, match="odd length d=7"):
        PT.apply_rope(_x((1, 2, 4, 7)), _ids(1, 4))
    with pytest.raises(ValueError, match="cos_sin= already holds the tables"):
        PT.apply_rope(x, _ids(1, 4), cos_sin=PT.rope_cos_sin(_ids(1, 4), 8))
    with pytest.raises(TypeError, match="dtype=torch.int32 is not allowed"):
        PT.rope_cos_sin([0, 1], 8, dtype=torch.int32)
    with pytest.raises(ValueError, match="finite"):
        PT.rope_cos_sin([0, float("nan")], 8)


def test_the_formulas_come_through_the_one_door():
    pair = lower.rope_pair("torch")
    assert pair.claim_id == "rope.efficient_form" and "modules='torch'" in pair.__doc__
    assert lower.sinusoidal_pair("torch").claim_id == "translation.identity"
    assert PTB._formula("pair") is pair


# ----------------------------------------------------------------------------------------
# the eager CPU rotation in blocks, the table cache, the tables as one op under compile


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_eager_blocks_give_the_bits_of_the_whole_tensor_operations(dtype, layout, monkeypatch):
    """Blocks (small, with remainders, over several axes) run the same operations on the same
    values as the one-graph route (used for autograd and torch.compile): the same bits."""
    from pe_symbolic.numeric import _frontend as F

    tdt, _ = DTYPES[dtype]
    monkeypatch.setattr(PTB, "_WHOLE", 0)  # every x in blocks
    monkeypatch.setattr(PTR, "_BLOCK", 7 * 48)  # 7 rows of d=48: blocks cut the seq axis unevenly
    x = _x((2, 3, 19, 48), tdt, seed=21)
    cases = [(x, 48), (x, 32), (x.transpose(1, 2), 40)]  # partial rotary; a non-contiguous x
    for xv, rd in cases:
        c, s = PT.rope_cos_sin(torch.arange(xv.shape[-2]) * 37 + 5, rd, dtype=PTB._B.compute_dtype(tdt),
                               layout="split")
        c, s = c[..., : rd // 2], s[..., : rd // 2]
        got = PTB._B.rotate(xv, c, s, layout, rd)
        want = F.rotate(PTB._B, xv, c, s, layout, rd)
        assert got.dtype == tdt and got.shape == xv.shape
        assert torch.equal(got, want)
        assert torch.equal(got[..., rd:], xv[..., rd:])
    grad = PT.apply_rope(x.double().requires_grad_(True), _ids(2, 19), layout=layout)  # the graph route
    assert grad.requires_grad


def test_eager_cpu_rotation_takes_blocks_only_above_the_whole_tensor_size(monkeypatch):
    """An x of at most ``_WHOLE`` elements (a decoding step, a short prompt) is rotated by the
    whole-tensor operations; a larger one in blocks. Both give the same bits (the test above)."""
    calls = []

    def spy(*args):
        calls.append(args[1].numel())
        return real(*args)

    real = PTB._rotate_blocks
    monkeypatch.setattr(PTB, "_rotate_blocks", spy)
    monkeypatch.setattr(PTB, "_WHOLE", 2 * 3 * 8 * 16)
    c, s = PT.rope_cos_sin(_ids(2, 8), 16)
    small, large = _x((2, 3, 8, 16)), _x((2, 4, 8, 16))
    assert torch.equal(PT.apply_rope(small, cos_sin=(c, s)), _whole_route(small, c, s)) and calls == []
    assert torch.equal(PT.apply_rope(large, cos_sin=(c, s)), _whole_route(large, c, s)) and calls == [large.numel()]


def _whole_route(x, c, s):
    """The whole-tensor route on x with full-width split tables ``c``, ``s``."""
    from pe_symbolic.numeric import _frontend as F

    h = c.shape[-1] // 2
    return F.rotate(PTB._B, x, c[:, None, :, :h], s[:, None, :, :h], "split", c.shape[-1])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_accelerator_rotation_gives_the_bits_of_the_whole_tensor_operations(dtype, layout):
    """The eager route on an accelerator (no cast kernel for 16-bit x against float32 tables,
    no concatenation), run here on CPU tensors: the bits of the one-graph route, with float32
    tables and with tables in x's own 16-bit dtype."""
    from pe_symbolic.numeric import _frontend as F

    tdt, _ = DTYPES[dtype]
    x = _x((2, 3, 19, 48), tdt, seed=23)
    for xv, rd in [(x, 48), (x, 32), (x.transpose(1, 2), 40)]:
        for cdt in {PTB._B.compute_dtype(tdt), tdt}:
            c, s = PT.rope_cos_sin(torch.arange(xv.shape[-2]) * 41 + 3, rd, dtype=cdt, layout="split")
            c, s = c[..., : rd // 2], s[..., : rd // 2]
            got = PTB._rotate_whole(PTB._B, xv, c, s, layout, rd)
            want = F.rotate(PTB._B, xv, c, s, layout, rd)
            assert got.dtype == tdt and got.shape == xv.shape
            assert torch.equal(got, want)


def test_tables_on_another_device_than_x_are_refused_by_name():
    """(The meta device stands in for an accelerator: no values, the same device checks.)"""
    x = _x((1, 2, 8, 16))
    c, s = PT.rope_cos_sin(_ids(1, 8), 16)
    with pytest.raises(ValueError, match=r"the tables are on cpu and x on meta.*\.to\(x\.device\)"):
        PT.apply_rope(x.to("meta"), cos_sin=(c, s))
    with pytest.raises(ValueError, match=r"x\[1\] on meta"):
        PT.apply_rope((x, x.to("meta")), cos_sin=(c, s))
    with pytest.raises(ValueError, match="cos is on cpu and sin on meta"):
        PT.apply_rope(x, cos_sin=(c, s.to("meta")))


def test_table_cache_hits_only_for_the_same_positions_bit_for_bit():
    PT.clear_cache()
    x = _x((1, 2, 6, 16), torch.float64, seed=22)
    ids = _ids(1, 6, start=40)
    first = PT.apply_rope(x, ids)
    assert len(PTB._CACHE) == 1 and torch.equal(PT.apply_rope(x, ids), first)  # a hit
    ids[0, 3] = 1000  # changed in place: the cache compares values, so this is a miss
    moved = PT.apply_rope(x, ids)
    PT.clear_cache()
    assert torch.equal(moved, PT.apply_rope(x, ids)) and not torch.equal(moved, first)
    # -0.0 and 0.0 are different positions to the cache (sin(-0.0) is -0.0)
    zero, negzero = torch.zeros(1, 3, dtype=torch.float64), torch.full((1, 3), -0.0, dtype=torch.float64)
    s0 = PT.rope_cos_sin(zero, 4, dtype=torch.float64)[1]
    s1 = PT.rope_cos_sin(negzero, 4, dtype=torch.float64)[1]
    assert torch.equal(torch.signbit(s0), torch.zeros_like(s0, dtype=torch.bool))
    assert torch.signbit(s1).all()


def test_inference_mode_reaches_the_workers_and_its_tables_stay_out_of_autograd(monkeypatch):
    PT.clear_cache()
    monkeypatch.setattr(PTB, "_WHOLE", 0)  # every x in blocks
    monkeypatch.setattr(PTR, "_BLOCK", 16)  # many blocks, shared among the workers
    x = _x((1, 2, 5, 8), torch.float32, seed=23)
    ids = _ids(1, 5)
    want = PT.apply_rope(x, ids)
    with torch.inference_mode():  # the output is an inference tensor: the workers write it in that mode
        assert torch.equal(PT.apply_rope(x, ids), want)
    y = PT.apply_rope(x.clone().requires_grad_(True), ids)  # would fail on an inference tensor
    y.sum().backward()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_compiled_tables_follow_the_positions_values():
    """Under torch.compile the tables are one opaque op (looked up in the table cache, checked
    against the positions' values): new values give new tables, never a stale hit."""
    cf = torch.compile(lambda x, i: PT.apply_rope(x, i, config=LLAMA), fullgraph=True)
    x = _x((1, 2, 12, 128), torch.float32, seed=24)
    for start in (0, 5000, 0, 70000):
        ids = _ids(1, 12, start=start)
        torch.testing.assert_close(cf(x, ids), PT.apply_rope(x, ids, config=LLAMA), rtol=2.0**-22, atol=2.0**-22)
    op = torch.ops.pe_symbolic.rope_tables
    c, s = op(_ids(1, 3, start=9), [1.0, 0.5], None, 1.0, torch.float64)
    want = PTB._compute_tables(_ids(1, 3, start=9), PT.F.TablePlan((1.0, 0.5), 4, None, 1.0), torch.float64)
    assert torch.equal(c, want[0]) and torch.equal(s, want[1])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["qwen2-vl-7b", "pixtral-12b-vision"])
def test_compiled_multi_axis_positions_match_eager(name):
    """M-RoPE's (3, batch, seq) and an axial config's (2, batch, seq) ids under torch.compile:
    the table op's outputs are laid out as its shape function says (the axis gather gives
    strided tables; a strided output once failed inductor's layout check)."""
    cfg = N.model_config(name)
    d = N.parse_rope_config(cfg).head_dim
    ids = _ids(2, 20, start=700)
    ids = torch.stack([ids, ids // 2, ids % 7]) if name.startswith("qwen") else torch.stack([ids // 9, ids % 9])
    x = _x((2, 3, 20, d), torch.float32, seed=26)
    cf = torch.compile(lambda x, i: PT.apply_rope(x, i, config=cfg), fullgraph=True)
    torch.testing.assert_close(cf(x, ids), PT.apply_rope(x, ids, config=cfg), rtol=2.0**-22, atol=2.0**-22)
    c, s = torch.ops.pe_symbolic.rope_tables(ids, [1.0, 0.5, 0.25], [0, 1, 0], 1.0, torch.float32)
    assert c.is_contiguous() and s.is_contiguous() and c.shape == (2, 20, 3)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_dynamic_shapes_compile_without_a_graph_break():
    """dynamic=True (and a recompilation's automatic dynamic shapes, here: two configs through
    one compiled function) make the head dim and the config's numbers symbolic; the frequencies
    depend on them, so they are specialized before the host plans them."""
    torch._dynamo.reset()
    qwen = N.model_config("qwen2-vl-7b")

    def f(x, i, cfg):
        return PT.apply_rope(x, i, config=cfg), PT.rope_cos_sin(i, config=cfg)[0], PT.sinusoidal_table(i, 32)

    cf = torch.compile(f, fullgraph=True, dynamic=True)
    for seq, d, cfg in ((16, 128, LLAMA), (24, 128, LLAMA), (8, 64, {"rope_theta": 1e4, "head_dim": 64})):
        x, ids = _x((2, 3, seq, d), seed=seq), _ids(2, seq, start=seq)
        for g, w in zip(cf(x, ids, cfg), f(x, ids, cfg)):
            torch.testing.assert_close(g, w, rtol=2.0**-22, atol=2.0**-22)
    one = torch.compile(lambda x, i, cfg: PT.apply_rope(x, i, config=cfg), fullgraph=True)
    x, ids = _x((1, 2, 6, 128), seed=27), _ids(1, 6)
    for cfg, i in ((LLAMA, ids), (qwen, torch.stack([ids, ids, ids])), (LLAMA, ids)):
        torch.testing.assert_close(one(x, i, cfg), PT.apply_rope(x, i, config=cfg), rtol=2.0**-22, atol=2.0**-22)
    base = torch.compile(lambda x, i: PT.apply_rope(x, i, base=5e5), fullgraph=True, dynamic=True)
    for seq, d in ((16, 64), (20, 96)):
        x, ids = _x((2, 3, seq, d), seed=seq), _ids(2, seq)
        torch.testing.assert_close(base(x, ids), PT.apply_rope(x, ids, base=5e5), rtol=2.0**-22, atol=2.0**-22)


def test_axial_pixtral_is_hf_placement():
    """Pixtral's 2-D RoPE as HF's PixtralVisionRotaryEmbedding places it (its own
    recomposition_frequencies, fed float64 angles: HF forms them in float32) and rotates it
    (apply_rotary_pos_emb), against both cores."""
    pytest.importorskip("transformers")
    from transformers import PixtralVisionConfig
    from transformers.models.pixtral.modeling_pixtral import PixtralVisionRotaryEmbedding, apply_rotary_pos_emb

    cfg = N.model_config("pixtral-12b-vision")
    emb = PixtralVisionRotaryEmbedding(PixtralVisionConfig(head_dim=64, hidden_size=1024, num_attention_heads=16,
                                                           rope_theta=10000.0))
    rows, cols = np.meshgrid(np.arange(5), np.arange(7), indexing="ij")
    pos = np.stack([rows.ravel(), cols.ravel()])  # (2, P): HF's position_ids are (P, 2)
    inv = torch.tensor(N.rope_frequencies(cfg).inv_freq, dtype=torch.float64)
    # the same frequencies (HF's own are computed in float32: within a float32 ulp or two)
    torch.testing.assert_close(inv.float(), emb.inv_freq, rtol=2.0**-22, atol=0)
    freqs = torch.from_numpy(pos.T.copy()).double()[..., None] * inv
    cos, sin = emb.recomposition_frequencies(freqs.cos()), emb.recomposition_frequencies(freqs.sin())
    x = _x((1, 3, pos.shape[1], 64), torch.float64, seed=25)
    want, _ = apply_rotary_pos_emb(x, x, cos[None], sin[None], unsqueeze_dim=1)
    got_np = N.apply_rope(x.numpy(), pos, config=cfg)
    got_pt = PT.apply_rope(x, positions=torch.from_numpy(pos), config=cfg)
    np.testing.assert_allclose(got_np, want.numpy(), rtol=0, atol=1e-14)
    torch.testing.assert_close(got_pt, want, rtol=0, atol=1e-14)


@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_equal_rows_give_one_rows_tables_expanded_and_nothing_else_does(layout):
    # the batch's rows hold the same positions: one row's tables, a stride-0 view over the batch
    PT.clear_cache()
    ids = torch.arange(7, 7 + 33)[None].expand(4, 33).contiguous()
    c, s = PT.rope_cos_sin(ids, 16, base=500.0, dtype=torch.float64, layout=layout)
    assert c.shape == (4, 33, 16) and c.stride(0) == 0 and s.stride(0) == 0
    one_c, one_s = PT.rope_cos_sin(ids[:1], 16, base=500.0, dtype=torch.float64, layout=layout)
    for b in range(4):
        assert torch.equal(c[b], one_c[0]) and torch.equal(s[b], one_s[0])
    with pytest.raises(RuntimeError):
        c.add_(1.0)  # a view over one row: writing into it is refused, never silently shared
    # one position differs in the last row (or only by the sign of a zero): every row computed
    for moved, value in ((ids.clone(), 1000), (torch.zeros(3, 5, dtype=torch.float64), -0.0)):
        moved[-1, 2] = value
        mc, ms = PT.rope_cos_sin(moved, 16, base=500.0, dtype=torch.float64, layout=layout)
        assert mc.stride(0) != 0
        for b in range(moved.shape[0]):  # each row as computed alone
            rc, rs = PT.rope_cos_sin(moved[b:b + 1], 16, base=500.0, dtype=torch.float64, layout=layout)
            assert torch.equal(mc[b], rc[0]) and torch.equal(ms[b], rs[0])
        assert not torch.equal(mc[0, 2], mc[-1, 2]) or value == -0.0
        assert torch.signbit(ms[-1, 2, 0]) == (value == -0.0)
    # a batch of one, and positions of one axis, are left as they are
    assert PT.rope_cos_sin(ids[:1], 16)[0].stride(0) != 0
    assert PT.rope_cos_sin(torch.arange(5), 16)[0].is_contiguous()
    # the expanded tables rotate exactly as the full ones, eager and compiled
    x = _x((4, 2, 33, 16), torch.float32, seed=5)
    full = tuple(t.contiguous() for t in PT.rope_cos_sin(ids, 16, base=500.0, layout=layout))
    got = PT.apply_rope(x, cos_sin=PT.rope_cos_sin(ids, 16, base=500.0, layout=layout), layout=layout)
    assert torch.equal(got, PT.apply_rope(x, cos_sin=full, layout=layout))


def test_equal_rows_of_mrope_positions_are_the_batch_axis():
    # M-RoPE's (3, batch, seq): the rows compared are the batch's, each of the three axes kept
    cfg = {"rope_theta": 10000.0, "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
           "rope_scaling": {"rope_type": "default", "mrope_section": [2, 3, 3]}}
    row = torch.stack([torch.arange(9), torch.arange(9) // 3, torch.arange(9) % 3])  # (3, seq)
    ids = row[:, None].expand(3, 2, 9).contiguous()
    c, s = PT.rope_cos_sin(ids, config=cfg, dtype=torch.float64)
    assert c.shape == (2, 9, 16) and c.stride(0) == 0
    rc, rs = PT.rope_cos_sin(ids[:, :1], config=cfg, dtype=torch.float64)
    assert torch.equal(c[1], rc[0]) and torch.equal(s[1], rs[0])
    moved = ids.clone()
    moved[2, 1, 4] = 0  # the last axis of the second row differs: both rows computed
    mc, ms = PT.rope_cos_sin(moved, config=cfg, dtype=torch.float64)
    assert mc.stride(0) != 0 and torch.equal(mc[0], c[0]) and not torch.equal(ms[1], s[1])
    np.testing.assert_allclose(ms.numpy(), N.rope_cos_sin(moved.numpy(), config=cfg)[1], rtol=0, atol=1e-15)


# ----------------------------------------------------------------------------------------
# the fast path (a decoding step): the checks of a call are skipped only for a call of the
# same shapes, dtypes, devices, keywords and config


def _error(fn, *args, **kwargs) -> tuple[type, str]:
    try:
        fn(*args, **kwargs)
    except (TypeError, ValueError, RuntimeError) as e:
        return type(e), str(e)
    raise AssertionError("no error")


@pytest.mark.parametrize("bad", ["seq", "ids_dtype", "x_dtype", "heads", "device", "config", "layout", "tables",
                                 "tables_dtype", "tables_device", "rotary_dim"])
def test_after_a_fast_call_a_changed_call_gets_every_check_and_the_same_message(bad):
    """Each bad call raises, after good calls of the fast path (warm), exactly what it raises
    with nothing kept (cold): a changed shape, dtype, device, config or keyword is checked in full."""
    cfg = dict(LLAMA)
    q, k = _x((2, 32, 1, 128)), _x((2, 8, 1, 128), seed=1)
    ids = _ids(2, 1, start=4000)
    cos, sin = PT.rope_cos_sin(ids, config=cfg, dtype=torch.float32)
    good = [lambda: PT.apply_rope((q, k), ids, config=cfg), lambda: PT.apply_rope((q, k), cos_sin=(cos, sin)),
            lambda: PT.rope_cos_sin(ids, config=cfg, dtype=torch.float32)]
    call = {
        "seq": lambda: PT.apply_rope((q, k), _ids(2, 2), config=cfg),
        "ids_dtype": lambda: PT.apply_rope((q, k), ids.bool(), config=cfg),
        "x_dtype": lambda: PT.apply_rope((q.to(torch.int64), k), ids, config=cfg),
        "heads": lambda: PT.apply_rope((q[:1], k), ids, config=cfg),
        "device": lambda: PT.apply_rope((q, k), cos_sin=(cos, sin.to("meta"))),
        "config": lambda: PT.apply_rope((q, k), ids, config=dict(cfg, head_dim=256)),
        "layout": lambda: PT.apply_rope((q, k), ids, config=cfg, layout="rotate_half"),
        "tables": lambda: PT.apply_rope((q, k), cos_sin=(cos[:, :, :64], sin[:, :, :64]), rotary_dim=128),
        "tables_dtype": lambda: PT.apply_rope((q.double(), k.double()), cos_sin=(cos, sin)),
        "tables_device": lambda: PT.apply_rope((q, k), cos_sin=(cos.to("meta"), sin.to("meta"))),
        "rotary_dim": lambda: PT.apply_rope((q, k), ids, config=cfg, rotary_dim=64),
    }[bad]
    PT.clear_cache()
    cold = _error(call)
    for f in good * 3:  # kept, then taken from the fast path
        f()
    assert len(PTB._B.fast) == 3
    assert _error(call) == cold
    for f in good:
        f()  # (still good)


def test_a_config_changed_in_place_is_planned_again():
    cfg = {"head_dim": 16, "rope_theta": 10000.0}
    x, ids = _x((1, 2, 3, 16), torch.float64), _ids(1, 3, start=50)
    first = PT.apply_rope(x, ids, config=cfg)
    assert torch.equal(PT.apply_rope(x, ids, config=cfg), first)  # the fast path
    cfg["rope_theta"] = 500.0
    assert torch.equal(PT.apply_rope(x, ids, config=cfg), PT.apply_rope(x, ids, base=500.0))
    cfg["head_dim"] = 7
    with pytest.raises(ValueError, match="head_dim"):
        PT.apply_rope(x, ids, config=cfg)
    cfg["head_dim"] = 16
    c1, _ = PT.rope_cos_sin(ids, config=cfg)
    cfg["rope_theta"] = 10000.0
    c2, _ = PT.rope_cos_sin(ids, config=cfg)
    assert not torch.equal(c1, c2) and torch.equal(c2, PT.rope_cos_sin(ids, 16)[0])


def test_the_fast_path_keeps_the_layout_warning_and_autograd():
    cohere = N.model_config("command-r-v01") if "command-r-v01" in N.model_configs() else {
        "model_type": "cohere", "head_dim": 16, "rope_theta": 10000.0}
    x, ids = _x((1, 2, 3, N.parse_rope_config(cohere).head_dim)), _ids(1, 3)
    for _ in range(3):
        with pytest.warns(N.ConfigLayoutWarning, match="interleaved") as rec:
            PT.apply_rope(x, ids, config=cohere)
        assert rec[0].filename == __file__
    PT.clear_cache()
    xg = _x((1, 2, 3, 16), torch.float64).requires_grad_(True)
    for _ in range(2):  # the second call from the fast path: still recorded by autograd
        y = PT.apply_rope(xg, _ids(1, 3), base=100.0)
        assert y.requires_grad
        (g,) = torch.autograd.grad(y.square().sum(), xg)
        torch.testing.assert_close(g, 2 * xg, rtol=1e-12, atol=1e-12)  # a rotation keeps norms


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_full_width_rotation_gives_the_bits_of_the_pair_formula(dtype, layout):
    """The eager route of a small CPU x (x*c + swap(x)*[-s, s], four operations) rounds as the
    lowered pair formula (x_a c - x_b s, x_a s + x_b c) on the halves: the same bits, for tables
    given (float32 and 16-bit) and from position_ids, partial rotary, a non-contiguous x."""
    from pe_symbolic.numeric import _frontend as F

    tdt, _ = DTYPES[dtype]
    cdt = PTB._B.compute_dtype(tdt)
    x = _x((2, 3, 19, 48), tdt, seed=31)
    ids = _ids(2, 19, start=7777) + torch.arange(2)[:, None]
    for xv, rd in [(x, 48), (x, 32), (x.transpose(1, 2).contiguous().transpose(1, 2), 40)]:
        for tables_dtype in {cdt, tdt}:
            c, s = PT.rope_cos_sin(ids, rd, base=5000.0, dtype=tables_dtype, layout=layout)
            h = rd // 2
            hc, hs = (c[..., :h], s[..., :h]) if layout == "split" else (c[..., 0::2], s[..., 0::2])
            want = F.rotate(PTB._B, xv, hc[:, None], hs[:, None], layout, rd)
            got = PT.apply_rope(xv, cos_sin=(c, s), layout=layout)
            assert got.dtype == tdt and torch.equal(got, want)
            assert torch.equal(PT.apply_rope(xv, cos_sin=(c, s), layout=layout), want)  # (fast path)
        got = PT.apply_rope(xv, ids, base=5000.0, layout=layout, rotary_dim=rd)
        c, s = PT.rope_cos_sin(ids, rd, base=5000.0, dtype=cdt, layout=layout)
        assert torch.equal(got, PT.apply_rope(xv, cos_sin=(c, s), layout=layout))
        assert torch.equal(got[..., rd:], xv[..., rd:])


def test_rotary_embedding_is_rope_cos_sin_and_apply_rope():
    rope = PT.RotaryEmbedding(LLAMA, dtype=torch.float32)
    ids = _ids(2, 3, start=90)
    cos, sin = rope(ids)
    want = PT.rope_cos_sin(ids, config=LLAMA, dtype=torch.float32)
    assert torch.equal(cos, want[0]) and torch.equal(sin, want[1])
    q = _x((2, 4, 3, 128))
    assert torch.equal(rope.apply(q, (cos, sin)), PT.apply_rope(q, ids, config=LLAMA))
    assert "llama" in repr(rope) or "config=" in repr(rope)
    with pytest.raises(TypeError, match="positons"):
        PT.RotaryEmbedding(LLAMA, positons=3)  # an unknown keyword: when built, not at the first call


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_compiled_once_for_every_sequence_length():
    """``torch.compile(dynamic=True)`` (or ``torch._dynamo.mark_dynamic`` on the sequence axes)
    compiles one graph for every prompt length, and one for the decoding step (length 1, which
    Dynamo always specializes): no recompilation per length."""
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    f = torch.compile(lambda x, i: PT.apply_rope(x, i, config=LLAMA), fullgraph=True, dynamic=True)
    decoded = False
    for seq in (16, 24, 40, 7, 1, 1, 3):
        decoded = decoded or seq == 1
        x, ids = _x((2, 4, seq, 128), seed=seq), _ids(2, seq, start=seq * 100)
        torch.testing.assert_close(f(x, ids), PT.apply_rope(x, ids, config=LLAMA), rtol=2.0**-22, atol=2.0**-22)
        assert counters["stats"]["unique_graphs"] == 1 + decoded  # (prompts: one graph; the decoding step: one)


def test_the_fast_path_keys_only_what_cannot_change_unseen():
    """Arguments are keyed by metadata (exact tensors) or by value with their type (numbers,
    strings, dtypes); a tensor subclass or a number of another type is checked in full."""
    PT.clear_cache()
    x, ids = _x((1, 2, 3, 16)), _ids(1, 3)
    w = torch.nn.Parameter(x.clone())
    for _ in range(3):
        PT.apply_rope(w, ids, base=100.0)
    assert not PTB._B.fast  # (a Parameter: no fast path)
    PT.apply_rope(x, ids, rotary_dim=8)
    PT.apply_rope(x, ids, rotary_dim=8)
    assert len(PTB._B.fast) == 1
    cold = _error(PT.apply_rope, x, ids, rotary_dim=8.0)  # 8.0 == 8, but not an int to the checks
    assert "rotary_dim=8.0" in cold[1]


def test_a_make_fx_trace_leaves_no_tracer_tensor_in_the_caches():
    """verify_rope traces apply_rope with make_fx on fake tensors, then calls it eagerly: the
    table and frequency caches must not keep the tracer's FakeTensors (an eager call then
    failed mixing them with real inputs)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    cfg = {"rope_theta": 500000.0, "head_dim": 32, "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 4.0, "original_max_position_embeddings": 1024}}
    PT.clear_cache()

    def rope(x, ids):
        return PT.apply_rope(x, ids, config=cfg)

    make_fx(rope, tracing_mode="fake")(torch.randn(2, 1, 2, 32, dtype=torch.bfloat16),
                                       torch.arange(2)[None].repeat(2, 1))
    x, ids = torch.randn(3, 3, 256, 32, dtype=torch.bfloat16), torch.arange(256)[None].repeat(3, 1)
    got = rope(x, ids)
    assert type(got) is torch.Tensor
    PT.clear_cache()
    assert torch.equal(got, rope(x, ids))


# --- position ids in a float type (issue 42, item 6) -------------------------------------


def test_float16_position_ids_past_65520_are_refused_where_they_gave_nan():
    ids = torch.arange(65500, 65540)[None].to(torch.float16)  # inf from 65520 on
    x = torch.ones(1, 2, 40, 128)
    with pytest.raises(ValueError, match=r"position_ids of dtype float16 must be below 2,048 .*2,049 is the first "
                                         r"position it cannot hold"):
        PT.apply_rope(x, position_ids=ids, config=LLAMA)
    with pytest.raises(ValueError, match=r"positions of dtype bfloat16 must be below 256 .*257 is the first"):
        PT.rope_cos_sin(torch.arange(300).to(torch.bfloat16), config=LLAMA)
    with pytest.raises(ValueError, match=r"float32 must be below 16,777,216 .*16,777,217 is the first"):
        PT.apply_rope(x[:, :, :2], position_ids=torch.tensor([[0.0, 2.0**24 + 2]]), config=LLAMA)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_16_bit_position_ids_where_exact_are_converted_with_a_warning(dtype):
    x = torch.randn(1, 2, 100, 128, dtype=torch.float64)
    ids = torch.arange(100)[None]
    want = PT.apply_rope(x, position_ids=ids, config=LLAMA)
    with pytest.warns(UserWarning, match=r"converted \(exact here"):
        got = PT.apply_rope(x, position_ids=ids.to(dtype), config=LLAMA)
    assert torch.equal(got, want)


def test_16_bit_position_ids_are_refused_while_compiling(monkeypatch):
    module = PTB  # (the backend, where _float_positions reads _compiling)

    monkeypatch.setattr(module, "_compiling", lambda: True)
    with pytest.raises(TypeError, match=r"bfloat16 are refused under torch.compile.*257 is the first"):
        module._float_positions(torch.arange(4).to(torch.bfloat16), "position_ids")
    t = torch.arange(4, dtype=torch.float32)
    assert module._float_positions(t, "position_ids") is t  # float32: taken (its values are not read here)


def test_a_config_compiled_before_any_eager_call_reads_its_defaults_table():
    """In a fresh process, the first use of a config is under torch.compile(fullgraph=True):
    the defaults table (a file) was read at import, not while dynamo traces."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import torch, pe_symbolic.torch as PT
        from pe_symbolic import numeric as N
        cfg = N.model_config("llama-3.1-8b")
        x = torch.ones(1, 2, 12, 128)
        ids = torch.arange(12)[None]
        cf = torch.compile(lambda x, i: PT.apply_rope(x, i, config=cfg), fullgraph=True)
        torch.testing.assert_close(cf(x, ids), PT.apply_rope(x, ids, config=cfg), rtol=2.0**-22, atol=2.0**-22)
        print("ok")
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert res.stdout.strip().endswith("ok"), res.stderr[-3000:]
