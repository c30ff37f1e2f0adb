"""``pe-audit cards`` on a zoo: cards per second, the share of work saved by grouping, jobs 1 against 2.

``python -m benchmarks.cards [--configs N] [--jobs 1 --jobs 2] [--keep DIR]`` builds a corpus
folder of ``N`` configs (default 200) from the configs shipped with the package
(``pe_symbolic/numeric/models/*.json``): each shipped config, then fine-tune-like variants of
it -- another name, vocabulary, special tokens, ``architectures``, ``transformers_version``,
``torch_dtype: bfloat16`` (what a fine-tune changes; the RoPE is its base's) -- and, for one
base in three, a float16 export, a context-extended fine-tune (``max_position_embeddings``
doubled) and a retuned base (``rope_theta`` doubled), each a RoPE group of its own. It then
sweeps the folder with ``--jobs`` 1 and 2 (every engine, as ``pe-audit cards`` does by
default), each into a fresh card file, after one warm-up sweep of a single config (the
worker server's imports), and prints one row: configs, groups, the dedup rate, seconds,
cards per second and seconds per group for each ``--jobs``, the ratio, and whether the two
card files are equal byte for byte.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path


def _fine_tune(cfg: dict, n: int) -> dict:
    out = copy.deepcopy(cfg)
    out.update({"_name_or_path": f"team/ft-{n:03d}", "vocab_size": 32000 + 7 * n, "bos_token_id": 1,
                "eos_token_id": 2 + n % 3, "architectures": ["ForCausalLM"],
                "transformers_version": f"4.{44 + n % 9}.0", "use_cache": n % 2 == 0})
    if n % 4 == 0:
        out["torch_dtype"] = "bfloat16"  # said, and the same as the default: still the base's group
    return out


def _where(cfg: dict, key: str) -> dict | None:
    """The dict holding ``key``: the config or its text part."""
    if key in cfg:
        return cfg
    text = cfg.get("text_config")
    return text if isinstance(text, dict) and key in text else None


def build_corpus(root: Path, n: int) -> dict[str, int]:
    """Write ``n`` configs under ``root`` (``BASE/VARIANT/config.json``); returns counts by kind."""
    from pe_symbolic.numeric import model_config, model_configs

    bases = sorted(model_configs())
    kinds = {"shipped": 0, "fine-tune": 0, "float16": 0, "long context": 0, "rope_theta": 0}
    for i in range(n):
        b, round_ = bases[i % len(bases)], i // len(bases)
        cfg = model_config(b)
        kind = "shipped" if round_ == 0 else "fine-tune"
        special = bases.index(b) % 3 == 0
        if special and round_ == 1:
            cfg, kind = {**_fine_tune(cfg, i), "torch_dtype": "float16"}, "float16"
        elif special and round_ == 2 and _where(cfg, "max_position_embeddings") is not None:
            cfg = _fine_tune(cfg, i)
            _where(cfg, "max_position_embeddings")["max_position_embeddings"] *= 2
            kind = "long context"
        elif special and round_ == 3 and _where(cfg, "rope_theta") is not None:
            cfg = _fine_tune(cfg, i)
            _where(cfg, "rope_theta")["rope_theta"] *= 2
            kind = "rope_theta"
        elif round_:
            cfg = _fine_tune(cfg, i)
        kinds[kind] += 1
        folder = root / b / f"{kind.replace(' ', '-')}-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "config.json").write_text(json.dumps(cfg, indent=1), encoding="utf-8")
    return kinds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cards", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", type=int, default=200, help="corpus size (default 200)")
    ap.add_argument("--jobs", type=int, action="append", help="worker processes (repeatable; default 1 and 2)")
    ap.add_argument("--keep", default=None, help="build the corpus and the card files in DIR and keep them")
    args = ap.parse_args(argv)
    from pe_symbolic.zoo import cards

    jobs = args.jobs or [1, 2]
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pe-cards-bench-"))
    corpus = tmp / "corpus"
    if corpus.exists():
        raise SystemExit(f"{corpus} exists: give an empty --keep folder")
    kinds = build_corpus(corpus, args.configs)
    print(f"# pe-audit cards benchmark: {platform.python_version()}, {os.cpu_count()} CPUs, {sys.platform}")
    print(f"corpus: {args.configs} configs ({', '.join(f'{k} {v}' for k, v in kinds.items())})")
    cards([("warm", {"model_type": "llama", "head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64})],
          jobs=1)  # the worker server's imports, once, before any timing
    rows, files = [], []
    for j in jobs:
        out = tmp / f"cards-jobs{j}.jsonl"
        t = time.perf_counter()
        sweep = cards(corpus, out, jobs=j)
        sec = time.perf_counter() - t
        n, g = len(sweep.cards), sweep.computed
        rows.append((j, sec, n, g))
        files.append(out.read_bytes())
        statuses = {s: sum(c["status"] == s for c in sweep.cards) for s in ("ok", "refused", "crashed", "timeout")}
        print(f"jobs {j}: {sec:.1f} s, {n / sec:.2f} cards/s, {sec / max(g, 1):.2f} s per group computed; "
              f"status {statuses}")
    n, g = rows[0][2], rows[0][3]
    parts = [f"cards: {n} configs, {g} groups, dedup {100 * (n - g) / n:.1f}% ({n - g} configs' work shared)"]
    parts += [f"jobs {j}: {sec:.1f} s = {n / sec:.2f} cards/s" for j, sec, _, _ in rows]
    if len(rows) > 1:
        parts.append(f"jobs {rows[-1][0]} / jobs {rows[0][0]}: {rows[0][1] / rows[-1][1]:.2f}x")
        parts.append("cards identical: " + ("yes" if all(f == files[0] for f in files) else "NO"))
    print("\n" + "; ".join(parts))
    if not args.keep:
        import shutil

        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
