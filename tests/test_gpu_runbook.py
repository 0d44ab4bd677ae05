"""The GPU runbook (``tools/gpu_session.sh``) run end to end without a GPU.

The dry run builds a virtual environment holding only what the GPU image
holds that the package needs (numpy, numba, numba-cuda, pandas, scipy,
pytest, pip, and their own requirements: linked from this interpreter's
site-packages, nothing downloaded), makes the carry's wheels with
``tools/prepare_gpu_carry.sh`` (pip's index or its cache), and runs the
first-light stage under numba's CUDA simulator (``RB_DRY_RUN=1``): setup
must install from the carry with ``--no-index``, every step must end within
its limit with exit 0, and every promised file must be written.  It takes a
few minutes on two cores, so it is marked ``slow``:
``python3 -m pytest tests/test_gpu_runbook.py -m slow``.

The fast checks here read the scripts: every third-party module the package
imports at module level is in the image or in the carry, and the
first-light limits fit 9 minutes.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNBOOK = ROOT / "tools" / "gpu_session.sh"
CARRY_SCRIPT = ROOT / "tools" / "prepare_gpu_carry.sh"
# what the GPU image holds that the package needs (its KINDS list has these, CuPy and more)
IMAGE = ("numpy", "numba", "numba-cuda", "pandas", "scipy", "pytest", "pip")
# modules of the image's distributions as imported (numba-cuda brings llvmlite, cuda-*)
IMAGE_MODULES = {"numpy", "numba", "llvmlite", "pandas", "scipy", "pytest", "cupy", "cupyx",
                 "networkx"}  # networkx: the optional nx_backend only; the image has it
FIRST_LIGHT_STEPS = ("probe", "rapids", "equality", "timings", "profile", "tests")
SETUP_LIMIT_S = 25
CALL_BUDGET_S = 540  # 9 minutes of a 10-minute call


def _carried_modules() -> set[str]:
    wheels = re.search(r'^WHEELS="([^"]+)"', CARRY_SCRIPT.read_text(), re.M).group(1).split()
    return {w.replace("-", "_") for w in wheels}


def _module_level_imports() -> set[str]:
    """Top-level names of every ``import`` at module level (not inside functions) in the package."""
    names = set()
    for path in (ROOT / "rapids_balance").rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"rapids_balance", "__future__"}


def test_every_module_level_import_is_in_the_image_or_the_carry():
    missing = _module_level_imports() - IMAGE_MODULES - _carried_modules()
    assert not missing, f"imported by the package but neither in the GPU image nor carried: {missing}"
    assert "array_api_compat" in _carried_modules()


def _limits(stage_text: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"step (\w+) (\d+) ", stage_text)}


def _stage(name: str) -> str:
    text = RUNBOOK.read_text()
    return re.search(rf"^{re.escape(name)}\)\n(.*?)^  ;;", text, re.M | re.S).group(1)


def test_first_light_limits_fit_nine_minutes_and_later_stages_each_fit():
    limits = _limits(_stage("first-light"))
    assert tuple(limits) == FIRST_LIGHT_STEPS
    assert SETUP_LIMIT_S + sum(limits.values()) <= CALL_BUDGET_S
    assert f"timeout -s INT {SETUP_LIMIT_S} " in RUNBOOK.read_text()
    for stage in ("checks", "bench-balance", "bench", "model"):
        assert 0 < sum(_limits(_stage(stage)).values()) <= CALL_BUDGET_S, stage


def _image_venv(path: Path) -> Path:
    """A virtual environment holding the IMAGE distributions (and what they require), linked, not copied."""
    from packaging.requirements import Requirement

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    site = Path(subprocess.run([str(path / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    here = Path(sysconfig.get_paths()["purelib"])
    todo, done = list(IMAGE), set()
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in done:
            continue
        done.add(key)
        dist = md.distribution(name)
        entries = {Path(str(f)).parts[0] for f in dist.files or []}
        for entry in entries - {"..", "__pycache__"}:
            src, dst = Path(dist.locate_file(entry)), site / entry
            if src.exists() and not dst.exists():
                dst.symlink_to(src)
        for req in dist.requires or []:
            r = Requirement(req)
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                todo.append(r.name)
    assert here != site
    return path / "bin" / "python"


@pytest.mark.slow
def test_first_light_dry_run(tmp_path):
    carry = tmp_path / "carry"
    env_base = {k: v for k, v in os.environ.items()
                if k not in ("NUMBA_ENABLE_CUDASIM", "RAPIDS_BALANCE_CUDASIM", "PYTHONPATH",
                             "RAPIDS_BALANCE_REAL_GPU")}
    made = subprocess.run(["bash", str(CARRY_SCRIPT)], env={**env_base, "CARRY_DIR": str(carry), "NO_DATA": "1"},
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, f"the carry's wheels could not be made:\n{made.stdout}\n{made.stderr}"
    py = _image_venv(tmp_path / "venv")
    # the bare environment lacks what the carry brings: the package cannot import without it
    bare = subprocess.run([str(py), "-c", "import array_api_compat"], capture_output=True, env=env_base)
    assert bare.returncode != 0

    out = tmp_path / "out"
    run = subprocess.run(["bash", str(RUNBOOK), "first-light"], cwd=ROOT, capture_output=True, text=True,
                         timeout=CALL_BUDGET_S + 60,
                         env={**env_base, "PYTHON": str(py), "OUT": str(out), "RB_DRY_RUN": "1",
                              "RB_CARRY": str(carry), "RB_SITE": str(tmp_path / "site")})
    log = (out / "steps.log").read_text() if (out / "steps.log").exists() else ""
    assert run.returncode == 0, f"runbook failed:\n{run.stdout}\n{run.stderr}\n{log}"

    setup = (out / "setup.log").read_text()
    assert f"rapids_balance from {ROOT / 'rapids_balance'}" in setup
    steps = [json.loads(line) for line in (out / "steps.jsonl").read_text().splitlines()]
    assert tuple(s["step"] for s in steps) == FIRST_LIGHT_STEPS
    for s in steps:
        assert s["rc"] == 0, f"step {s['step']} ended with rc={s['rc']}: {(out / (s['step'] + '.log')).read_text()}"
        assert s["seconds"] < s["limit_s"], f"step {s['step']} over its budget"

    probe = json.loads((out / "probe.json").read_text())
    assert probe["simulated"] and probe["usable"]
    assert str(tmp_path / "site") in (out / "probe.log").read_text() or probe["array_api_compat"][0].isdigit()
    equality = [json.loads(line) for line in (out / "equality.jsonl").read_text().splitlines()]
    checks = [r for r in equality if "check" in r]
    assert len(checks) == 8 and all(r["equal"] for r in checks)
    assert any("4 blocks a source" in r["check"] for r in checks)
    timings = [json.loads(line) for line in (out / "timings.jsonl").read_text().splitlines()]
    assert {r["backend"] for r in timings} == {"gpu", "cpu"}
    kernels = {r["kernel"] for r in timings if r.get("step") == "kernels"}
    assert kernels == {"_k_bfs_groups", "_k_expand+_k_pull", "boruvka_trees",
                       "tree_levels_gpu"}  # each redesign timed
    for w in ("balance", "betweenness"):
        report = json.loads((out / f"profile-{w}.json").read_text())
        assert report["workloads"][w]["kernels"]
    tests_log = (out / "tests.log").read_text()
    assert re.search(r"\d+ passed", tests_log) and " failed" not in tests_log


def test_runbook_stops_without_a_real_gpu(tmp_path):
    """Outside the dry run, the simulator (or no GPU) stops first light at the probe, loudly."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAPIDS_BALANCE_REAL_GPU",)}
    env.update(OUT=str(tmp_path), PYTHON=sys.executable, RB_CARRY=str(tmp_path / "none"),
               RB_SITE=str(tmp_path / "site"), NUMBA_ENABLE_CUDASIM="1")
    run = subprocess.run(["bash", str(RUNBOOK), "first-light"], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 3
    assert "FIRST LIGHT STOPPED" in (tmp_path / "steps.log").read_text()
    assert not (tmp_path / "equality.jsonl").exists()


def test_first_light_rapids_step_on_the_stand_ins(monkeypatch, tmp_path):
    """The first-light step for cuDF / cuGraph / dask-cuDF inputs, run on the stand-ins written from
    their sources: every check equal.  Without cuDF it writes one line saying so and passes."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gpu_first_light
    finally:
        sys.path.pop(0)
    import argparse

    monkeypatch.setitem(sys.modules, "cudf", None)
    (tmp_path / "none").mkdir()
    assert gpu_first_light.rapids(argparse.Namespace(out=str(tmp_path / "none"))) == 0
    (row,) = [json.loads(line) for line in (tmp_path / "none" / "rapids.jsonl").read_text().splitlines()]
    assert "cuDF is not importable here" in row["skipped"]
    import _standins as standins

    standins.install(monkeypatch)
    (tmp_path / "stand-ins").mkdir()
    assert gpu_first_light.rapids(argparse.Namespace(out=str(tmp_path / "stand-ins"))) == 0
    rows = [json.loads(line) for line in (tmp_path / "stand-ins" / "rapids.jsonl").read_text().splitlines()]
    assert len(rows) == 5 and all(r["equal"] for r in rows), rows
