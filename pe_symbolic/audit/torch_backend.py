r"""``backend="torch"``: the torch presets computed by torch, on CPU or CUDA.

For each torch preset the frameworks' own operations are run, line for line as their code
has them (the source note of each preset in :mod:`pe_symbolic.audit.recipes` says where):
the inverse frequencies (and HF's ``llama3`` scaling) in float32 torch ops, the positions
and the product (``matmul`` / ``einsum`` / ``outer``) in the dtype the code uses, under
``torch.autocast`` for ``hf-autocast``, torch's ``cos`` / ``sin``, the cache casts, and the
rotation (``q * cos + rotate_half(q) * sin`` in the activation dtype, or the float32 math of
torchtune / flash-attn / rotary-embedding-torch). Where Hugging Face ``transformers`` is
installed, ``hf`` runs its ``LlamaRotaryEmbedding`` and ``apply_rotary_pos_emb`` themselves.
Scaled configs other than ``default`` and ``llama3`` take the emulation's frequencies (as a
float32 tensor). The errors are measured exactly as for the emulation, and the bound beside
them takes the frequencies the framework multiplies by (after ``gpt-neox``'s cast of the
buffer with the model, and ``hf-autocast``'s cast of the matmul operand to the autocast dtype).

``rotary-embedding-torch`` holds its positions in the activation dtype
(``rotate_queries_or_keys`` calls ``arange(n, dtype=x.dtype)``); they are the positions
rounded once to that dtype (``pos.to(dtype)``), which is what the CUDA ``arange`` kernel
gives (``static_cast<scalar_t>(start + step * float(index))``: exact below 2**24, then one
rounding). torch's CPU ``arange`` kernel for bfloat16 / float16 is not correctly rounded
(``torch.arange(5000, dtype=torch.bfloat16)[4113]`` is 4096 on an AVX2 CPU, not 4128): where
it differs on the device audited, the result's note says from which position.

torch is optional: ``pip install 'pe_symbolic[torch]'``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .emulate import Chunk, Emulation
from .measure import RecipeAudit, measure

__all__ = ["TORCH_PRESETS", "measure_torch", "require_torch", "supports"]

#: Presets whose framework code is torch (run for real with ``backend="torch"``).
TORCH_PRESETS = ("hf", "hf-autocast", "gpt-neox", "vllm", "torchtune", "flash-attn", "liger",
                 "rotary-embedding-torch", "fairseq")


def require_torch(device: str = "cpu") -> Any:
    """Import torch or raise an ``ImportError`` that says how to install it; check ``device``."""
    try:
        import torch
    except ImportError:
        raise ImportError("backend='torch' needs torch, which is not installed: "
                          "pip install 'pe_symbolic[torch]' (or pip install torch)") from None
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"device={device!r} is not a torch device; use 'cpu' or 'cuda'") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r}: torch sees no CUDA device here; use device='cpu'")
    return torch


def supports(recipe: Any) -> bool:
    """Whether ``recipe`` is a torch preset (unchanged), run by torch with this backend."""
    from .recipes import PRESETS

    return recipe.name in TORCH_PRESETS and PRESETS.get(recipe.name) == recipe


def _rotate_half(torch, x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class _TorchChunker:
    def __init__(self, em: Emulation, context: int, device: str) -> None:
        self.torch = torch = require_torch(device)
        self.em, self.context, self.device = em, context, torch.device(device)
        self.act = getattr(torch, em.act)
        tg = em.target
        self.name = em.recipe.name
        self.d, self.h = tg.rotary_dim, tg.pairs
        self.hf_module = None
        self.note = ""
        self.inv = self._inv_freq()
        if self.name == "hf":
            self._try_transformers()
        if self.name == "rotary-embedding-torch":
            self._check_arange()

    def used_inv_freq(self):
        """The inverse frequencies the framework multiplies by: ``gpt-neox`` casts its buffer
        with the model; ``hf-autocast``'s matmul takes it in the autocast dtype (bfloat16 /
        float16 activations; no autocast otherwise); the others use it as computed."""
        torch = self.torch
        if self.name == "gpt-neox" or (self.name == "hf-autocast" and self.act in (torch.bfloat16, torch.float16)):
            return self.inv.to(self.act)
        return self.inv

    def _check_arange(self) -> None:
        """Say where this device's ``arange(n, dtype=act)`` differs from the correctly rounded
        positions audited (torch's CPU kernel for bfloat16 / float16)."""
        torch, act = self.torch, self.act
        if act not in (torch.bfloat16, torch.float16):
            return
        n = min(self.context, 2**21)
        real = torch.arange(n, dtype=act, device=self.device)
        ref = torch.arange(n, device=self.device).to(act)
        diff = (real != ref).nonzero()
        if diff.numel():
            i = int(diff[0, 0])
            self.note = (f"torch.arange(n, dtype={str(act).removeprefix('torch.')}) on this {self.device.type} "
                         f"is not correctly rounded from position {i} ({float(real[i])!r}, not "
                         f"{float(ref[i])!r}): rotate_queries_or_keys here is further off than audited "
                         "(positions rounded once, as CUDA's arange does)")

    # -- the frameworks' inverse frequencies -----------------------------------------------
    def _inv_freq(self):
        torch, em, tg = self.torch, self.em, self.em.target
        d, base = self.d, tg.base
        if self.name == "fairseq":
            half = d // 2
            emb = math.log(base) / (half - 1)
            return torch.exp(torch.arange(half, dtype=torch.float, device=self.device) * -emb)
        inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64, device=self.device).float() / d))
        if tg.kind == "rope" and tg.spec.rope_type == "llama3":
            sp = tg.spec
            factor, lo, hi = sp.factor, sp.low_freq_factor, sp.high_freq_factor
            old = sp.original_max_position_embeddings
            low_wl, high_wl = old / lo, old / hi
            wavelen = 2 * math.pi / inv
            inv_l = torch.where(wavelen > low_wl, inv / factor, inv)
            smooth = (old / wavelen - lo) / (hi - lo)
            smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
            medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
            inv = torch.where(medium, smoothed, inv_l)
        elif tg.kind == "rope" and tg.spec.rope_type != "default":
            inv = torch.tensor(em.inv, dtype=torch.float32, device=self.device)
            self.note = f"{tg.spec.rope_type} frequencies from the emulation (float32)"
        return inv

    def _try_transformers(self) -> None:
        tg = self.em.target
        if tg.kind != "rope" or tg.config is None:
            return
        try:
            from transformers import LlamaConfig
            from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb
        except Exception:  # noqa: BLE001 - any import problem: use the mirrored operations
            self.note = "transformers not installed: HF's operations mirrored in torch"
            return
        cfg = {k: v for k, v in dict(tg.config).items() if not k.startswith("_")}
        try:
            conf = LlamaConfig(**cfg)
            self.hf_module = LlamaRotaryEmbedding(config=conf, device=self.device)
            self.hf_apply = apply_rotary_pos_emb
            import transformers

            self.note = f"transformers {transformers.__version__} LlamaRotaryEmbedding + apply_rotary_pos_emb"
        except Exception as exc:  # noqa: BLE001
            self.note = f"transformers could not build LlamaRotaryEmbedding ({type(exc).__name__}): mirrored"

    # -- one block ------------------------------------------------------------------------
    def _tables(self, pos):
        """(angle as fed to cos, cos, sin as used by the rotation, full width), per framework."""
        torch, name, act, h = self.torch, self.name, self.act, self.h
        inv, af = self.inv, self.em.target.attention
        dev_type = self.device.type
        if name in ("hf", "liger"):
            if self.hf_module is not None:
                x = torch.zeros(1, 1, pos.numel(), 2 * h, dtype=act, device=self.device)
                cos, sin = self.hf_module(x, pos[None, :])
                freqs = (inv[None, :, None].float() @ pos[None, None, :].float()).transpose(1, 2)[0]
                return freqs, cos[0], sin[0]
            with torch.autocast(device_type=dev_type, enabled=False):
                freqs = (inv[None, :, None].float() @ pos[None, None, :].float()).transpose(1, 2)
                emb = torch.cat((freqs, freqs), dim=-1)
                cos, sin = emb.cos() * af, emb.sin() * af
            return freqs[0], cos[0].to(act), sin[0].to(act)
        if name == "hf-autocast":
            low = act in (torch.bfloat16, torch.float16)  # autocast has no float32/float64 mode
            with torch.autocast(device_type=dev_type, dtype=act if low else torch.bfloat16, enabled=low):
                freqs = (inv[None, :, None].float() @ pos[None, None, :].float()).transpose(1, 2)
                emb = torch.cat((freqs, freqs), dim=-1)
                cos, sin = emb.cos() * af, emb.sin() * af
            return freqs[0], cos[0].to(act), sin[0].to(act)
        if name == "gpt-neox":
            inv_m = inv.to(act)  # the buffer, cast with the model
            t = pos.type_as(inv_m)
            freqs = torch.einsum("i,j->ij", t, inv_m)
            emb = torch.cat((freqs, freqs), dim=-1)
            if act == torch.bfloat16:
                emb = emb.float()
            return freqs, emb.cos().to(act), emb.sin().to(act)
        if name == "vllm":
            t = pos.to(torch.float)
            freqs = torch.einsum("i,j -> ij", t, inv)
            cos, sin = freqs.cos().to(act), freqs.sin().to(act)
            return freqs, torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)
        if name == "torchtune":
            idx = torch.einsum("i, j -> ij", pos.to(inv.dtype), inv).float()
            return idx, torch.cos(idx), torch.sin(idx)
        if name == "flash-attn":
            t = pos.to(torch.float32)
            freqs = torch.outer(t, inv)
            return freqs, torch.cos(freqs).to(act), torch.sin(freqs).to(act)
        if name == "rotary-embedding-torch":
            # rotate_queries_or_keys: seq = get_seq_pos(n, dtype=x.dtype) (positions in act),
            # then forward(): einsum('..., f -> ... f', t.type(freqs.dtype), freqs)
            seq = pos.to(act)
            freqs = torch.einsum("..., f -> ... f", seq.type(inv.dtype), inv)
            return freqs, freqs.cos(), freqs.sin()
        if name == "fairseq":
            emb = pos.to(torch.float).unsqueeze(1) * inv.unsqueeze(0)
            return emb, torch.sin(emb).to(act), torch.cos(emb).to(act)  # (angle, sin, cos)
        raise ValueError(f"no torch implementation of {name!r}")

    def _rotate(self, x_pairs, cos, sin, pos):
        """Rotate the unit pairs at every position the framework's way; (a, b) as float64 numpy."""
        torch, name, act, h = self.torch, self.name, self.act, self.h
        P = pos.numel()
        xa = torch.tensor(x_pairs[0], dtype=torch.float64, device=self.device).to(act)
        xb = torch.tensor(x_pairs[1], dtype=torch.float64, device=self.device).to(act)
        if name in ("torchtune", "rotary-embedding-torch", "llama.cpp"):  # interleaved
            x = torch.stack([xa, xb], dim=-1).reshape(1, 2 * h).expand(P, 2 * h)
            if name == "torchtune":
                xs = x.float().reshape(P, h, 2)
                c, s = cos, sin
                out = torch.stack([xs[..., 0] * c - xs[..., 1] * s, xs[..., 1] * c + xs[..., 0] * s], -1)
                out = out.flatten(1).type_as(x)
            else:  # rotary-embedding-torch: repeat '... n -> ... (n r)', r=2; rotate_half of pairs
                c = cos.repeat_interleave(2, dim=-1)
                s = sin.repeat_interleave(2, dim=-1)
                xr = x.reshape(P, h, 2)
                rot = torch.stack((-xr[..., 1], xr[..., 0]), dim=-1).flatten(1)
                out = ((x * c) + (rot * s)).type(x.dtype)
            out = out.reshape(P, h, 2)
            return out[..., 0].double().cpu().numpy(), out[..., 1].double().cpu().numpy()
        x = torch.cat([xa, xb]).reshape(1, 2 * h).expand(P, 2 * h)
        if name == "hf" and self.hf_module is not None:
            q, _ = self.hf_apply(x[None, None], x[None, None], cos[None], sin[None])
            out = q[0, 0]
        elif name in ("flash-attn", "vllm"):  # float32 math on the upcast cache and x, one cast
            c, s = cos[..., :h].float(), sin[..., :h].float()
            x1, x2 = x[..., :h].float(), x[..., h:].float()
            out = torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], -1).to(act)
        elif name == "fairseq":
            raise AssertionError("sinusoidal: no rotation")
        else:  # hf (mirrored), hf-autocast, gpt-neox, liger: q*cos + rotate_half(q)*sin in act
            out = (x * cos) + (_rotate_half(torch, x) * sin)
        return out[:, :h].double().cpu().numpy(), out[:, h:].double().cpu().numpy()

    def __call__(self, t: np.ndarray) -> Chunk:
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is measured, not warned
            return self._chunk(t)

    def _chunk(self, t: np.ndarray) -> Chunk:
        torch, em, tg = self.torch, self.em, self.em.target
        P, h = t.size, self.h
        ext = em.extended(t, self.context)
        pos = torch.tensor(ext.astype(np.int64), device=self.device)
        freqs, cos, sin = self._tables(pos)
        ang = freqs.double().cpu().numpy()
        p, e = em.exact_angles(ext)
        angle_err = np.abs((ang - p) - e)
        cx, sx = tg.exact_cos_sin(ext)
        if self.name == "fairseq":  # (angle, sin, cos)
            sin_t, cos_t = cos, sin
            c = cos_t.double().cpu().numpy()
            s = sin_t.double().cpu().numpy()
            table_err = np.maximum(np.abs(c - cx), np.abs(s - sx))
            return Chunk(t, angle_err[:P], table_err[:P], None, em.table_scores(P, c, s))
        c = cos[:, :h].double().cpu().numpy()
        s = sin[:, :h].double().cpu().numpy()
        table_err = np.maximum(np.abs(c - cx), np.abs(s - sx))
        out, score = em.rotation_errors(P, self._rotate(em.q, cos, sin, pos), self._rotate(em.k, cos, sin, pos),
                                        cx, sx)
        return Chunk(t, angle_err[:P], table_err[:P], out, score)


def measure_torch(em: Emulation, context: int, *, device: str = "cpu", exhaustive: bool | None = None,
                  progress: Callable[[int, int], None] | None = None) -> RecipeAudit:
    """:func:`~pe_symbolic.audit.measure.measure` with torch computing the recipe's values."""
    chunker = _TorchChunker(em, context, device)
    if em.target.kind == "rope" or chunker.name == "fairseq":
        # the bound takes torch's own frequencies, as multiplied (after any cast)
        em.set_inv(chunker.used_inv_freq().double().cpu().numpy())
    res = measure(em, context, exhaustive=exhaustive, chunker=chunker, progress=progress)
    res.backend = f"torch-{chunker.device.type}"
    import torch

    res.note = "; ".join(x for x in (f"torch {torch.__version__}", chunker.note, res.note) if x)
    return res
