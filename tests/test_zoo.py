"""pe_symbolic.zoo and ``pe-audit cards``: corpus readers, card stability, sharing, resume, crash / timeout /
memory cards, the release diff and the CLI. Tiny corpora (configs with an 8-channel head and one engine)
keep each test to a few seconds; the first one to start the worker processes pays their imports once."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

import pe_symbolic as pe
from pe_symbolic.cli.audit import main as audit_main
from pe_symbolic.zoo import cards, diff_cards, read_corpus
from pe_symbolic.zoo.card import compute, rope_card
from pe_symbolic.zoo.group import NOT_ROPE, model_dtype, rope_inputs, signature
from pe_symbolic.zoo.store import load_cards

ROOT = Path(pe.__file__).parent


def tiny(theta: float = 1e4, **extra) -> dict:
    return {"model_type": "llama", "head_dim": 8, "rope_theta": theta, "max_position_embeddings": 64, **extra}


def fine_tune(base: dict, n: int) -> dict:
    """What a fine-tune changes: its name, vocabulary, tokens and loading hints."""
    return {**base, "_name_or_path": f"someone/fine-tune-{n}", "vocab_size": 32000 + n, "eos_token_id": n,
            "architectures": ["LlamaForCausalLM"], "transformers_version": f"4.{40 + n}.0", "use_cache": n % 2 == 0}


def small_corpus() -> list[tuple[str, dict]]:
    a, b = tiny(), tiny(5e5)
    return [("base-a", a), ("ft-a1", fine_tune(a, 1)), ("ft-a2", fine_tune(a, 2)), ("base-b", b)]


FAST = {"jobs": 1, "engines": ["vllm"]}


# ---------------------------------------------------------------------------------------------
# work functions for the crash / timeout / memory tests (module level: pickled by reference)


def acting_work(task):
    """Does what the config's ``test_action`` says, else the real work."""
    action = task["config"].get("test_action")
    if action == "raise":
        raise RuntimeError("a defect in a reader")
    if action == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    if action == "sleep":
        time.sleep(60)
    if action == "allocate":
        blob = bytearray(8 * 2**30)  # 8 GiB: over any limit the test sets
        return {"status": "ok", "size": len(blob)}
    return compute(task)


# ---------------------------------------------------------------------------------------------
# corpus readers


def test_folder_reader_nested_sorted_named_and_unreadable(tmp_path):
    (tmp_path / "org" / "b").mkdir(parents=True)
    (tmp_path / "org" / "a").mkdir(parents=True)
    (tmp_path / "bad").mkdir()
    (tmp_path / "org" / "b" / "config.json").write_text(json.dumps(tiny(2e4)))
    (tmp_path / "org" / "a" / "config.json").write_text(json.dumps(tiny()))
    (tmp_path / "org" / "a" / "tokenizer_config.json").write_text("{}")  # not a config.json: not read
    (tmp_path / "bad" / "config.json").write_text("{not json")
    entries = read_corpus(tmp_path)
    assert [e.source for e in entries] == ["bad/config.json", "org/a/config.json", "org/b/config.json"]
    assert [e.name for e in entries] == ["bad", "org/a", "org/b"]
    assert entries[0].config is None and entries[0].error.startswith("not JSON")
    assert entries[1].config == tiny() and entries[1].key != entries[2].key
    assert [e.source for e in read_corpus(tmp_path, pattern="*.json")][-1] == "org/b/config.json"
    assert len(read_corpus(tmp_path, pattern="*.json")) == 4


