"""Planting an entry in a store, the way the store writes it, with one thing wrong along its
path (for ``test_store.py`` and ``test_store_attacks.py``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

POSIX = hasattr(os, "getuid")
ROOT_USER = POSIX and os.getuid() == 0
OTHER_UID = 65534  # "nobody"

#: What goes wrong along the entry's path: (where, how). ``where`` counts the path's levels from
#: the cache root (0): the store's top folder (1: ``coq/``, ``hints/``, the disk cache's key
#: folder), the folder that holds the entry (-2), the entry file (-1).
ATTACKS = [(0, "open"), (0, "foreign"),
           (1, "open"), (1, "foreign"), (1, "symlink"),
           (-2, "open"), (-2, "foreign"), (-2, "symlink"),
           (-1, "open"), (-1, "foreign"), (-1, "symlink")]
IDS = [f"{ {0: 'root', 1: 'top', -2: 'key', -1: 'file'}[w]}-{how}" for w, how in ATTACKS]


def plant(root: Path, rel: tuple[str, ...], data: bytes, where: int | None = None, how: str = "") -> Path:
    """Write ``data`` at ``root/rel`` the way the store writes it (folders 0700, file 0600, this
    user's), then spoil one level: ``open`` (writable by everyone), ``foreign`` (another
    user's), ``symlink`` (a link to a private copy elsewhere)."""
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(root, 0o700)
    folder = root
    for part in rel[:-1]:
        folder = folder / part
        folder.mkdir(mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
    path = folder / rel[-1]
    path.write_bytes(data)
    os.chmod(path, 0o600)
    if where is None:
        return path
    levels = [root] + [root.joinpath(*rel[:k]) for k in range(1, len(rel) + 1)]
    target = levels[where]
    if how == "open":
        os.chmod(target, 0o777 if target.is_dir() else 0o666)
    elif how == "foreign":
        if not ROOT_USER:
            pytest.skip("planting another user's folder or file needs root (os.chown)")
        os.chown(target, OTHER_UID, OTHER_UID)  # that level alone: each level is checked
    elif how == "symlink":
        elsewhere = root.parent / f"elsewhere-{where}"
        shutil.move(str(target), str(elsewhere))  # a private copy, this user's
        os.symlink(elsewhere, target)
    else:
        raise AssertionError(how)
    return path


needs_posix = pytest.mark.skipif(not POSIX, reason="POSIX ownership and modes only")
