"""verify_rope starts for everyone: the framework found from the function, HF's protocols, the CLI."""

from __future__ import annotations

import numpy as np
import pytest

import pe_symbolic as pe
from pe_symbolic.audit.verify.calling import detect_framework

CFG = {"rope_theta": 10000.0, "head_dim": 16, "hidden_size": 64, "num_attention_heads": 4,
       "max_position_embeddings": 1024}


def test_the_framework_is_read_from_the_function_and_what_it_holds():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    def uses_torch(x, ids):
        return torch.cat([x], -1)

    def uses_alias(x, ids):
        return F.relu(x)

    inv = torch.ones(3)

    def holds_a_tensor(x, ids):
        return x * inv[0]

    def calls_a_helper(x, ids):
        return uses_torch(x, ids)

    for fn in (uses_torch, uses_alias, holds_a_tensor, calls_a_helper, torch.nn.Identity()):
        assert detect_framework(fn)[0] == "torch", fn
    assert detect_framework(lambda x, ids: np.cos(x))[0] == "numpy"
    assert detect_framework((torch.nn.Identity(), lambda *a: a))[0] == "torch"  # HF's pair: an nn.Module


def test_an_undecidable_function_is_tried_and_the_error_names_framework():
    def plain(x, ids):  # only operators: runs anywhere
        return x * 1

    assert detect_framework(plain, trial=lambda fw: None)[0] == "numpy"
    with pytest.raises(ValueError, match="framework="):
        detect_framework(plain, trial=lambda fw: RuntimeError(f"not {fw}"))
    with pytest.raises(ValueError, match="framework='tf'"):
        detect_framework(plain, "tf")


def test_a_torch_function_in_the_users_own_file_runs_in_torch(tmp_path):
    torch = pytest.importorskip("torch")
    src = tmp_path / "myrope.py"
    src.write_text(
        "import torch\n"
        "def rope(x, position_ids):\n"
        "    inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))\n"
        "    ang = position_ids[..., None].double() * inv\n"
        "    emb = torch.cat([ang, ang], -1)\n"
        "    cos, sin = emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)\n"
        "    return x * cos + torch.cat([-x[..., 8:], x[..., :8]], -1) * sin\n")
    from pe_symbolic.cli.audit import _load_callable

    report = pe.verify_rope(_load_callable(f"{src}:rope"), CFG, seed=1)
    assert report.verdict == "verified", report.to_text()
    assert "framework torch (detected: rope uses torch" in report.to_text()
    del torch


def _pair(one_tensor=False, complex_tables=False, partial=None, seq_first=False):
    torch = pytest.importorskip("torch")
    r = partial or 16
    inv = 1.0 / (10000.0 ** (torch.arange(0, r, 2, dtype=torch.float64) / r))

    class Emb(torch.nn.Module):
        def forward(self, x, ids):
            ang = ids[..., None].double() * inv
            if complex_tables:
                return torch.polar(torch.ones_like(ang), ang)
            emb = torch.cat([ang, ang], -1)
            return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    def rot(x, cos, sin):
        h = x.shape[-1] // 2
        return x * cos + torch.cat([-x[..., h:], x[..., :h]], -1) * sin

    if complex_tables:
        def apply(xq, xk, freqs_cis):  # Llama 4 / Meta: interleaved pairs, (batch, seq, heads, d) if seq_first
            f = freqs_cis[:, :, None, :] if seq_first else freqs_cis[:, None]

            def one(t):
                tc = torch.view_as_complex(t.double().reshape(*t.shape[:-1], -1, 2))
                return torch.view_as_real(tc * f).flatten(3).to(t.dtype)
            return one(xq), one(xk)  # k rotated as q is: verify checks both
    elif one_tensor:
        def apply(x, cos, sin, unsqueeze_dim=1):  # Gemma 3n / 4
            return rot(x, cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim))
    else:
        def apply(q, k, cos, sin):
            return rot(q, cos[:, None], sin[:, None]), rot(k, cos[:, None], sin[:, None])
    return Emb(), apply


@pytest.mark.parametrize("kind", ["two-tensor", "one-tensor", "complex", "complex seq-first", "partial"])
def test_hf_pair_protocols_are_all_taken(kind):
    cfg = dict(CFG)
    layout = None
    if kind == "two-tensor":
        pair = _pair()
    elif kind == "one-tensor":
        pair = _pair(one_tensor=True)
    elif kind.startswith("complex"):
        pair, layout = _pair(complex_tables=True, seq_first="seq-first" in kind), "interleaved"
    else:  # tables for 8 of 16 channels, apply on the rotary part only: split as the attention does
        pair, cfg = _pair(partial=8), {**CFG, "partial_rotary_factor": 0.5}
    report = pe.verify_rope(pair, cfg, layout=layout, seed=2)
    assert report.verdict == "verified", report.to_text()
    text = report.to_text()
    want = {"two-tensor": "apply(q, k, cos, sin)", "one-tensor": "apply(x, cos, sin)",
            "complex": "apply(xq, xk, freqs_cis)", "complex seq-first": "(batch, seq, heads, head_dim)",
            "partial": "on x[..., :8]"}[kind]
    assert want in text, text


def test_pe_audit_recipe_takes_framework_layout_length_and_seed(tmp_path, capsys):
    from pe_symbolic.cli.audit import main

    src = tmp_path / "inter.py"
    src.write_text(
        "import numpy as np\n"
        "def rope(x, position_ids):\n"
        "    inv = 10000.0 ** (-np.arange(0, 128, 2) / 128)\n"
        "    ang = np.repeat(position_ids[..., None] * inv, 2, -1)\n"
        "    rot = np.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)\n"
        "    return x * np.cos(ang)[:, None] + rot * np.sin(ang)[:, None]\n")
    cfg = tmp_path / "config.json"
    cfg.write_text('{"rope_theta": 10000.0, "head_dim": 128, "hidden_size": 512, "num_attention_heads": 4, '
                   '"max_position_embeddings": 2048}')
    assert main([str(cfg), "--recipe", f"{src}:rope", "--context", "2048", "--seed", "3"]) == 1  # split weights
    assert "as the interleaved layout" in capsys.readouterr().out
    assert main([str(cfg), "--recipe", f"{src}:rope", "--context", "2048", "--layout", "interleaved",
                 "--framework", "numpy", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "VERIFIED" in out and "seed 3" in out
    assert main([str(cfg), "--recipe", f"{src}:rope", "--layout", "diagonal"]) == 2
    assert main([str(cfg), "--recipe", "hf", "--length", "10"]) == 2  # --length is for FILE.py:FN only
    assert main([str(cfg), "--recipe", f"{src}:rope", "--length", "ten"]) == 2
    assert "--length" in capsys.readouterr().err