def test_jsonl_reader_bare_and_wrapped_lines(tmp_path):
    path = tmp_path / "c.jsonl"
    lines = [json.dumps(tiny(_name_or_path="me/bare")), "", json.dumps({"id": "me/wrapped", "config": tiny(2e4)}),
             json.dumps({"name": "as-text", "config": json.dumps(tiny(3e4))}), "[1, 2]", "{cut"]
    path.write_text("\n".join(lines) + "\n")
    entries = read_corpus(path)
    assert [e.source for e in entries] == ["line 1", "line 3", "line 4", "line 5", "line 6"]
    assert [e.name for e in entries[:3]] == ["me/bare", "me/wrapped", "as-text"]
    assert entries[2].config == tiny(3e4)
    assert entries[3].error == "not a JSON object (a model config.json) but list"
    assert entries[4].config is None and "not JSON" in entries[4].error


def test_parquet_reader(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"modelId": ["a", "b", "c"],
                      "config": [json.dumps(tiny()), json.dumps(tiny(2e4)), None]})
    pq.write_table(table, tmp_path / "hub.parquet")
    entries = read_corpus(tmp_path / "hub.parquet")
    assert [(e.source, e.name) for e in entries] == [("row 0", "a"), ("row 1", "b"), ("row 2", "c")]
    assert entries[1].config == tiny(2e4) and entries[2].error == "column 'config' is null"
    with pytest.raises(ValueError, match="config_column='cfg': the table .* has no such column; its columns are"):
        read_corpus(tmp_path / "hub.parquet", config_column="cfg")


def test_parquet_without_pyarrow_says_how_to_install(tmp_path, monkeypatch):
    import builtins

    (tmp_path / "t.parquet").write_bytes(b"PAR1")
    real = builtins.__import__

    def no_pyarrow(name, *a, **k):
        if name.startswith("pyarrow"):
            raise ImportError("no pyarrow")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ImportError, match=r"needs pyarrow: pip install 'pe_symbolic\[parquet\]'"):
        read_corpus(tmp_path / "t.parquet")


def test_corpus_bad_input_named(tmp_path):
    with pytest.raises(ValueError, match="corpus='nowhere' does not exist"):
        read_corpus("nowhere")
    (tmp_path / "c.csv").write_text("x")
    with pytest.raises(ValueError, match=r"a file of an unknown kind \(\.csv\)"):
        read_corpus(tmp_path / "c.csv")
    with pytest.raises(TypeError, match="got one config"):
        read_corpus(tiny())
    assert len(read_corpus("shipped")) == len(pe.numeric.model_configs())


# ---------------------------------------------------------------------------------------------
# groups: what is shared, and that sharing is sound


def test_signature_shared_by_fine_tunes_not_by_another_base():
    a = tiny()
    assert signature(a, "bfloat16") == signature(fine_tune(a, 1), "bfloat16") == signature(fine_tune(a, 2), "bfloat16")
    assert signature(a, "bfloat16") != signature(tiny(5e5), "bfloat16")
    assert signature(a, "bfloat16") != signature(a, "float32")
    assert signature(a, "bfloat16") != signature({**a, "partial_rotary_factor": 0.5}, "bfloat16")
    nested = {"model_type": "gemma3", "text_config": {**tiny(), "vocab_size": 5}}
    assert rope_inputs(nested) == {"model_type": "gemma3", "text_config": tiny()}
    assert model_dtype({"text_config": {"torch_dtype": "float16"}}) == ("float16", "text_config.torch_dtype")
    assert model_dtype({"torch_dtype": "int8"})[0] == "bfloat16"


def _package_sources() -> dict[str, str]:
    out = {}
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(ROOT).as_posix()
        if not rel.startswith(("zoo/", "cli/", "tutorial")):
            out[rel] = p.read_text(encoding="utf-8")
    return out


#: Where a left-out key's name appears and why that is no reading of a config's RoPE.
NAMED_NOT_READ = {
    "_name_or_path": {"audit/__init__.py": "names a report", "engines/compare.py": "names a report"},
    "transformers_version": {"_hfconfig.py": "the shipped table's own field (hf_table()['transformers_version'])"},
}


