"""One way through the house: ``distributed/`` is generic, the algorithms use one door.

Read from the source with ``ast`` (imports inside functions included):

* no module of ``rapids_balance/distributed`` imports another subpackage of
  ``rapids_balance`` (the algorithms, io, generators, ...): the scale-out
  layer knows nothing of trees, sources or restarts;
* no module outside it imports a private module of ``distributed/`` other
  than ``_run`` (the generic entry point); the public package is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rapids_balance

ROOT = Path(rapids_balance.__file__).parent
ENTRY = "rapids_balance.distributed._run"
SUBPACKAGES = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file())


def _module_name(path: Path) -> str:
    parts = ("rapids_balance",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Absolute names of every module ``source`` imports (``from a import b``: ``a`` and ``a.b``)."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            out.add(base_name)
            # `from pkg import mod` imports a module too; harmless extra names for plain objects
            out.update(f"{base_name}.{alias.name}" for alias in node.names)
    return out


def distributed_violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Imports of another ``rapids_balance`` subpackage by a module of ``distributed/``."""
    bad = []
    for name in imported_modules(source, module, is_package):
        parts = name.split(".")
        if parts[0] == "rapids_balance" and len(parts) > 1 and parts[1] in SUBPACKAGES \
                and parts[1] != "distributed":
            bad.append(name)
    return sorted(bad)


def door_violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Private ``distributed`` modules other than the entry point imported from outside it."""
    bad = []
    for name in imported_modules(source, module, is_package):
        parts = name.split(".")
        if parts[:2] == ["rapids_balance", "distributed"] and len(parts) > 2 \
                and parts[2].startswith("_") and ".".join(parts[:3]) != ENTRY:
            bad.append(name)
    return sorted(bad)


def _sources():
    for path in sorted(ROOT.rglob("*.py")):
        yield path, path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py"


def test_the_checks_see_relative_lazy_and_absolute_imports():
    lazy = "def f():\n    from ..balancing._engine import _balance_partial\n"
    assert distributed_violations(lazy, "rapids_balance.distributed._x") == [
        "rapids_balance.balancing._engine", "rapids_balance.balancing._engine._balance_partial"]
    assert distributed_violations("from .. import clustering\n", "rapids_balance.distributed",
                                  is_package=True) == ["rapids_balance.clustering"]
    assert distributed_violations("import rapids_balance.centrality.betweenness as b\n",
                                  "rapids_balance.distributed._x") == [
        "rapids_balance.centrality.betweenness"]
    assert distributed_violations("from .._validation import check_int\nfrom ._map import x\n",
                                  "rapids_balance.distributed._x") == []
    assert door_violations("from ..distributed._graphs import scatter_graph\n",
                           "rapids_balance.balancing._engine") == [
        "rapids_balance.distributed._graphs", "rapids_balance.distributed._graphs.scatter_graph"]
    assert door_violations("from ..distributed import _tasks\n",
                           "rapids_balance.centrality.betweenness") == [
        "rapids_balance.distributed._tasks"]
    assert door_violations("from ..distributed._run import run_batches\n"
                           "from ..distributed import run_batches\n",
                           "rapids_balance.clustering._scale_out") == []


def test_distributed_imports_no_capability_package():
    assert "balancing" in SUBPACKAGES and "distributed" in SUBPACKAGES  # the walk sees the packages
    found = {}
    for path, source, module, is_pkg in _sources():
        if module.startswith("rapids_balance.distributed"):
            bad = distributed_violations(source, module, is_pkg)
            if bad:
                found[str(path.relative_to(ROOT))] = bad
    assert not found, f"distributed/ must stay generic; it imports {found}"


def test_capabilities_reach_distributed_through_its_entry_point_only():
    checked = 0
    found = {}
    for path, source, module, is_pkg in _sources():
        if module.startswith("rapids_balance.distributed"):
            continue
        bad = door_violations(source, module, is_pkg)
        checked += ENTRY in imported_modules(source, module, is_pkg)
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    assert not found, f"import {ENTRY} instead of {found}"
    assert checked >= 4  # balance, frustration, betweenness and clustering use the door
