"""The import contract: layers that import only downward, and no import circle.

Two checks that do not share a tool:

* import-linter runs the contracts of ``pyproject.toml`` ([tool.importlinter]:
  the layers, the independence of the capabilities, no circle among the
  modules of any package), and a planted upward import, placed inside a
  function of a copy of the package, breaks them with the import named;
* our own walk of every module's syntax tree (imports inside functions
  included) draws the package's import graph and finds no cycle in it.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rapids_balance

PACKAGE = Path(rapids_balance.__file__).resolve().parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"
LINT = ("import sys\nfrom importlinter.cli import lint_imports\n"
        "sys.exit(lint_imports(config_filename={config!r}, no_cache=True))\n")


# -- our own import graph -------------------------------------------------------------

def module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file of every module of the package at ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = (root.name,) + path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The package module an import of ``name`` loads: ``name`` or its longest module prefix."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Package modules ``module`` imports anywhere in its file (functions included).

    ``from a import b`` imports ``a.b`` when that is a module, else ``a``;
    relative imports are resolved against the module's package.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                     for alias in node.names]
        else:
            continue
        out.update(t for t in (_target(n, modules) for n in names) if t and t != module)
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_names(root)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (its modules in order, first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_the_walk_sees_imports_inside_functions_and_finds_their_circle(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "low.py": "def f():\n    from .sub import high\n    return high\n",
        "sub/__init__.py": "",
        "sub/high.py": "from ..low import f\nimport pkg.sub\n",
        "other.py": "from pkg import low\nfrom .sub.high import f as g\n",
    })
    graph = import_graph(root)
    assert graph["pkg.low"] == {"pkg.sub.high"}          # lazy, relative, `from package import module`
    assert graph["pkg.sub.high"] == {"pkg.low", "pkg.sub"}
    assert graph["pkg.other"] == {"pkg.low", "pkg.sub.high"}
    assert find_cycle(graph) == ["pkg.low", "pkg.sub.high", "pkg.low"]
    (root / "low.py").write_text("def f():\n    return 1\n")
    assert find_cycle(import_graph(root)) is None


def test_the_package_has_no_import_circle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 80 and graph["rapids_balance._build"]  # the walk saw the package
    assert find_cycle(graph) is None, f"import circle: {' -> '.join(find_cycle(graph))}"


# -- the import-linter contract -------------------------------------------------------

def _lint(config: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(cwd)  # the package found is the one under cwd
    return subprocess.run([sys.executable, "-c", LINT.format(config=str(config))], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_contract_is_kept():
    pytest.importorskip("importlinter")
    r = _lint(PYPROJECT, PACKAGE.parent)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 kept, 0 broken" in r.stdout


@pytest.mark.parametrize("module,line,names", [
    # the parameter checks may not reach the command line, even lazily inside a function
    ("_validation.py", "def _planted():\n    from .cli import main\n    return main\n",
     ["rapids_balance._validation -> rapids_balance.cli", "Layers"]),
    # the containers may not reach io: the circle the layers were made to break
    ("_containers.py", "def _planted():\n    from .io import as_graph\n    return as_graph\n",
     ["rapids_balance._containers -> rapids_balance.io", "Layers"]),
    # balancing may not use clustering (only frustration's stated uses are allowed)
    ("balancing/_harary.py", "def _planted():\n    from ..clustering import _moves\n    return _moves\n",
     ["rapids_balance.balancing._harary -> rapids_balance.clustering._moves", "independent"]),
])
def test_a_planted_import_breaks_the_contract_and_is_named(tmp_path, module, line, names):
    pytest.importorskip("importlinter")
    copy = tmp_path / "rapids_balance"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    with open(copy / module, "a", encoding="utf-8") as f:
        f.write("\n\n" + line)
    r = _lint(tmp_path / "pyproject.toml", tmp_path)
    assert r.returncode != 0
    out = " ".join(r.stdout.split())
    assert "BROKEN" in out and all(n in out for n in names), r.stdout + r.stderr
