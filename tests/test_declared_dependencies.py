"""Every third-party module the installed package imports is declared in pyproject.toml, so a
clean install never depends on what another package happens to bring along."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pms_tui"


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_modules(package: Path) -> dict[str, set[str]]:
    """{top-level module: files importing it} over the package, stdlib and the package itself left out."""
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != package.name:
                    found.setdefault(top, set()).add(str(path.relative_to(package.parent)))
    return found


def declared_distributions() -> set[str]:
    """The runtime dependencies and the optional extras other than the test tools."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra, listed in project.get("optional-dependencies", {}).items():
        if extra != "test":
            requirements += listed
    return {_normalized(re.split(r"[\s\[<>=!~;@]", r, maxsplit=1)[0]) for r in requirements}


def test_every_third_party_import_is_declared():
    distributions = importlib.metadata.packages_distributions()
    declared = declared_distributions()
    undeclared = []
    for module, files in sorted(imported_modules(PACKAGE).items()):
        owners = {_normalized(d) for d in distributions.get(module, [])}
        if not owners & declared:
            owner = ", ".join(sorted(owners)) or "not installed"
            undeclared.append(f"{module} ({owner}) in {', '.join(sorted(files))}")
    assert not undeclared, "imported but not declared in pyproject.toml: " + "; ".join(undeclared)


def test_the_scan_sees_the_imports():
    """The comparison above is not vacuous: it finds the package's known imports, and not the stdlib's."""
    modules = imported_modules(PACKAGE)
    assert {"textual", "lxml", "jsonschema", "numpy"} <= set(modules)
    assert not {"json", "sqlite3", "pms_tui"} & set(modules)
