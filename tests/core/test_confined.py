"""coevo.confined: what an admin path may be, checked without opening anything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coevo.confined import ConfinedDir, PathNotAllowed


def test_directories_count_every_file_and_refuse_what_leads_out(tmp_path: Path) -> None:
    root = tmp_path / "root"
    model = root / "model"
    (model / "sub").mkdir(parents=True)
    (model / "a.bin").write_bytes(b"x" * 600)
    (model / "sub" / "b.bin").write_bytes(b"y" * 500)
    (model / "inner-link").symlink_to(model / "a.bin")  # a link that stays inside is fine
    assert ConfinedDir(root, 2000).check("model") == model.resolve()
    # 600 + 500 + the link's 600: over a 1500-byte budget, under 2000.
    with pytest.raises(PathNotAllowed, match="larger than"):
        ConfinedDir(root, 1500).check(str(model))
    (tmp_path / "secret").write_text("s")
    (model / "sub" / "out").symlink_to(tmp_path / "secret")
    with pytest.raises(PathNotAllowed, match="not an existing"):
        ConfinedDir(root, 10**6).check("model")
    os.unlink(model / "sub" / "out")
    os.mkfifo(model / "sub" / "pipe")
    with pytest.raises(PathNotAllowed, match="not an existing"):
        ConfinedDir(root, 10**6).check("model")


def test_the_root_itself_and_odd_names(tmp_path: Path) -> None:
    confined = ConfinedDir(tmp_path, 10)
    assert confined.check(".") == tmp_path.resolve()
    for raw in ("", "a\x00b", "..", "/"):
        with pytest.raises(PathNotAllowed):
            confined.check(raw)
