"""Time limits start once the kernels are ready (rapids_balance._ready); no timed assertions.

In process: after a search's ready step (a tiny run through the same
stages), the search itself compiles no new kernel signature, so nothing is
compiled while its clock runs.  In a child process with an empty numba
cache: the result's own timings show that compiling happened before the
clock and that the search still got its whole limit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import rapids_balance as rb
from rapids_balance import _ready
from rapids_balance.graph import build_graph

REPO = Path(__file__).resolve().parents[1]


def _signatures() -> dict[tuple[str, str], int]:
    """Compiled signatures of every numba CPU dispatcher of the package."""
    out = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("rapids_balance") or mod is None:
            continue
        for attr, obj in list(vars(mod).items()):
            if isinstance(obj, numba.core.registry.CPUDispatcher):
                out[(name, attr)] = len(obj.signatures)
    return out


@pytest.fixture
def at_ready(monkeypatch):
    """The signatures right after each ready step (whether or not it had work to do)."""
    seen = []
    original = _ready.ready

    def spy(key, job, side=None):
        seconds = original(key, job, side)
        seen.append(_signatures())
        return seconds

    monkeypatch.setattr(_ready, "ready", spy)
    return seen


def _planted(n: int, weighted: bool = False, seed: int = 3):
    """A connected signed graph unlike the ready step's (other size and density)."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, 4 * n)
    dst = rng.integers(0, n, 4 * n)
    src, dst = np.concatenate([src, np.arange(n)]), np.concatenate([dst, (np.arange(n) + 1) % n])
    keep = src != dst
    src, dst = src[keep], dst[keep]
    sign = np.where(((src % 3) == (dst % 3)) != (rng.random(src.size) < 0.1), 1, -1)
    weight = rng.uniform(1.0, 3.0, src.size) if weighted else None
    return build_graph(src, dst, sign=sign, weight=weight)


def _new_signatures(before: dict, after: dict) -> list:
    return sorted(k for k, v in after.items() if v > before.get(k, 0))


@pytest.mark.parametrize("refine", [True, False])
def test_frustration_compiles_nothing_once_ready(at_ready, refine):
    g = _planted(400)
    res = rb.frustration(g, 8, seed=2, refine={"population": 4, "rounds": 2, "coarsest": 16}
                         if refine else False, time_limit=60.0, progress=False)
    assert at_ready, "the search made no ready step"
    assert _new_signatures(at_ready[-1], _signatures()) == []
    assert res.info["seconds_compile"] >= 0.0 and res.info["seconds_search"] > 0.0


@pytest.mark.parametrize("method,weighted", [("multilevel", False), ("ils", True), ("grasp", False)])
def test_clustering_compiles_nothing_once_ready(at_ready, method, weighted):
    g = _planted(300, weighted)
    res = rb.correlation_clustering(g, method=method, max_iterations=2, time_limit=60.0, seed=1,
                                    progress=False)
    assert at_ready
    assert _new_signatures(at_ready[-1], _signatures()) == []
    assert set(res.info) == {"seconds_compile", "seconds_search"}


def test_lower_bound_compiles_nothing_once_ready(at_ready):
    g = _planted(300)
    state = np.asarray(g.labels) % 2
    lb = rb.frustration_lower_bound(g, state, steps=200, time_limit=60.0)
    assert at_ready
    assert _new_signatures(at_ready[-1], _signatures()) == []
    assert lb.bound <= lb.index and lb.info["seconds_compile"] >= 0.0


def test_ready_runs_once_per_key_and_not_inside_itself():
    calls = []
    key = ("test", object())

    def job():
        calls.append(1)
        assert _ready.ready(key, job) == 0.0  # the search asking again from inside its tiny run

    assert _ready.ready(key, job) > 0.0
    assert _ready.ready(key, job) == 0.0
    assert calls == [1]


_CHILD = """
import json, sys
sys.path.insert(0, "tests")
import rapids_balance as rb
from rapids_balance import _ready
from test_time_limit_ready import _new_signatures, _signatures
g = rb.load_example("highland")
limit = float(sys.argv[1])
seen = []
original = _ready.ready
_ready.ready = lambda key, job, side=None: (original(key, job, side), seen.append(_signatures()))[0]
if sys.argv[2] == "frustration":
    res = rb.frustration(g, 10**9, refine=False, time_limit=limit, progress=False)
    out = dict(res.info, index=res.index)
else:
    res = rb.correlation_clustering(g, method="ils", max_iterations=10**9, time_limit=limit,
                                    progress=False)
    out = dict(res.info, iterations=res.iterations)
out["compiled_in_search"] = _new_signatures(seen[-1], _signatures())
print(json.dumps(out))
"""


def _cold_child(tmp_path, what: str, limit: float) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(limit), what], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_cold_first_call_gets_its_whole_limit(tmp_path):
    """Empty numba cache: the trees' kernels compile before the clock, then the search
    samples trees for its whole limit (it starts no chunk of trees that would end past the
    deadline at the pace of the chunks before: on a loaded machine a chunk takes a few ms,
    so the search may stop that much short of the limit)."""
    info = _cold_child(tmp_path, "frustration", 1.0)
    assert info["seconds_compile"] > 0.0 and info["compiled_in_search"] == []
    assert info["seconds_search"] >= 0.9
    assert info["stopped"] == "time_limit" and info["trees"] > 1


@pytest.mark.slow
def test_a_cold_first_clustering_call_gets_its_whole_limit(tmp_path):
    info = _cold_child(tmp_path, "clustering", 1.0)
    assert info["seconds_compile"] > 0.0 and info["compiled_in_search"] == []
    assert info["seconds_search"] >= 1.0 and info["iterations"] > 1
