"""verify_rope runs what the model runs: q beside k, every head, the whole context, the
model's dtype, no aliasing -- and names the bug (issue 40)."""

from __future__ import annotations

import numpy as np
import pytest

import pe_symbolic as pe
from pe_symbolic.audit.verify.conventions import model_dtype, model_heads

CFG = {"model_type": "llama", "rope_theta": 10000.0, "head_dim": 16, "hidden_size": 128, "num_attention_heads": 8,
       "num_key_value_heads": 2, "max_position_embeddings": 4096}


def _np_rope(x, ids, *, pos=None, heads_upto=None):
    inv = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    p = ids if pos is None else pos(ids)
    ang = p[..., None].astype(np.float64) * inv
    emb = np.concatenate([ang, ang], -1)
    c, s = np.cos(emb)[:, None], np.sin(emb)[:, None]
    y = x * c + np.concatenate([-x[..., 8:], x[..., :8]], -1) * s
    if heads_upto is not None:
        y[:, heads_upto:] = x[:, heads_upto:]
    return y.astype(x.dtype)


def _pair(k_bug=None):
    torch = pytest.importorskip("torch")
    inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))

    class Emb(torch.nn.Module):
        def forward(self, x, ids):
            ang = ids[..., None].double() * inv
            emb = torch.cat([ang, ang], -1)
            return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    def rh(t):
        return torch.cat([-t[..., 8:], t[..., :8]], -1)

    def apply(q, k, cos, sin):
        cos, sin = cos[:, None], sin[:, None]
        qo = q * cos + rh(q) * sin
        if k_bug == "minus":
            return qo, k * cos - rh(k) * sin
        if k_bug == "copy":
            return qo, k * cos + rh(q[:, : k.shape[1]]) * sin
        return qo, k * cos + rh(k) * sin
    return Emb(), apply


def test_model_heads_and_dtype_are_read_from_the_config():
    assert model_heads(CFG) == (8, 2)
    assert model_heads({"text_config": {"num_attention_heads": 4}}) == (4, 4)
    assert model_dtype({"torch_dtype": "bfloat16"})[0] == "bfloat16"
    assert model_dtype({"dtype": "float16"})[0] == "float16"
    r = pe.verify_rope(_np_rope, dict(CFG, torch_dtype="bfloat16"), seed=1, trace=False)
    assert r.verdict == "consistent (tested)" and "calls in bfloat16" in r.tests["summary"]
    assert any("dtype bfloat16: the config's torch_dtype" in n for n in r.notes)


def test_a_right_pair_checks_q_and_k_and_a_k_only_bug_differs_on_k_alone():
    good = pe.verify_rope(_pair(), CFG, seed=2)
    assert good.verdict == "verified", good
    assert "q and k checked" in good.tests["summary"] and "k: passed" in good.tests["summary"]
    bad = pe.verify_rope(_pair("minus"), CFG, seed=2)
    assert bad.verdict == "differs"
    assert "q: passed" in bad.tests["summary"] and "k: FAILED" in bad.tests["summary"]
    assert "wrong way" in bad.to_text() and "k (head 1 of the trace)" in bad.to_text()
    copy = pe.verify_rope(_pair("copy"), CFG, seed=2)
    assert copy.verdict == "differs" and "depends on q" in copy.to_text()


def test_heads_from_n_on_left_unrotated_and_ids_ignored_are_named():
    r = pe.verify_rope(lambda x, ids: _np_rope(x, ids, heads_upto=4), CFG, seed=3)
    assert r.verdict == "differs" and "head 4 alone is right" in r.to_text() and "from 4 on" in r.to_text()
    r = pe.verify_rope(lambda x, ids: _np_rope(x, ids, pos=lambda i: np.broadcast_to(np.arange(i.shape[-1]), i.shape)),
                       CFG, seed=3, trace=False)
    assert r.verdict == "differs" and "ignores position_ids" in r.to_text()
    assert "halves are not swapped" not in r.to_text()


