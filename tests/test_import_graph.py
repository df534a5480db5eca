"""The package's layers import one way: envs know nothing of HTTP, the server serves envs and
never the client, the client speaks only the wire protocol, the trainers use the client and the
store but never the CLI, and the core (wire models, config, store) depends on none of them.
The simulator domain (coevo.simulator) sits above envs (it draws base tasks from them) and below
the server and the trainers; of the envs only its adapter (coevo.envs.simulator) imports it,
and the trainers reach that adapter only through the env registry.
Checked on the source tree with ast, so an import inside a function counts as much as one at
the top of a module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Source folders and the package each is installed as (setup.py's mapping).
FOLDERS = {
    "envs": "coevo.envs", "server": "coevo.server", "client": "coevo.client",
    "agentevol": "coevo.agentevol", "genenv": "coevo.genenv", "coevo": "coevo",
}  # fmt: skip
LAYERS = ("envs", "simulator", "server", "client", "trainers", "cli", "core")
#: What each layer must not import.
FORBIDDEN = {
    "envs": {"server", "client", "trainers", "cli"},
    "server": {"client", "trainers", "cli"},
    "client": {"envs", "server", "trainers", "cli"},
    "trainers": {"cli"},
    "simulator": {"server", "client", "trainers", "cli"},
    "core": {"envs", "simulator", "server", "client", "trainers", "cli"},
}


def layer(module: str) -> str | None:
    """The layer of a coevo module (None: not ours)."""
    parts = module.split(".")
    if parts[0] != "coevo":
        return None
    second = parts[1] if len(parts) > 1 else ""
    if second in ("agentevol", "genenv"):
        return "trainers"
    if second in ("envs", "server", "client", "cli", "simulator"):
        return second
    return "core"


def module_of(path: Path) -> str:
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = [*FOLDERS[folder].split("."), *rest]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, module: str) -> list[tuple[int, str]]:
    """(line, module) of every import in the file of `module`, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            # `from coevo import client` imports the subpackage, not a name of coevo
            found += [(node.lineno, f"{name}.{alias.name}" if name == "coevo" else name) for alias in node.names]
    return found


def sources() -> list[Path]:
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def test_every_layer_imports_only_below_itself() -> None:
    violations = []
    for path in sources():
        own = layer(module_of(path))
        assert own is not None
        for line, module in imports(path, module_of(path)):
            target = layer(module)
            if target in FORBIDDEN.get(own, set()):
                violations.append(f"{path.relative_to(ROOT)}:{line} ({own}) imports {module} ({target})")
    assert not violations, "\n".join(violations)


def test_only_the_simulator_env_imports_the_simulator_domain_and_trainers_not_that_env() -> None:
    """A new env stays in its folder (it does not build on the simulator's internals), and the
    trainers talk to the simulator env as to any env: through the registry and its protocol."""
    violations = []
    for path in sources():
        own = module_of(path)
        for line, module in imports(path, own):
            if layer(module) == "simulator" and layer(own) == "envs" and not own.startswith("coevo.envs.simulator"):
                violations.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
            if layer(own) == "trainers" and module.startswith("coevo.envs.simulator"):
                violations.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not violations, "\n".join(violations)


@pytest.mark.parametrize(
    ("module", "expected"),
    [("coevo.envs.bfcl.env", "envs"), ("coevo.cli.serve_cmd", "cli"), ("coevo.genenv.trainer", "trainers"),
     ("coevo.store.db", "core"), ("coevo", "core"), ("httpx", None),
     ("coevo.simulator.policies.llm", "simulator"), ("coevo.envs.simulator.env", "envs")],
)  # fmt: skip
def test_layers_of_modules(module: str, expected: str | None) -> None:
    assert layer(module) == expected


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    """A CLI import hidden in a trainer's method, a relative import and `from coevo import cli`
    are all found, and put in their layers."""
    assert module_of(ROOT / "agentevol" / "trainer.py") == "coevo.agentevol.trainer"
    assert module_of(ROOT / "coevo" / "store" / "__init__.py") == "coevo.store"
    source = tmp_path / "probe.py"
    source.write_text(
        "def f():\n    from coevo.cli.signals import on_signal\nfrom . import data\nfrom coevo import cli\n"
    )
    found = sorted(imports(source, "coevo.agentevol.probe"))
    assert found == [(2, "coevo.cli.signals"), (3, "coevo.agentevol"), (4, "coevo.cli")]
    assert [layer(m) for _, m in found] == ["cli", "trainers", "cli"]
