"""The wheel is what users install: build it and import every subpackage from it, away from the
source tree, so a folder missing from the package mapping fails here and not on a user's machine."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "coevo": "coevo",
    "coevo.envs": "envs",
    "coevo.server": "server",
    "coevo.client": "client",
    "coevo.agentevol": "agentevol",
    "coevo.genenv": "genenv",
    "coevo.integrations": "integrations",
}


def expected_modules() -> list[str]:
    """Every importable package of the source tree, named as users import it."""
    names = []
    for package, folder in FOLDERS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in rel:
                names.append(".".join([package, *rel]))
    return names


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Build from a copy: an in-tree build leaves build/ behind, whose stale files could leak
    # into later wheels.
    source = tmp_path_factory.mktemp("src") / "coevo"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".venv",
            ".git",
            "build",
            "dist",
            "*.egg-info",
            "__pycache__",
            "*.db",
            ".pytest_cache",
            "runs",
            "outputs",
            ".cache",
            ".whl",
            ".gl",
        ),
    )
    return source


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
        cwd=out,
    )
    (whl,) = out.glob("coevo-*.whl")
    return whl


def test_wheel_imports_every_subpackage_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # Dependencies come from this interpreter's site-packages (no network, no reinstall); a plain
    # .pth path entry does not run the dev tree's editable finder, so `coevo` can only come from
    # the wheel.
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Every site-packages this interpreter sees (a venv layered on another one has two).
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()] or [
        sysconfig.get_paths()["purelib"]
    ]
    Path(site, "deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True)
    modules = expected_modules()
    code = (
        "import importlib, coevo\n"
        + "".join(f"importlib.import_module({m!r})\n" for m in modules)
        + "print(coevo.__file__)"
    )
    done = subprocess.run([py, "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path)
    assert str(env_dir) in done.stdout, f"coevo imported from {done.stdout!r}, not the wheel"
    cli = subprocess.run([env_dir / "bin" / "coevo", "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert cli.returncode == 0 and "serve" in cli.stdout


def test_wheel_carries_every_data_file(wheel: Path) -> None:
    """Files under an env's data/ folder (prompts, tables, vocabularies) are read at run time."""
    import zipfile

    inside = set(zipfile.ZipFile(wheel).namelist())
    expected = [
        "/".join([*package.split("."), *path.relative_to(ROOT / folder).parts])
        for package, folder in FOLDERS.items()
        for path in sorted((ROOT / folder).rglob("data/*"))
        if path.is_file() and "__pycache__" not in path.parts
    ]
    assert "coevo/envs/alfworld/data/agent_prompt.json" in expected
    assert [name for name in expected if name not in inside] == []


def test_editable_install_maps_top_level_folders() -> None:
    import coevo.client
    import coevo.envs
    import coevo.server

    assert Path(coevo.envs.__file__).parent == ROOT / "envs"
    assert Path(coevo.server.__file__).parent == ROOT / "server"
    assert Path(coevo.client.__file__).parent == ROOT / "client"


def test_build_prints_no_setuptools_warnings(source: Path, tmp_path: Path) -> None:
    """A data/ folder missing from `packages` made setuptools print a 40-line banner per folder
    (~250 lines in every set-up); the build must stay quiet."""
    built = subprocess.run(
        [sys.executable, "-W", "always", "setup.py", "-q", "build_py", "--build-lib", str(tmp_path / "lib")],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert "Warning" not in built.stdout + built.stderr
    assert (tmp_path / "lib" / "coevo" / "envs" / "apibank" / "data" / "apis.json").is_file()


def test_editable_build_prints_no_setuptools_warnings(source: Path, tmp_path: Path) -> None:
    """What the set-up's `pip install -e .` runs (the PEP 660 hook): no warning banners."""
    built = subprocess.run(
        [
            sys.executable,
            "-W",
            "always",
            "-c",
            f"import setuptools.build_meta as b; b.build_editable({str(tmp_path)!r})",
        ],
        cwd=source,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert "Warning" not in built.stderr and "!!" not in built.stderr, built.stderr
    assert list(tmp_path.glob("coevo-*.whl"))