@pytest.mark.parametrize("pos, says", [
    (lambda i: np.minimum(i, 1023), "table of 1024 rows, clamped"),
    (lambda i: np.where(i >= 1500, i - 1500, i), "without its offset"),
    (lambda i: i % 2048, "2^11 = 2048"),
])
def test_position_maps_are_named_from_a_second_check(pos, says):
    r = pe.verify_rope(lambda x, ids: _np_rope(x, ids, pos=pos), CFG, seed=4, trace=False)
    assert r.verdict == "differs" and says in r.to_text(), r


def test_a_chunked_prefill_reusing_the_first_chunks_ids_is_caught_by_the_full_length_prefill():
    torch = pytest.importorskip("torch")
    cfg = dict(CFG, max_position_embeddings=12000)

    def rope(x, ids):
        return torch.from_numpy(_np_rope(x.numpy(), ids.numpy()))

    def chunked(x, ids):
        n = 8192  # every chunk gets the first chunk's position_ids
        if x.shape[2] <= n:
            return rope(x, ids)
        return torch.cat([rope(x[:, :, i:i + n], ids[:, : x[:, :, i:i + n].shape[2]]) for i in range(0, x.shape[2], n)], 2)
    r = pe.verify_rope(chunked, cfg, seed=5, trace=False)
    assert r.verdict == "differs"
    assert "a prefill of 12000 tokens" in r.to_text() and "first chunk's position_ids" in r.to_text(), r


def test_in_place_rotation_and_a_static_output_buffer_are_named():
    torch = pytest.importorskip("torch")

    def inplace(x, ids):
        x.copy_(torch.from_numpy(_np_rope(x.numpy(), ids.numpy())))
        return x
    r = pe.verify_rope(inplace, CFG, seed=6, trace=False)
    assert r.verdict == "differs" and "in place" in r.to_text() and "allow_inplace=True" in r.to_text()
    ok = pe.verify_rope(inplace, CFG, seed=6, trace=False, allow_inplace=True)
    assert ok.verdict == "consistent (tested)" and any("accepted (allow_inplace=True)" in n for n in ok.notes)
    buf = {}

    def static(x, ids):
        o = buf.setdefault(tuple(x.shape), torch.empty_like(x))
        o.copy_(torch.from_numpy(_np_rope(x.numpy(), ids.numpy())))
        return o
    r = pe.verify_rope(static, CFG, seed=6, trace=False)
    assert r.verdict == "differs" and "shares storage with the previous call's" in r.to_text()


def test_the_cli_takes_an_hf_pair_and_says_what_it_found(tmp_path, capsys):
    pytest.importorskip("torch")
    import json

    from pe_symbolic.cli.audit import main

    src = tmp_path / "rope.py"
    src.write_text(
        "import torch\n"
        "inv = 1.0 / (10000.0 ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16))\n"
        "class Rotary(torch.nn.Module):\n"
        "    def __init__(self, config=None):\n"
        "        super().__init__()\n"
        "    def forward(self, x, ids):\n"
        "        ang = ids[..., None].double() * inv\n"
        "        emb = torch.cat([ang, ang], -1)\n"
        "        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)\n"
        "def rh(t):\n"
        "    return torch.cat([-t[..., 8:], t[..., :8]], -1)\n"
        "def apply_rotary_pos_emb(q, k, cos, sin):\n"
        "    cos, sin = cos[:, None], sin[:, None]\n"
        "    return q * cos + rh(q) * sin, k * cos + rh(k) * sin\n"
        "PAIR = (Rotary(), apply_rotary_pos_emb)\n"
        "NOT_A_PAIR = (1, 2, 3)\n")
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(dict(CFG, max_position_embeddings=1024)))
    assert main([str(cfg), "--recipe", f"{src}:Rotary,apply_rotary_pos_emb", "--seed", "1"]) == 0
    assert "q and k checked" in capsys.readouterr().out
    assert main([str(cfg), "--recipe", f"{src}:PAIR", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main([str(cfg), "--recipe", f"{src}:NOT_A_PAIR"]) == 2
    err = capsys.readouterr().err
    assert "tuple of 3" in err and "accepted:" in err
    assert main([str(cfg), "--recipe", f"{src}:ROPE"]) == 2
    err = capsys.readouterr().err
    assert "has no 'ROPE'" in err and "PAIR" in err
