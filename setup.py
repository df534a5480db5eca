"""Maps the product's top-level folders onto the single `coevo` import package.

The repository keeps `envs/`, `server/`, `client/`, `agentevol/`, `genenv/` and `integrations/` at the top
level (the product layout), but they import as `coevo.envs`, `coevo.server`, ... . pyproject
metadata stays declarative; only this mapping needs code, because the package list is
discovered by walking the folders.
"""

import warnings
from pathlib import Path

from setuptools import setup

# setuptools prints this notice as a 10-line warning banner in every editable install (the
# set-up's `pip install -e .`), where it only says that a folder named `coevo` in the working
# directory would shadow the install; the repository's `coevo/` is the package itself.
warnings.filterwarnings("ignore", message="Editable installation")

ROOT = Path(__file__).parent
FOLDERS = {
    "coevo": "coevo",
    "coevo.envs": "envs",
    "coevo.server": "server",
    "coevo.client": "client",
    "coevo.agentevol": "agentevol",
    "coevo.genenv": "genenv",
    "coevo.integrations": "integrations",
}


def discover() -> list[str]:
    """Every package, plus each folder of data files inside one (envs/bfcl/data, ...).

    The data folders have no __init__.py, but setuptools warns once per such folder (a 40-line
    banner each) unless they are listed as packages too, so they are named here.
    """
    packages = []
    for package, folder in FOLDERS.items():
        base = ROOT / folder
        for path in sorted([base, *(p for p in base.rglob("*") if p.is_dir())]):
            rel = path.relative_to(base)
            if "__pycache__" in rel.parts or any(part.startswith(".") for part in rel.parts):
                continue
            if any(child.is_file() for child in path.iterdir()):
                packages.append(".".join([package, *rel.parts]) if rel.parts else package)
    return packages


setup(
    package_dir=FOLDERS,
    packages=discover(),
    # data/ folders are not packages, so their files are named from the package above them.
    # coevo.ui's templates and static files (Chart.js, CSS) are served from the package.
    package_data={
        "": ["*.json", "*.txt", "*.pddl", "*.yaml", "*.csv", "*.j2", "data/*"],
        "coevo.ui": ["templates/*.html", "static/*"],
    },
    include_package_data=True,
)
