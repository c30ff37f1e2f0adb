"""pe_symbolic.torch and pe_symbolic.jax on a GPU: tensors stay on the device, the tables
there are the float64 route's (against the mpmath oracle and the CPU's), the rotation is the
CPU's bit for bit where the operations are the same, compiled and differentiable.

Every test here skips without a CUDA device (CI has none); they run where one is lent."""

from __future__ import annotations

import numpy as np
import pytest

from pe_symbolic import reference
from strategies import shipped_config_case

torch = pytest.importorskip("torch")

import pe_symbolic.numeric as N  # noqa: E402
import pe_symbolic.torch as PT  # noqa: E402

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
LLAMA = N.model_config("llama-3.1-8b")
DTYPES = (torch.float32, torch.bfloat16, torch.float16, torch.float64)
ULP = {torch.float32: 2.0**-23, torch.bfloat16: 2.0**-7, torch.float16: 2.0**-10, torch.float64: 2.0**-52}


def _x(shape, dtype, seed=0, device="cuda"):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype).to(device)


def _ids(batch, seq, start=0, device="cuda"):
    return (torch.arange(seq, device=device) + start)[None].expand(batch, seq).contiguous()


def _table_gap(a, b):
    """Largest difference of two tables in units of ``a``'s dtype's ulp at 1 (their entries
    are at most 1 in size, so that is at least an ulp of every entry)."""
    return float((a.double().cpu() - b.double().cpu()).abs().max()) / ULP[a.dtype]


@cuda
@pytest.mark.parametrize("dtype", DTYPES)
def test_tables_on_the_gpu_are_the_cpus_to_an_ulp(dtype):
    """The same float64 route on both devices; CUDA's float64 cos/sin are within 2 ulp (not
    correctly rounded, nor is the CPU's), so the rounded tables agree to one ulp of their
    dtype (float64: a few ulp)."""
    pos = torch.arange(0, 2**20, 97)
    for layout in ("split", "interleaved"):
        c, s = PT.rope_cos_sin(pos.cuda(), config=LLAMA, dtype=dtype, layout=layout)
        wc, ws = PT.rope_cos_sin(pos, config=LLAMA, dtype=dtype, layout=layout)
        assert c.device.type == "cuda" and c.dtype == dtype and c.shape == wc.shape
        bound = 8 if dtype == torch.float64 else 1
        assert _table_gap(c, wc) <= bound and _table_gap(s, ws) <= bound


@cuda
def test_gpu_tables_at_a_million_positions_against_the_oracle():
    """Angles formed in float64 on the device too: within 2**-52 |angle| + the device's
    cos/sin error at 1M positions (base 500000), where HF's float32 angles are off by 7.5e-2 rad."""
    pos = np.array([131071.0, 999_999.0, 2.0**20 - 1])
    c, s = PT.rope_cos_sin(torch.from_numpy(pos).cuda(), 128, base=500000.0, dtype=torch.float64)
    ref = reference.to_float(reference.sinusoidal_table(pos, 128, base=500000, layout="split",
                                                        order="cos_sin", dps=40))
    c, s = c.cpu().numpy(), s.cpu().numpy()
    err = max(np.abs(c[:, :64] - ref[:, :64]).max(), np.abs(s[:, :64] - ref[:, 64:]).max())
    assert err <= 2.0**-52 * 2.0**20 + 4 * 2.0**-52
    for dt in (torch.float32, torch.bfloat16):  # rounded once: within half an ulp + the float64 error
        c32, _ = PT.rope_cos_sin(torch.from_numpy(pos).cuda(), 128, base=500000.0, dtype=dt)
        assert np.abs(c32.double().cpu().numpy()[:, :64] - ref[:, :64]).max() <= ULP[dt] / 2 + 1e-9


@cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["split", "interleaved"])
def test_the_rotation_on_the_gpu_is_the_cpus_bit_for_bit(dtype, layout):
    """Given the same tables, eager CUDA runs the same operations (a product, a product, a
    difference or sum; no contraction in separate kernels): the same bits as the CPU."""
    x = _x((2, 4, 64, 128), dtype, seed=1)
    ids = _ids(2, 64, start=70000, device="cpu")
    tdt = torch.float64 if dtype == torch.float64 else torch.float32
    c, s = PT.rope_cos_sin(ids, config=LLAMA, dtype=tdt, layout=layout)
    got = PT.apply_rope(x, cos_sin=(c.cuda(), s.cuda()), layout=layout)
    want = PT.apply_rope(x.cpu(), cos_sin=(c, s), layout=layout)
    assert got.device.type == "cuda" and got.dtype == dtype
    assert torch.equal(got.cpu(), want)


@cuda
@pytest.mark.parametrize("dtype", DTYPES)
def test_position_ids_on_the_gpu_or_the_cpu_give_the_same_rotation(dtype):
    """Tables formed on x's device from GPU or CPU ids: within the tables' ulp of the CPU's
    result (tables may differ by an ulp, see above), bit for bit between the two id devices."""
    x = _x((2, 8, 48, 128), dtype, seed=2)
    ids = _ids(2, 48, start=123456)
    a = PT.apply_rope(x, ids, config=LLAMA)
    b = PT.apply_rope(x, ids.cpu(), config=LLAMA)
    assert a.device.type == b.device.type == "cuda" and a.dtype == b.dtype == dtype
    assert torch.equal(a, b)
    want = PT.apply_rope(x.cpu(), ids.cpu(), config=LLAMA)
    tol = 4 * ULP[dtype] * float(x.abs().max())
    torch.testing.assert_close(a.cpu(), want, rtol=0, atol=tol)


@cuda
def test_tables_on_another_device_than_x_are_refused_by_name():
    x = _x((1, 2, 8, 16), torch.float32)
    c, s = PT.rope_cos_sin(_ids(1, 8, device="cpu"), 16)
    with pytest.raises(ValueError, match="device"):
        PT.apply_rope(x, cos_sin=(c, s))


@cuda
def test_gpu_gradients():
    x = _x((1, 2, 8, 16), torch.float32).requires_grad_(True)
    y = PT.apply_rope(x, _ids(1, 8))
    (y ** 2).sum().backward()  # a rotation keeps norms: d/dx |Rx|^2 = 2x
    assert x.grad.device.type == "cuda"
    torch.testing.assert_close(x.grad, 2 * x.detach(), rtol=1e-6, atol=1e-6)
    x64 = _x((1, 2, 5, 8), torch.float64, seed=11).requires_grad_(True)
    ids = _ids(1, 5, start=100)
    for layout in ("split", "interleaved"):
        assert torch.autograd.gradcheck(lambda v: PT.apply_rope(v, ids, layout=layout, rotary_dim=6), (x64,))


@cuda
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_torch_compile_fullgraph_on_the_gpu(dtype):
    """Compiled on CUDA (tables traced into the graph, formed in float64 there): within an ulp
    of eager (a compiled kernel may contract a*b - c*d into an FMA)."""
    x = _x((2, 4, 32, 128), dtype, seed=12)
    ids = _ids(2, 32, start=70000)

    def f(x, ids):
        a = PT.apply_rope(x, ids, config=LLAMA)
        b = PT.apply_rope(x, ids, base=500000.0, layout="interleaved")
        return a, b, PT.sinusoidal_table(ids, 16)

    cf = torch.compile(f, fullgraph=True)
    got, want = cf(x, ids), f(x, ids)
    for g, w in zip(got, want):
        assert g.device.type == "cuda"
        tol = 2 * ULP[g.dtype]
        torch.testing.assert_close(g.float(), w.float(), rtol=tol, atol=tol)


