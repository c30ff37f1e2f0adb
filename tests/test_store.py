"""The helper every store reads and writes through (:mod:`pe_symbolic._store`): every folder
from the cache root down to the entry, and the entry, this user's and written by no one else,
no symbolic link below the root; sizes and depths bounded; never an error. The attacks on the
three stores themselves are in ``test_store_attacks.py``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pe_symbolic import _store
from pe_symbolic.numeric import _diskcache as D
from pe_symbolic.proof import coq_export
from pe_symbolic.proof.coq_export import coq_cache_dir
from pe_symbolic.theorems import _hints

from planting import ATTACKS, IDS, needs_posix, plant

# --- the helper itself -----------------------------------------------------------------------


@needs_posix
def test_the_helper_reads_a_private_entry(tmp_path):
    plant(tmp_path / "c", ("a", "b", "e.json"), b'{"v": 1}')
    assert _store.read_json(tmp_path / "c", ("a", "b", "e.json")) == {"v": 1}


@needs_posix
@pytest.mark.parametrize("openat", [True, False], ids=["openat", "path-walk"])
@pytest.mark.parametrize("where,how", ATTACKS, ids=IDS)
def test_the_helper_refuses_each_spoiled_path(tmp_path, monkeypatch, where, how, openat):
    """Each level opened relative to the last (POSIX), or, where ``openat`` is missing
    (Windows), each level ``lstat``-ed: either way every spoiled path is a miss."""
    monkeypatch.setattr(_store, "_AT", openat)
    plant(tmp_path / "c", ("a", "b", "e.json"), b'{"v": 1}')
    assert _store.read_json(tmp_path / "c", ("a", "b", "e.json")) == {"v": 1}
    plant(tmp_path / "c", ("a", "b", "e.json"), b'{"v": 1}', where, how)
    assert _store.read_json(tmp_path / "c", ("a", "b", "e.json")) is None


@pytest.mark.parametrize("rel", [("..", "e.json"), ("a", "/etc/passwd"), ("a", ""), ("a/b", "e.json"), ()])
def test_the_helper_refuses_names_that_are_not_one_plain_component(tmp_path, rel):
    assert _store.read_bytes(tmp_path, rel) is None
    assert _store.write_bytes(tmp_path, rel, b"x") is False


@needs_posix
def test_the_helper_writes_private_folders_under_any_umask(tmp_path):
    old = os.umask(0o002)  # a distribution's default for user private groups
    try:
        assert _store.write_json(tmp_path / "c", ("a", "b", "e.json"), {"v": 2})
    finally:
        os.umask(old)
    for p in (tmp_path / "c", tmp_path / "c" / "a", tmp_path / "c" / "a" / "b"):
        assert p.stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "c" / "a" / "b" / "e.json").stat().st_mode & 0o077 == 0
    assert _store.read_json(tmp_path / "c", ("a", "b", "e.json")) == {"v": 2}


@needs_posix
def test_the_helper_does_not_write_through_a_symlink(tmp_path):
    plant(tmp_path / "c", ("a", "b", "e.json"), b'{"v": 1}', 1, "symlink")
    assert _store.write_json(tmp_path / "c", ("a", "b", "e.json"), {"v": 3}) is False
    assert json.loads((tmp_path / "elsewhere-1" / "b" / "e.json").read_text()) == {"v": 1}


def test_the_helper_bounds_size_and_depth(tmp_path):
    deep = b"[" * 200_000 + b"]" * 200_000
    plant(tmp_path / "c", ("e.json",), deep)
    assert _store.read_json(tmp_path / "c", ("e.json",)) is None  # over the size bound
    assert _store.read_json(tmp_path / "c", ("e.json",), max_bytes=1 << 20) is None  # over the depth bound
    assert _store.loads_bounded(b"[" * 50 + b"]" * 50, max_depth=64) is not None
    assert _store.loads_bounded(b'["[[[[[[[[[["]', max_depth=2) == ["[[[[[[[[[["]  # brackets in strings
    assert _store.loads_bounded(b"[" * 65 + b"]" * 65, max_depth=64) is None


# --- one helper for the three stores ----------------------------------------------------------


def test_the_three_stores_share_one_reader_and_one_root():
    """The hints, the disk cache and Coq's answers name the same root and read through
    :mod:`pe_symbolic._store` (no copy of its checks in a store)."""
    import inspect

    for mod in (_hints, D, coq_export):
        src = inspect.getsource(mod)
        assert "st_uid" not in src and "getuid" not in src and "json.load" not in src, mod.__name__


def test_the_cache_root_is_read_from_one_place(monkeypatch):
    monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", "/tmp/pe-x")
    assert D.cache_dir() == _store.cache_root() == Path("/tmp/pe-x")
    assert coq_cache_dir() == os.path.join("/tmp/pe-x", "coq")
    assert _hints.hints_dir().parent == Path("/tmp/pe-x/hints")
    for off in ("", "0", "off", "None"):
        monkeypatch.setenv("PE_SYMBOLIC_CACHE_DIR", off)
        assert _store.cache_root() is None and D.cache_dir() is None and coq_cache_dir() is None


@needs_posix
def test_the_writer_tightens_its_own_folders_but_never_a_root_the_user_named(tmp_path, monkeypatch):
    root = tmp_path / "c"
    monkeypatch.setenv(_store.ENV, str(root))
    plant(root, ("a", "b", "e.json"), b'{"v": 1}', -2, "open")  # as an older version made it under umask 002
    assert _store.read_json(root, ("a", "b", "e.json")) is None
    assert _store.write_json(root, ("a", "b", "e.json"), {"v": 2})
    assert (root / "a" / "b").stat().st_mode & 0o022 == 0
    assert _store.read_json(root, ("a", "b", "e.json")) == {"v": 2}
    os.chmod(root, 0o777)  # the root the user named: left as it is, and neither read nor written
    assert _store.write_json(root, ("a", "b", "e.json"), {"v": 3}) is False
    assert root.stat().st_mode & 0o777 == 0o777 and _store.read_json(root, ("a", "b", "e.json")) is None
    monkeypatch.delenv(_store.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(_store.sys, "platform", "linux")
    default = _store.cache_root()
    default.mkdir(parents=True, mode=0o775)
    os.chmod(default, 0o775)
    assert _store.write_json(default, ("a", "e.json"), {"v": 4})  # the package's own folder: tightened
    assert default.stat().st_mode & 0o777 == 0o755 and _store.read_json(default, ("a", "e.json")) == {"v": 4}
