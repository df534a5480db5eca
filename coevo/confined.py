"""Paths a remote caller names, confined to one directory tree and a read budget.

Admin commands take paths (a policy file, a model directory) from HTTP clients, and the server
reads them with its own rights. `ConfinedDir.check` accepts a path only if, with every symlink
resolved, it lies under the root, is a regular file or a directory holding only regular files
and directories (each of them under the root too), and its bytes fit the budget. Devices
(/dev/zero), FIFOs, sockets and symlinks leading out are refused before anything is opened.

A path that is absent and a path that is not allowed get the same message, so answers reveal
nothing about the filesystem outside the root. (Inside it, "too large" is said as such.)
Residual risk: whoever can write under the root can swap a checked file before the env opens
it; the root should be writable only by the operator and the trainers it serves.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

#: Most entries a checked directory may hold (a model directory has a few dozen).
MAX_DIR_ENTRIES = 10_000


class PathNotAllowed(ValueError):
    """The path cannot be read: absent, outside the root, not a regular file, or too large."""


@dataclass(frozen=True)
class ConfinedDir:
    root: Path
    max_bytes: int

    def not_allowed(self, raw: str) -> PathNotAllowed:
        return PathNotAllowed(
            f"{raw[:200]!r} is not an existing regular file or directory under the server's admin directory"
        )

    def root_path(self) -> Path:
        """The root as checked paths start (symlinks resolved)."""
        return Path(os.path.realpath(self.root))

    def check(self, raw: str) -> Path:
        """The resolved path, or PathNotAllowed. Relative paths are taken from the root."""
        if not raw or "\x00" in raw:
            raise self.not_allowed(raw)
        root = Path(os.path.realpath(self.root))
        real = self._inside(root, root / raw, raw)
        try:
            info = os.stat(real)
        except OSError:
            raise self.not_allowed(raw) from None
        if stat.S_ISREG(info.st_mode):
            self._fits(raw, info.st_size)
        elif stat.S_ISDIR(info.st_mode):
            self._fits(raw, self._tree_bytes(root, real, raw))
        else:
            raise self.not_allowed(raw)
        return real

    def _inside(self, root: Path, candidate: Path, raw: str) -> Path:
        real = Path(os.path.realpath(candidate))
        if real != root and root not in real.parents:
            raise self.not_allowed(raw)
        return real

    def _tree_bytes(self, root: Path, top: Path, raw: str) -> int:
        total = entries = 0
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            for name in [*dirnames, *filenames]:
                entries += 1
                if entries > MAX_DIR_ENTRIES:
                    raise PathNotAllowed(f"{raw[:200]!r} holds more than {MAX_DIR_ENTRIES} entries")
                path = Path(dirpath, name)
                real = self._inside(root, path, raw)  # a symlink out of the root fails here
                try:
                    info = os.stat(real)
                except OSError:
                    raise self.not_allowed(raw) from None
                if stat.S_ISREG(info.st_mode):
                    total += info.st_size
                elif not stat.S_ISDIR(info.st_mode):
                    raise self.not_allowed(raw)
            if total > self.max_bytes:
                break
        return total

    def _fits(self, raw: str, size: int) -> None:
        if size > self.max_bytes:
            raise PathNotAllowed(f"{raw[:200]!r} is larger than the {self.max_bytes}-byte admin read limit")
