"""Maps the product's top-level folders onto the single `coevo` import package.

The repository keeps `envs/`, `server/`, `client/`, `agentevol/`, `genenv/` and `integrations/` at the top
level (the product layout), but they import as `coevo.envs`, `coevo.server`, ... . pyproject
metadata stays declarative; only this mapping needs code, because the package list is
discovered by walking the folders.
"""

from pathlib import Path

from setuptools import setup

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
    packages = []
    for package, folder in FOLDERS.items():
        base = ROOT / folder
        for init in sorted(base.rglob("__init__.py")):
            rel = init.parent.relative_to(base)
            if "__pycache__" in rel.parts:
                continue
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