def test_not_rope_keys_are_read_by_nothing():
    """No reader, engine recipe or audit module names a key the groups leave out (but where listed in
    NAMED_NOT_READ), and no HF attribute_map aliases one of them to a key that is read."""
    sources = _package_sources()
    for key in sorted(NOT_ROPE):
        hits = sorted(f for f, text in sources.items() if re.search(rf"[\"']{re.escape(key)}[\"']", text))
        assert hits == sorted(NAMED_NOT_READ.get(key, {})), \
            f"{key!r} is named in {hits}: it may be read, so it cannot be left out of a group's inputs"
    assert not re.search(r"(config|cfg)\w*(\.get\(|\[)[\"']transformers_version", sources["_hfconfig.py"])
    table = json.loads((ROOT / "hf_defaults.json").read_text())
    for mt, entry in table["models"].items():
        for alias, target in (entry.get("attribute_map") or {}).items():
            if alias in NOT_ROPE and target not in NOT_ROPE:  # then nothing may read the target either
                assert not any(re.search(rf"[\"']{re.escape(target)}[\"']", t) for t in sources.values()), \
                    f"{mt}: {alias} -> {target}, which is read"
        assert not NOT_ROPE & set(entry.get("defaults") or {}), mt


@pytest.mark.parametrize("name", ["mistral-7b", "qwen2.5-7b-yarn", "gemma-3-4b"])
def test_a_card_of_a_fine_tune_equals_its_inputs_card(name):
    """Computed from the raw config with every left-out key set, the card equals the card of the inputs
    the group computes from."""
    cfg = pe.numeric.model_config(name)
    noisy = {**cfg, **{k: 7 for k in NOT_ROPE}, "_name_or_path": "x/y"}
    if "text_config" in noisy:
        noisy["text_config"] = {**noisy["text_config"], "vocab_size": 3, "hidden_act": "gelu"}
    assert rope_card(noisy, engines=["vllm", "tensorrt-llm"]) == rope_card(rope_inputs(noisy),
                                                                           engines=["vllm", "tensorrt-llm"])


def test_work_is_shared_and_cards_name_their_group():
    sweep = cards(small_corpus(), **FAST)
    assert sweep.computed == 2 and sweep.groups == 2
    a, f1, f2, b = sweep.cards
    assert a["group"] == f1["group"] == f2["group"] != b["group"]
    assert len({a["key"], f1["key"], f2["key"]}) == 3
    strip = lambda c: {k: v for k, v in c.items() if k not in ("key", "name", "source")}  # noqa: E731
    assert strip(a) == strip(f1) == strip(f2)
    assert a["program"][0]["base"] == 10000.0 and b["program"][0]["base"] == 500000.0
    assert a["program_id"] != b["program_id"]
    text = sweep.summary()
    assert "4 configs, 2 groups (2 configs shared a group's work: dedup 50.0%)" in text
    assert re.search(r"\n\S{8}\s+3\s+base-a\s+llama\s+default 10000\s+64\s+bfloat16\s+eq\*\s+\S+\s+ok", text)


# ---------------------------------------------------------------------------------------------
# stable, resumable


def test_two_sweeps_are_equal_byte_for_byte_and_jobs_do_not_matter(tmp_path):
    corpus = small_corpus() + [("bad", 3)]
    cards(corpus, tmp_path / "one.jsonl", **FAST)
    cards(corpus, tmp_path / "two.jsonl", jobs=2, engines=["vllm"])
    one, two = (tmp_path / "one.jsonl").read_bytes(), (tmp_path / "two.jsonl").read_bytes()
    assert one == two
    lines = one.decode().splitlines()
    assert [json.loads(x)["name"] for x in lines] == ["base-a", "ft-a1", "ft-a2", "base-b", "bad"]
    assert json.loads(lines[-1])["status"] == "unreadable"
    for x in lines:  # keys sorted, no timing
        card = json.loads(x)
        assert list(card) == sorted(card)
        assert not any("second" in k or "time" in k for k in card)


