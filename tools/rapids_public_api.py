"""Extract the public attributes of the RAPIDS classes the test stand-ins mirror.

Reads the sources of cuDF and cuGraph from their git repositories (bare or
not) at one commit each, and writes ``tests/data/rapids_26_10_public_api.json``:
for each mirrored class, every public name the class and its in-repository
bases define (methods, properties, class attributes), and for cuGraph's
``Graph`` also the names it forwards to its implementation object through
``__getattr__`` (the implementation's methods and every ``self.<name> =``
it assigns, then its ``properties``' fields).  Names that mixins generate at
run time (``sum``, ``__add__``, ...) are not listed, which only makes the
stand-ins' check stricter.

Usage::

    python tools/rapids_public_api.py --cudf <cudf git dir> --cugraph <cugraph git dir> \
        [--cudf-rev REV] [--cugraph-rev REV] [--out tests/data/rapids_26_10_public_api.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
from pathlib import Path

CUDF_CORE = "python/cudf/cudf/core"
CUGRAPH_IMPL = "python/cugraph/cugraph/structure/graph_implementation"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir" if Path(repo, "HEAD").exists() else "-C", repo, *args],
                          check=True, capture_output=True, text=True).stdout


def _source(repo: str, rev: str, path: str) -> str:
    return _git(repo, "show", f"{rev}:{path}")


def _classes(repo: str, rev: str, folder: str) -> dict[str, tuple[str, ast.ClassDef]]:
    """Every top-level and nested class under ``folder``: name -> (path, node)."""
    out: dict[str, tuple[str, ast.ClassDef]] = {}
    for path in _git(repo, "ls-tree", "-r", "--name-only", rev, folder).split():
        if not path.endswith(".py") or "/tests/" in path:
            continue
        tree = ast.parse(_source(repo, rev, path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                out.setdefault(node.name, (path, node))
    return out


def _own_names(node: ast.ClassDef, instance: bool = False) -> set[str]:
    names: set[str] = set()
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(item.name)
        elif isinstance(item, ast.Assign):
            names.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
        elif isinstance(item, ast.ClassDef):
            names.add(item.name)
    if instance:  # attributes an object sets on itself in any of its methods
        for item in ast.walk(node):
            if isinstance(item, (ast.Assign, ast.AnnAssign)):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        names.add(t.attr)
    return names


def _base_name(b: ast.expr) -> str:
    return b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""


def _public(classes: dict, name: str, instance: bool = False) -> tuple[set[str], list[str]]:
    """Public names of class ``name`` and its bases found in ``classes``; the bases' paths."""
    names: set[str] = set()
    seen: list[str] = []
    todo = [name]
    while todo:
        cls = todo.pop()
        if cls not in classes or cls in seen:
            continue
        seen.append(cls)
        path, node = classes[cls]
        names |= _own_names(node, instance)
        todo.extend(_base_name(b) for b in node.bases)
    return {n for n in names if not n.startswith("_")}, [f"{classes[c][0]}::{c}" for c in seen]


def _nested(classes: dict, outer: str, inner: str) -> ast.ClassDef:
    return next(n for n in classes[outer][1].body if isinstance(n, ast.ClassDef) and n.name == inner)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cudf", required=True)
    ap.add_argument("--cugraph", required=True)
    ap.add_argument("--cudf-rev", default="HEAD")
    ap.add_argument("--cugraph-rev", default="HEAD")
    ap.add_argument("--out", default="tests/data/rapids_26_10_public_api.json")
    a = ap.parse_args()
    cudf = _classes(a.cudf, a.cudf_rev, CUDF_CORE)
    cugraph = _classes(a.cugraph, a.cugraph_rev, "python/cugraph/cugraph/structure")
    out: dict = {
        "cudf": {"version": _source(a.cudf, a.cudf_rev, "VERSION").strip(),
                 "commit": _git(a.cudf, "rev-parse", a.cudf_rev).strip()},
        "cugraph": {"version": _source(a.cugraph, a.cugraph_rev, "VERSION").strip(),
                    "commit": _git(a.cugraph, "rev-parse", a.cugraph_rev).strip()},
        "classes": {},
    }
    for name in ("DataFrame", "Series", "Index"):
        names, bases = _public(cudf, name)
        out["classes"][f"cudf.{name}"] = {"from": bases, "public": sorted(names)}
    graph, bases = _public(cugraph, "Graph")
    for impl in ("simpleGraphImpl", "simpleDistributedGraphImpl"):
        forwarded, impl_from = _public(cugraph, impl, instance=True)
        props = {n for n in _own_names(_nested(cugraph, impl, "Properties"), instance=True)
                 if not n.startswith("_")}
        kind = "single-GPU" if impl == "simpleGraphImpl" else "multi-GPU"
        out["classes"][f"cugraph.Graph ({kind})"] = {
            "from": bases + impl_from + [f"{impl}.Properties (Graph.__getattr__)"],
            "public": sorted(graph | forwarded | props)}
    Path(a.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
