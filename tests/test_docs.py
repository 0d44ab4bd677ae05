"""Documentation that runs: the README's Python blocks, the docstring examples, the
example scripts after a plain install, and the documentation site built with warnings
as errors.  Any drift between the docs and the code fails here."""

from __future__ import annotations

import ast
import doctest
import importlib
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rapids_balance as rb

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DOCS = ROOT / "docs"

# the optional packages a plain install (no extra) lacks
OPTIONAL_MODULES = ("cupy", "cudf", "cugraph", "dask", "distributed", "dask_cuda", "highspy",
                    "polars", "pyarrow", "networkx", "matplotlib", "igraph", "networkit")


def _env() -> dict[str, str]:
    # docs and examples run as a user runs them: real backends, never the test suite's simulator
    return {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "RAPIDS_BALANCE_CUDASIM")}


def _python(code: str, *, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                          env=_env(), timeout=timeout)


# ---------------------------------------------------------------------------
# README
# ---------------------------------------------------------------------------

def readme_python_blocks() -> list[str]:
    """The ```python fenced blocks of README.md, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [textwrap.dedent(b) for b in re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)]


def test_readme_has_a_python_block():
    assert readme_python_blocks(), "README.md has no ```python block"


def test_readme_python_blocks_use_bundled_graphs_only():
    for block in readme_python_blocks():
        for call in re.findall(r"read_edgelist\(([^)]*)\)", block):
            pytest.fail(f"README block reads a file ({call}); use rb.load_example(...)")


@pytest.mark.parametrize("index", range(len(readme_python_blocks())))
def test_readme_python_block_runs_as_written(index, tmp_path):
    block = readme_python_blocks()[index]
    r = _python(block, cwd=tmp_path)
    assert r.returncode == 0, f"README python block {index} failed:\n{block}\n{r.stderr[-3000:]}"


def _readme_section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def test_readme_reads_in_minutes():
    # a newcomer's page: short, with a performance table of one line per job
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    perf = _readme_section("Performance")
    assert len(perf.split()) <= 400
    rows = [line for line in perf.splitlines() if line.startswith("| ") and not line.startswith("| job")]
    assert len(rows) >= 5
    for row in rows:
        cells = row.strip().strip("|").split("|")
        assert len(cells) == 6, row  # job, ours, peer, ratio, date, evidence
        assert all(len(cell.split()) <= 40 for cell in cells), row
        assert re.fullmatch(r" \d{4}-\d{2}-\d{2} ", cells[4]), row
        assert re.search(r"\]\(benchmarks/results/[^)]+/\)", cells[5]), row


def test_readme_lists_every_command():
    commands = _readme_section("Command line")
    for name in rb.cli.build_parser().commands:
        assert f"rapids-balance {name} " in commands or f"rapids-balance {name}\n" in commands, name


def test_results_folders_are_the_evidence_of_todays_figures():
    # benchmarks/results keeps the evidence behind today's figures; git keeps the rest
    results = ROOT / "benchmarks" / "results"
    folders = {p.name for p in results.iterdir() if p.is_dir()}
    assert len(folders) <= 5
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"benchmarks/results/([^/)`\s]+)/", readme))
    assert cited and cited <= folders
    # no page, script or test names a results folder that is gone
    named = re.compile(r"\b(\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*)\b")
    sources = [ROOT / "README.md", *DOCS.rglob("*.md"), *DOCS.rglob("*.rst"), *(ROOT / "benchmarks").rglob("*.md"),
               *(ROOT / "benchmarks").glob("*.py"), *(ROOT / "tests").glob("*.py"), *(ROOT / "tools").glob("*")]
    for path in sources:
        if "_build" in path.parts or not path.is_file():
            continue
        for name in named.findall(path.read_text(encoding="utf-8", errors="replace")):
            if "cpu" in name or "gpu" in name:
                assert name in folders, f"{path.relative_to(ROOT)} names a removed results folder: {name}"


def readme_cudf_blocks() -> list[str]:
    """The ```python cudf blocks of README.md: they need cuDF, so they run only where it imports."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [textwrap.dedent(b) for b in re.findall(r"^```python cudf\n(.*?)^```", text, re.S | re.M)]


@pytest.mark.parametrize("index", range(len(readme_cudf_blocks())))
def test_readme_cudf_block_runs_where_cudf_is_installed(index, tmp_path):
    pytest.importorskip("cudf", reason="README's cuDF block needs cuDF (RAPIDS); not installed here")
    block = readme_cudf_blocks()[index]
    r = _python(block, cwd=tmp_path)
    assert r.returncode == 0, f"README cuDF block {index} failed:\n{block}\n{r.stderr[-3000:]}"


# ---------------------------------------------------------------------------
# the documentation's code blocks
# ---------------------------------------------------------------------------

def doc_pages() -> list[Path]:
    """The hand-written reStructuredText pages of docs/ (not the generated ones)."""
    generated = ("_build", "auto_examples", "generated")
    return sorted(p for p in DOCS.rglob("*.rst") if not set(p.relative_to(DOCS).parts) & set(generated))


def page_python_blocks(page: Path) -> list[str]:
    """A page's ``.. code-block:: python`` blocks, except those that read the user's own files."""
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"^\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text, re.M)
    return [textwrap.dedent(b) for b in blocks if "read_edgelist(" not in b]


@pytest.mark.parametrize("page", [p for p in doc_pages() if page_python_blocks(p)],
                         ids=lambda p: p.relative_to(DOCS).as_posix())
def test_doc_page_python_blocks_run(page, tmp_path):
    # the blocks of a page build on each other, so they run in one process, in order
    code = "\n".join(page_python_blocks(page))
    r = _python(code, cwd=tmp_path)
    assert r.returncode == 0, f"{page.relative_to(ROOT)}:\n{code}\n{r.stderr[-3000:]}"


# ---------------------------------------------------------------------------
# docstring examples
# ---------------------------------------------------------------------------

def _package_modules() -> list[str]:
    names = ["rapids_balance"]
    for info in pkgutil.walk_packages(rb.__path__, "rapids_balance."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return sorted(names)


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = []
    for name in _package_modules():
        module = importlib.import_module(name)
        tests += [t for t in finder.find(module, name) if t.examples]
    return sorted(tests, key=lambda t: t.name)


DOCTESTS = _doctests()


def test_public_functions_have_docstring_examples():
    # every public function in rapids_balance.__all__ shows how it is called
    documented = {t.name.rsplit(".", 1)[-1] for t in DOCTESTS}
    functions = [n for n in rb.__all__ if callable(getattr(rb, n)) and not isinstance(getattr(rb, n), type)]
    missing = sorted(set(functions) - documented)
    assert not missing, f"public functions without an Examples section: {missing}"


@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_docstring_example(test):
    runner = doctest.DebugRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    try:
        runner.run(test, clear_globs=True)
    except doctest.UnexpectedException as exc:
        error = exc.exc_info[1]
        if isinstance(error, ImportError) and getattr(error, "name", None) in OPTIONAL_MODULES + (None,):
            # an example of an optional extra, shown where that extra is absent
            pytest.skip(f"{test.name} needs an optional extra: {error}")
        raise error
    except doctest.DocTestFailure as failure:
        pytest.fail(f"{test.name} (line {failure.example.lineno + 1} of the docstring, "
                    f"{test.filename}):\n>>> {failure.example.source}"
                    f"expected:\n{failure.example.want}got:\n{failure.got}")


# ---------------------------------------------------------------------------
# example scripts
# ---------------------------------------------------------------------------

def example_scripts() -> list[Path]:
    return sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))


def declared_extras(script: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The ``require(extra, *modules)`` calls of an example script."""
    calls = []
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "require":
            extra, *modules = [ast.literal_eval(a) for a in node.args]
            calls.append((extra, tuple(modules)))
    return calls


def _run_example(script: Path, blocked: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import runpy, sys
        for mod in {blocked!r}:
            sys.modules[mod] = None      # as if not installed
        sys.path.insert(0, {str(EXAMPLES)!r})
        sys.argv = [{script.name!r}]
        runpy.run_path({str(script)!r}, run_name="__main__")
    """)
    return _python(code, cwd=cwd)


@pytest.mark.parametrize("script", example_scripts(), ids=lambda p: p.name)
def test_example_declares_its_extras(script):
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    assert re.search(r"^Needs ", doc, re.M), f"{script.name}: the docstring does not say what it needs"
    for extra, _ in declared_extras(script):
        assert f"``{extra}`` extra" in doc, f"{script.name}: requires the {extra!r} extra but does not say so"


@pytest.mark.parametrize("script", example_scripts(), ids=lambda p: p.name)
def test_example_after_a_plain_install(script, tmp_path):
    # no optional extra installed: the script runs, or stops with the one-line install hint
    r = _run_example(script, OPTIONAL_MODULES, tmp_path)
    extras = declared_extras(script)
    if extras:
        extra = extras[0][0]
        assert r.returncode == 1, r.stderr[-3000:]
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"pip install 'rapids-balance[{extra}]'" in lines[0], r.stderr[-3000:]
        assert script.name in lines[0]
    else:
        assert r.returncode == 0, r.stderr[-3000:]


def test_extras_named_by_examples_exist():
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11+")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for script in example_scripts():
        for extra, modules in declared_extras(script):
            assert extra in extras, f"{script.name} names the extra {extra!r}, which pyproject.toml lacks"


# ---------------------------------------------------------------------------
# the documentation site
# ---------------------------------------------------------------------------

def _api_names() -> set[str]:
    text = (DOCS / "api" / "index.rst").read_text(encoding="utf-8")
    names = set()
    for block in re.findall(r"\.\. autosummary::\n((?:   .*\n|\n)+)", text):
        names |= {line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith(":")}
    return names


def public_api_entries() -> list[str]:
    """Every public name as the API reference lists it: ``name`` for the top-level
    functions and classes, ``module.name`` for the functions of a public submodule
    (``plot.save``) unless the top level has them too (the generators)."""
    import types

    entries = []
    for name in rb.__all__:
        obj = getattr(rb, name)
        if not isinstance(obj, types.ModuleType):
            entries.append(name)
            continue
        for member in obj.__all__:
            if member in rb.__all__ or not callable(getattr(obj, member)):
                continue
            entries.append(f"{name}.{member}")
    return entries


def test_api_reference_lists_every_public_name():
    missing = sorted(set(public_api_entries()) - _api_names())
    assert not missing, f"docs/api/index.rst lacks {missing}"


def test_docs_build_without_warnings(tmp_path):
    for module in ("sphinx", "pydata_sphinx_theme", "numpydoc", "sphinx_gallery", "myst_parser"):
        pytest.importorskip(module, reason="the docs build needs the 'docs' extra")
    r = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
                       capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=900)
    assert r.returncode == 0, f"docs build failed or warned:\n{r.stderr[-6000:]}"
    pages = {p.relative_to(tmp_path / "html").as_posix() for p in (tmp_path / "html").rglob("*.html")}
    for name in public_api_entries():
        assert f"api/generated/rapids_balance.{name}.html" in pages, f"no API page for {name}"