def test_an_interrupted_sweep_resumes_to_the_same_file(tmp_path):
    corpus = [(f"m{i}", tiny(1e4 * (i + 1))) for i in range(4)]
    cards(corpus, tmp_path / "clean.jsonl", **FAST)

    def stop_after_two(done, total, groups_done, groups):
        if groups_done == 2:
            raise KeyboardInterrupt

    out = tmp_path / "cut.jsonl"
    with pytest.raises(KeyboardInterrupt):
        cards(corpus, out, progress=stop_after_two, **FAST)
    written, _ = load_cards(out)
    assert len(written) == 2
    with open(out, "a") as fh:
        fh.write('{"key": "cut sho')  # a line cut short by the kill
    again = cards(corpus, out, **FAST)
    assert again.resumed == 2 and again.computed == 2
    assert out.read_bytes() == (tmp_path / "clean.jsonl").read_bytes()
    third = cards(corpus, out, **FAST)
    assert third.resumed == 4 and third.computed == 0
    other = cards(corpus, out, jobs=1, engines=["sglang"])  # other settings: nothing reused
    assert other.resumed == 0 and other.computed == 4 and other.dropped == 4


# ---------------------------------------------------------------------------------------------
# crashes, time and memory


def test_crash_death_and_timeout_get_cards_and_the_sweep_goes_on(tmp_path):
    corpus = [("fine", tiny()), ("raises", tiny(test_action="raise")), ("dies", tiny(test_action="die")),
              ("sleeps", tiny(test_action="sleep"))]
    out = tmp_path / "c.jsonl"
    sweep = cards(corpus, out, jobs=2, engines=["vllm"], timeout=4, _work=acting_work)
    by = {c["name"]: c for c in sweep.cards}
    assert by["fine"]["status"] == "ok"
    assert (by["raises"]["status"], by["raises"]["error"]) == ("crashed", "RuntimeError: a defect in a reader")
    assert by["dies"]["status"] == "crashed" and "SIGKILL" in by["dies"]["error"]
    assert by["sleeps"]["status"] == "timeout" and "over the time limit of 4 s" in by["sleeps"]["error"]
    assert [c["name"] for c in sweep.failed] == ["raises", "dies", "sleeps"]
    assert "not ok, or a part refused (3):" in sweep.summary()
    again = cards(corpus, out, jobs=2, engines=["vllm"], timeout=4, _work=acting_work)
    assert again.computed == 0 and again.resumed == 4  # a failed card is a card
    retried = cards(corpus, out, jobs=2, engines=["vllm"], timeout=4, retry=True, _work=compute)
    assert retried.computed == 3 and retried.resumed == 1
    assert [c["status"] for c in retried.cards] == ["ok"] * 4 and not retried.failed


def test_memory_limit_gives_an_out_of_memory_card():
    sweep = cards([("hungry", tiny(test_action="allocate"))], jobs=1, engines=["vllm"], memory_mb=4096,
                  _work=acting_work)
    assert sweep.cards[0]["status"] == "out of memory"
    assert sweep.cards[0]["error"].startswith("over the memory limit of 4096 MiB")


def test_a_real_refusal_is_a_card_not_a_crash():
    sweep = cards([("typo", {**tiny(), "rope_scaling": {"rope_type": "nonsense", "factor": 2.0}}),
                   ("vision", pe.numeric.model_config("pixtral-12b-vision"))], **FAST)
    typo, vision = sweep.cards
    assert typo["status"] == "refused" and [r["part"] for r in typo["refused"]] == ["program"]
    assert typo["refused"][0]["reason"].startswith("config['rope_scaling']['rope_type']='nonsense' is not allowed")
    assert typo["program"] == [] and typo["engines"] == [] and not sweep.failed
    # a part refused, the rest kept: the vision tower's program, no context to audit
    assert vision["status"] == "ok" and vision["program"][0]["rope_type"] == "axial"
    assert "context" in [r["part"] for r in vision["refused"]]
    assert "vision [item 1]: ok: refused context:" in sweep.summary()