@cuda
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_mrope_on_the_gpu_eager_compiled_and_against_the_cpu():
    """M-RoPE's (3, batch, seq) ids on the device: the axis index tensor made there once, the
    tables as one operation in the compiled graph."""
    cfg = N.model_config("qwen2-vl-7b")
    x = _x((2, 4, 24, 128), torch.float32, seed=13)
    ids = _ids(2, 24, start=900)
    ids3 = torch.stack([ids, ids // 2, ids % 7])
    eager = PT.apply_rope(x, ids3, config=cfg)
    compiled = torch.compile(lambda x, i: PT.apply_rope(x, i, config=cfg), fullgraph=True)(x, ids3)
    cpu = PT.apply_rope(x.cpu(), ids3.cpu(), config=cfg)
    tol = 4 * ULP[torch.float32] * float(x.abs().max())
    torch.testing.assert_close(eager.cpu(), cpu, rtol=0, atol=tol)
    torch.testing.assert_close(compiled, eager, rtol=0, atol=tol)


@cuda
@pytest.mark.parametrize("name", sorted(N.model_configs()))
@pytest.mark.filterwarnings("ignore:.*equals config.*:UserWarning")  # Llama-4-Scout: low == high, as HF warns
def test_every_shipped_config_on_the_gpu_matches_the_cpu(name):
    """Every rope type a shipped config asks for (dynamic's sequence length read on the host,
    M-RoPE, axial, per-layer types), eager on the device against the CPU: float64, within the
    device's cos/sin error."""
    cfg, spec, lt, ids, layout = shipped_config_case(name, _ids(2, 24, start=5000), torch.stack)
    x = _x((2, 2, 24, spec.head_dim), torch.float64, seed=3)
    got = PT.apply_rope(x, ids, config=cfg, layer_type=lt, layout=layout)
    want = PT.apply_rope(x.cpu(), ids.cpu(), config=cfg, layer_type=lt, layout=layout)
    assert got.device.type == "cuda"
    torch.testing.assert_close(got.cpu(), want, rtol=0, atol=16 * ULP[torch.float64] * float(x.abs().max()))


@cuda
def test_sinusoidal_table_on_the_gpu():
    t = torch.arange(0, 4096, 7)
    for dt in (torch.float32, torch.float64):
        got = PT.sinusoidal_table(t.cuda(), 64, dtype=dt)
        want = PT.sinusoidal_table(t, 64, dtype=dt)
        assert got.device.type == "cuda" and _table_gap(got, want) <= (8 if dt == torch.float64 else 1)
    assert PT.sinusoidal_table([0, 1, 2], 8, device="cuda").device.type == "cuda"


# ----------------------------------------------------------------------------------------
# JAX on a GPU


def _jax_gpu():
    try:
        import jax
    except ImportError:
        return None
    try:
        return jax.devices("gpu")[0]
    except RuntimeError:
        return None


jax_gpu = pytest.mark.skipif(_jax_gpu() is None, reason="no JAX GPU device")


@jax_gpu
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_jax_on_the_gpu_stays_there_and_matches_the_numpy_core(dtype):
    import jax
    import jax.numpy as jnp
    import ml_dtypes

    import pe_symbolic.jax as PJ

    dev = _jax_gpu()
    npdt = np.float32 if dtype == "float32" else ml_dtypes.bfloat16
    xn = np.random.default_rng(3).standard_normal((2, 4, 40, 128)).astype(npdt)
    ids = np.broadcast_to(np.arange(40)[None] + 99_000, (2, 40))
    x = jax.device_put(jnp.asarray(xn), dev)
    for fn in (lambda x, i: PJ.apply_rope(x, i, config=LLAMA),
               jax.jit(lambda x, i: PJ.apply_rope(x, i, config=LLAMA))):
        got = fn(x, jax.device_put(jnp.asarray(ids, dtype=jnp.int32), dev))
        assert got.dtype == x.dtype and got.devices() == {dev}
        want = N.apply_rope(xn, position_ids=ids, config=LLAMA)
        # XLA may contract a*b - c*d into an FMA: within two ulp of the result's dtype
        tol = 2 * (2.0**-23 if dtype == "float32" else 2.0**-7) * float(np.abs(xn.astype(np.float32)).max())
        np.testing.assert_allclose(np.asarray(got, dtype=np.float32), want.astype(np.float32), rtol=0, atol=tol)