def test_an_axial_vision_tower_has_its_bound_refused_by_name():
    # the sweep of every model type found 37 such cards refused with NumPy's broadcast error
    card = cards([("dinov3", {"model_type": "dinov3_vit"})], **FAST).cards[0]
    assert card["status"] == "ok" and card["program"][0]["rope_type"] == "axial"
    (why,) = [r["reason"] for r in card["refused"] if r["part"] == "bound"]
    assert "its RoPE is axial" in why and "broadcast" not in why


# ---------------------------------------------------------------------------------------------
# the release diff


def test_a_warning_that_differs_only_in_the_table_version_is_not_a_change():
    # the sweep of every model type with transformers 5.24's table and 5.25's: 440 of 823 cards
    # differed only in the version their "no RoPE field" warning names
    w = "config['model_type']='albert': HF's AlbertConfig (transformers {}) has no RoPE field"
    a = {"key": "k", "source": "albert", "name": "albert", "status": "ok", "warnings": [w.format("5.24.0")]}
    same = diff_cards([a], [dict(a, warnings=[w.format("5.25.0")])])
    assert same.exit_code == 0 and same.version_only == ["albert"]
    assert "1 config whose warnings differ only in the transformers version" in str(same)
    other = diff_cards([a], [dict(a, warnings=[w.format("5.25.0").replace("AlbertConfig", "BertConfig")])])
    assert other.exit_code == 1 and other.version_only == [] and other.changes[0].cause == "warnings"


def test_diff_of_two_releases(tmp_path):
    corpus = small_corpus()
    old = cards(corpus, tmp_path / "old.jsonl", **FAST)
    changed = [corpus[0], corpus[1], corpus[2], ("base-b", {**corpus[3][1], "rope_theta": 1e6})]
    cards(changed, tmp_path / "new.jsonl", **FAST)
    d = diff_cards(tmp_path / "old.jsonl", tmp_path / "new.jsonl")
    assert d.exit_code == 1 and d.matched == 4 and not d.added and not d.removed
    text = d.to_text()
    assert "configs: 4 in both, 1 changed, 0 added, 0 removed" in text
    assert "\nprogram (1 config)\n  base-b [item 3]\n" in text
    assert "    attention 0-31: base: 500000 -> 1e+06 (+100%)" in text
    assert "\nconfig (1 config)\n  base-b [item 3]\n    key: " in text
    assert text.index("\nconfig (") < text.index("\nprogram (")
    assert "bound (" not in text  # the fastest pair (theta = 1) sets the bound whatever the base
    assert diff_cards(old.cards, tmp_path / "old.jsonl").exit_code == 0
    assert "no card changed" in diff_cards(old.cards, old.cards).to_text()
    fewer = diff_cards(old.cards, old.cards[:3])
    assert fewer.exit_code == 1 and fewer.removed == ["base-b [item 3]"]


# ---------------------------------------------------------------------------------------------
# the command line


def test_cli_sweep_html_and_diff(tmp_path, capsys):
    folder = tmp_path / "models"
    for name, cfg in small_corpus():
        (folder / name).mkdir(parents=True)
        (folder / name / "config.json").write_text(json.dumps(cfg))
    out, page = tmp_path / "c.jsonl", tmp_path / "c.html"
    code = audit_main(["cards", str(folder), "--out", str(out), "--html", str(page), "--jobs", "1", "--engine",
                       "vllm"])
    got = capsys.readouterr()
    assert code == 0
    assert "4 configs, 2 groups" in got.out and f"cards: {out}" in got.out
    assert "pe-audit cards: 4/4 configs, 2/2 groups computed" in got.err  # not a terminal: plain counts
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<table>" in html and "base-a" in html
    assert html.count('<td class="good">eq*</td>') == 2  # the engine column, one cell per group
    assert len(out.read_text().splitlines()) == 4
    assert audit_main(["cards", "--diff", str(out), str(out)]) == 0
    assert "no card changed" in capsys.readouterr().out
    cfg = json.loads((folder / "base-b" / "config.json").read_text())
    (folder / "base-b" / "config.json").write_text(json.dumps({**cfg, "rope_theta": 1e6}))
    new = tmp_path / "new.jsonl"
    assert audit_main(["cards", str(folder), "--out", str(new), "--jobs", "1", "--engine", "vllm", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert audit_main(["cards", "--diff", str(out), str(new)]) == 1
    assert "attention 0-31: base: 500000 -> 1e+06 (+100%)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["cards"], "CORPUS is required"),
    (["cards", "nowhere"], "corpus='nowhere' does not exist"),
    (["cards", "shipped", "--jobs", "0"], "--jobs='0' must be at least 1"),
    (["cards", "shipped", "--memory", "10"], "--memory='10' must be at least 64"),
    (["cards", "shipped", "--timeout", "soon"], "--timeout='soon' is not a number"),
    (["cards", "shipped", "--engine", "vllm2"], "'vllm2' is not one of"),
    (["cards", "--diff", "a.jsonl", "b.jsonl"], "old='a.jsonl' is not a card file"),
])
def test_cli_bad_input_exits_2(argv, message, capsys):
    assert audit_main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_ray_takes_an_address_or_leaves_the_corpus_alone(tmp_path, monkeypatch):
    import pe_symbolic.zoo as zoo

    seen = []

    def fake(corpus, out, **kw):
        seen.append((str(corpus), kw["ray"], kw["jobs"], kw["timeout"], kw["memory_mb"]))
        return zoo.Sweep([], 0, 0, 0.0)

    monkeypatch.setattr(zoo, "cards", fake)
    assert audit_main(["cards", "--ray", str(tmp_path), "--quiet"]) == 0  # `--ray CORPUS`: no address
    assert audit_main(["cards", str(tmp_path), "--ray", "auto", "--timeout", "0", "--memory", "0", "--quiet"]) == 0
    assert audit_main(["cards", str(tmp_path), "--jobs", "3", "--quiet"]) == 0
    assert seen == [(str(tmp_path), True, None, 300.0, 4096), (str(tmp_path), "auto", None, None, None),
                    (str(tmp_path), None, 3, 300.0, 4096)]


def test_progress_is_a_bar_on_a_terminal_and_counts_elsewhere(capsys):
    from pe_symbolic.cli.cards import _progress

    bar = _progress(tty=True)
    bar(5, 10, 1, 4)
    bar(10, 10, 4, 4)
    err = capsys.readouterr().err
    assert err.startswith("\rcards [############") and "5/10 configs, 1/4 groups" in err and err.endswith("\n")
    plain = _progress(tty=False)
    for done in range(11):
        plain(done, 10, done // 3, 3)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "pe-audit cards: 0/10 configs, 0/3 groups computed" and len(lines) == 11
    assert lines[-1] == "pe-audit cards: 10/10 configs, 3/3 groups computed"


def test_cli_existing_invocations_still_work(capsys):
    assert audit_main(["--list"]) == 0
    assert "hf" in capsys.readouterr().out
    assert audit_main(["llama-3.1-8b", "--recipe", "hf", "--dtype", "float32", "--context", "2048"]) == 0
    assert "pe-audit cards" in audit_main.__globals__["_EPILOG"]


def test_public_names():
    assert pe.cards is cards and pe.diff_cards is diff_cards


# ---------------------------------------------------------------------------------------------
# Ray (optional)


def test_ray_gives_the_same_cards(tmp_path):
    ray = pytest.importorskip("ray")
    corpus = small_corpus()[:3]
    local = cards(corpus, tmp_path / "local.jsonl", **FAST)
    try:
        remote = cards(corpus, tmp_path / "ray.jsonl", ray=True, engines=["vllm"],
                       ray_init={"num_cpus": 1, "num_gpus": 0})
    finally:
        ray.shutdown()
    assert remote.computed == local.computed == 1
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
