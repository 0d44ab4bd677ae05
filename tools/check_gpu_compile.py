#!/usr/bin/env python
"""Compile every numba-cuda kernel of rapids_balance for a real GPU, without one.

CI runs the GPU kernels under numba's CUDA simulator, which executes the
Python source and accepts code the CUDA target rejects (njit bodies it
cannot retarget, numpy calls, Python objects).  This check closes that gap
as far as it can be closed without a GPU:

1. **Signatures.**  One child process per package, with
   ``NUMBA_ENABLE_CUDASIM=1``, runs the library's GPU code paths on tiny
   graphs (the ``SCENARIOS`` below: public functions with ``backend="gpu"``)
   and records, for every kernel launch (``FakeCUDAKernel.__call__``), the
   kernel's Python function and ``numba.typeof`` of each argument.  Arrays
   keep their layout ('C'/'F'/'A': numba-cuda types the CuPy array of the
   real path by the same contiguity rule) but are typed writable, as device
   arrays always are.  A scenario still running after ``--timeout`` seconds
   (a kernel that never ends, say) fails, saying where it is stuck.
2. **Compilation.**  This process (simulator off) compiles each
   (kernel, signature) with ``numba.cuda.compile_ptx(..., cc=CC)`` -- NVVM,
   device functions and shared ``@numba.njit`` bodies included -- and
   assembles the PTX with ``ptxas -arch=sm_XY -v`` (whole-program mode),
   which reports registers, stack frame and spills; a ptxas failure is a
   failure too.  numba-cuda compiles called device functions for the
   *current device's* architecture, so that query is answered with ``CC``.

A kernel of the library that no scenario launched is a failure ("no
signature"), so a new kernel cannot slip past the check untested.  The
GPU probe kernel of ``backend.gpu_status`` is never launched under the
simulator; it is compiled with the signature of the real probe (an int32
CuPy vector).

Compiling is not running: an OK line says NVVM and ptxas accept the kernel
for that architecture, nothing about its results or speed.

Usage::

    python tools/check_gpu_compile.py [--cc 9.0] [--json FILE] [--ptx-dir DIR] [--timeout S] [-v]
    python tools/check_gpu_compile.py --toolchain   # exit 0 when NVVM + ptxas work, else 2

Prints one line per (kernel, signature): OK/FAIL, registers, spill stores /
loads (bytes), stack frame (bytes), static shared memory (bytes).  Exit code
1 when anything failed, 2 when the toolchain (NVVM or ptxas) is missing.
"""

from __future__ import annotations

import os
import sys

if "--collect" not in sys.argv:
    # numba reads these when numba.cuda is first imported: this process must
    # compile for the real target, whatever the caller's environment says
    os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
    os.environ.pop("RAPIDS_BALANCE_CUDASIM", None)

import argparse  # noqa: E402
import ast  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import textwrap  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# this checkout's kernels, not those of another install of the package
sys.path.insert(0, str(ROOT))

KERNEL_MODULES = (
    "rapids_balance.balancing._gpu",
    "rapids_balance.balancing._gpu_split",
    "rapids_balance.centrality._gpu",
    "rapids_balance.centrality._gpu_split",
    "rapids_balance.clustering._gpu",
    "rapids_balance.frustration_index._gpu",
    "rapids_balance.measures._triangle_gpu",
    "rapids_balance.null_models._gpu",
)
PROBE = "rapids_balance.backend:gpu_status._probe"


# ---------------------------------------------------------------------------
# step 1 (child process, simulator on): the library's GPU paths on tiny graphs
# ---------------------------------------------------------------------------

def _signed():
    """An 8-cycle with three chords, mixed signs: connected, several cycles."""
    from rapids_balance.graph import build_graph

    src = [0, 1, 2, 3, 4, 5, 6, 0, 0, 2, 1]
    dst = [1, 2, 3, 4, 5, 6, 7, 7, 4, 6, 5]
    sign = [1, -1, 1, 1, -1, 1, 1, -1, -1, 1, 1]
    return build_graph(src, dst, sign=sign)


def _scenario_balancing():
    import numpy as np

    from rapids_balance.balancing import balance
    from rapids_balance.balancing._trees import bfs_trees
    from rapids_balance.balancing._roots import tree_roots
    from rapids_balance.balancing._path_signs import path_signs

    g = _signed()
    for method in ("path-sign", "cycle"):
        for majority in ("larger", "agreeable"):
            balance(g, 3, method=method, majority=majority, seed=4, backend="gpu", progress=False)
    roots, seeds = tree_roots(g, np.arange(2), seed=9)
    parent, pe, order = bfs_trees(g, roots, seeds, backend="gpu")
    # a tree over several blocks (a batch too small for the device): the split BFS's kernels
    from rapids_balance.balancing._gpu import bfs_trees_gpu
    from rapids_balance.balancing._trees import seed_mix

    bfs_trees_gpu(g, roots, seed_mix(seeds), with_ps=True, split=2)
    path_signs(np.asarray(order), np.asarray(parent), np.asarray(pe), g.sign, backend="gpu")


def _scenario_frustration():
    import numpy as np

    from rapids_balance.balancing._path_signs import path_signs
    from rapids_balance.frustration_index import RefineParams, frustration
    from rapids_balance.frustration_index._refine import parallel_descent, vertex_gains
    from rapids_balance.frustration_index._samplers import sample_trees
    from rapids_balance.frustration_index._states import tree_states

    g = _signed()
    p, pe, o, _ = sample_trees(g, np.arange(3), sampler="rdfs", seed=2)
    tree_states(path_signs(o, p, pe, g.sign), g, backend="gpu")
    sample_trees(g, np.arange(2), sampler="kruskal", seed=2, backend="gpu")
    x = np.where(np.random.default_rng(0).random(g.n) < 0.5, -1, 1).astype(np.int8)
    vertex_gains(g, x, backend="gpu")
    parallel_descent(g, x, seed=5, backend="gpu")
    frustration(g, 3, sampler="bfs", seed=3, progress=False, refine=RefineParams(rounds=1),
                backend="gpu")
    # the Kruskal path signs alone: the trees rooted a block a tree
    frustration(g, 2, sampler="kruskal", seed=3, progress=False, refine=False, backend="gpu")


def _scenario_centrality():
    import networkx as nx

    from rapids_balance.centrality import betweenness_centrality, edge_betweenness_centrality

    G = nx.cycle_graph(7)
    G.add_edges_from([(0, 3), (2, 5)])
    for i, (u, v) in enumerate(G.edges):
        G[u][v]["weight"] = 1 + i % 2
    betweenness_centrality(G, backend="gpu", endpoints=True)
    betweenness_centrality(G, weight=None, backend="gpu", k=[0, 3])
    D = nx.DiGraph(G)
    edge_betweenness_centrality(D, backend="gpu", normalized=False)
    # each source over two blocks, as on graphs too large for a block per source
    from rapids_balance.centrality import _gpu_fold

    _gpu_fold.blocks_per_source = lambda *args, **kwargs: 2
    betweenness_centrality(G, backend="gpu", endpoints=True, k=[0, 3])
    edge_betweenness_centrality(D, backend="gpu", normalized=False, k=[1])


def _scenario_clustering():
    import numpy as np

    import rapids_balance as rb
    from rapids_balance.clustering._gpu import GPUState
    from rapids_balance.clustering._objective import slot_weights
    from rapids_balance.clustering._state import Level

    rng = np.random.default_rng(0)
    n, m = 10, 20
    data = {"source": rng.integers(0, n, m), "target": rng.integers(0, n, m),
            "sign": rng.choice([-1, 1], m), "weight": rng.uniform(0.5, 2.0, m)}
    for weight in (None, "weight"):
        g = rb.SignedGraph.from_edgelist(data, sign="sign", weight=weight)
        lv = Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))
        for cap in (0, 3):
            start = np.zeros(g.n, np.int32) if cap else np.arange(g.n, dtype=np.int32)
            GPUState(lv, start, cap).vnd_best()
            GPUState(lv, start, cap).vnd_best_stepwise()  # the one-launch search's reference
            GPUState(lv, start, cap).parallel()
    rb.correlation_clustering(g, method="grasp", seed=2, max_iterations=1, progress=False,
                              backend="gpu")


def _scenario_measures():
    import rapids_balance as rb
    from rapids_balance.graph import build_graph

    # a 4-clique with a tail: triangles of several types (the 8-cycle has none)
    g = build_graph([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4], sign=[1, -1, 1, -1, 1, 1, -1])
    rb.signed_triangles(g, backend="gpu")


def _scenario_null_models():
    import rapids_balance as rb
    from rapids_balance.graph import build_graph

    g = build_graph([0, 0, 0, 1, 1, 2, 3], [1, 2, 3, 2, 3, 3, 4], sign=[1, -1, 1, -1, 1, 1, -1])
    rb.significance(g, "triangles", n_samples=3, seed=1, backend="gpu", progress=False)


SCENARIOS = {
    "balancing": _scenario_balancing,
    "frustration_index": _scenario_frustration,
    "centrality": _scenario_centrality,
    "clustering": _scenario_clustering,
    "measures": _scenario_measures,
    "null_models": _scenario_null_models,
}


def _describe(arg):
    """A JSON-able description of the kernel argument's numba type on the real path."""
    import numba
    import numpy as np

    if isinstance(arg, np.ndarray):
        # device arrays are always typed writable; layout as numba-cuda types CuPy arrays
        return ["array", arg.dtype.str, arg.ndim, numba.typeof(arg).layout]
    try:
        return ["scalar", str(numba.typeof(arg))]
    except Exception:
        return ["other", type(arg).__qualname__]


def _stuck_here() -> str:
    """Where the threads (the scenario's and the simulated GPU threads) are in
    the library's code: its last three frames, each distinct place once."""
    seen = []
    for frame in sys._current_frames().values():
        lib = [f for f in traceback.extract_stack(frame) if "rapids_balance" in f.filename]
        text = "".join(traceback.format_list(lib[-3:]))
        if lib and text not in seen:
            seen.append(text)
    return "\n".join(seen[:4])


def collect(out_path: str, scenario: str, timeout: float) -> None:
    """Run one scenario under the simulator; write the launched signatures as JSON.

    A scenario still running after ``timeout`` seconds (a kernel that does
    not terminate, say) is reported with where it is stuck, and the
    signatures launched until then are kept.
    """
    from numba.cuda.simulator import kernel as simk

    seen: dict = {}
    orig = simk.FakeCUDAKernel.__call__

    def recording_call(self, *args):
        if not (self._device or simk._get_kernel_context()):
            fn = self.fn
            key = json.dumps([fn.__module__, fn.__qualname__, [_describe(a) for a in args]])
            seen.setdefault(key, None)
        return orig(self, *args)

    def write(errors):
        records = [json.loads(k) for k in list(seen)]
        Path(out_path).write_text(json.dumps({"records": records, "errors": errors}))

    def give_up():
        write({scenario: f"timed out after {timeout:.0f} s under the simulator; still running:\n"
                         + _stuck_here()})
        os._exit(0)

    simk.FakeCUDAKernel.__call__ = recording_call
    watchdog = threading.Timer(timeout, give_up)
    watchdog.daemon = True
    watchdog.start()
    errors = {}
    try:
        SCENARIOS[scenario]()
    except Exception:  # reported; kernels it did not reach fail for want of a signature
        errors[scenario] = traceback.format_exc()
    watchdog.cancel()
    write(errors)


# ---------------------------------------------------------------------------
# step 2 (this process, simulator off): NVVM + ptxas
# ---------------------------------------------------------------------------

def _run_collector(timeout: float, verbose: bool) -> dict:
    """Every scenario in its own simulator process (all at once), merged."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    merged: dict = {"records": [], "errors": {}}
    with tempfile.TemporaryDirectory() as tmp:
        procs = {}
        for name in SCENARIOS:
            out = os.path.join(tmp, f"{name}.json")
            cmd = [sys.executable, os.path.abspath(__file__), "--collect", out, "--scenario", name,
                   "--timeout", str(timeout)]
            procs[name] = (out, subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT, text=True))
        for name, (out, proc) in procs.items():
            try:
                log, _ = proc.communicate(timeout=timeout + 120)
            except subprocess.TimeoutExpired:
                proc.kill()
                log, _ = proc.communicate()
            if proc.returncode != 0 or not os.path.exists(out):
                merged["errors"][name] = f"simulator process failed (exit {proc.returncode}):\n{log}"
                continue
            if verbose and log.strip():
                sys.stderr.write(log)
            part = json.loads(Path(out).read_text())
            merged["records"] += [r for r in part["records"] if r not in merged["records"]]
            merged["errors"].update(part["errors"])
    return merged


def _numba_type(desc):
    import numba
    import numpy as np
    from numba import types

    kind = desc[0]
    if kind == "array":
        return types.Array(numba.from_dtype(np.dtype(desc[1])), desc[2], desc[3])
    if kind == "scalar":
        scalars = {str(t): t for t in list(types.number_domain) + [types.boolean]}
        if desc[1] in scalars:
            return scalars[desc[1]]
    raise TypeError(f"kernel argument of unsupported type {desc[1]!r}")


def _probe_function():
    """The probe kernel nested in backend.gpu_status, from its source (it is
    only defined when a real GPU is probed)."""
    from numba import cuda

    src = (ROOT / "rapids_balance" / "backend.py").read_text()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.FunctionDef) and node.name == "_probe":
            # the segment starts at "def": the decorator (_cuda.jit) is left out
            code = textwrap.dedent(ast.get_source_segment(src, node))
            ns = {"_cuda": cuda}
            exec(compile(code, "rapids_balance/backend.py:_probe", "exec"), ns)
            return ns["_probe"]
    raise LookupError("no _probe kernel in rapids_balance/backend.py")


def _library_kernels() -> dict:
    """{"module:qualname": (python function, compile options)} of every kernel
    (device functions are compiled through the kernels that call them)."""
    from numba.cuda.dispatcher import CUDADispatcher

    found = {}
    for modname in KERNEL_MODULES:
        mod = importlib.import_module(modname)
        for obj in vars(mod).values():
            obj = getattr(obj, "dispatcher", obj)  # a backend.Kernel wraps numba's dispatcher
            if (isinstance(obj, CUDADispatcher) and not obj.targetoptions.get("device")
                    and obj.py_func.__module__ == modname):
                opts = {k: obj.targetoptions[k] for k in _KERNEL_OPTIONS if k in obj.targetoptions}
                found[f"{modname}:{obj.py_func.__qualname__}"] = (obj.py_func, opts)
    found[PROBE] = (_probe_function(), {})
    return found


# options of a @cuda.jit kernel that change its code, passed on to compile_ptx
_KERNEL_OPTIONS = ("debug", "lineinfo", "fastmath", "opt", "launch_bounds")

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")


def find_ptxas() -> str | None:
    """ptxas on PATH or in the CUDA toolkit; None when there is none."""
    found = shutil.which("ptxas")
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    path = os.path.join(home, "bin", "ptxas")
    return path if os.path.exists(path) else None


def _ptxas(ptx: str, arch: str, ptxas: str, keep: Path | None, stem: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(keep or tmp) / f"{stem}.ptx"
        path.write_text(ptx)
        # whole-program mode: an unresolved extern (a helper numba would have
        # to link) fails here rather than passing unnoticed
        proc = subprocess.run([ptxas, f"-arch={arch}", "-v", str(path), "-o", os.devnull],
                              capture_output=True, text=True)
    text = proc.stdout + proc.stderr
    if proc.returncode != 0:
        return {"ok": False, "error": "ptxas: " + " | ".join(text.strip().splitlines()[:4])}
    # -v prints "Function properties for F" + a stack/spill line for every
    # function, and a "Used N registers" line for each entry: read the entry's
    stats = {"regs": None, "spill_st": 0, "spill_ld": 0, "stack": 0, "smem": 0}
    entry = current = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            entry = m[1]
        elif m := _PROPS.search(line):
            current = m[1]
        elif (m := _STACK.search(line)) and current is not None and current == entry:
            stats.update(stack=int(m[1]), spill_st=int(m[2]), spill_ld=int(m[3]))
        elif (m := _USED.search(line)) and entry is not None:
            stats.update(regs=int(m[1]), smem=int(m[2] or 0))
    if stats["regs"] is None:
        return {"ok": False, "error": "ptxas -v reported no entry function:\n" + text}
    return {"ok": True, **stats, "ptxas_log": text}


def _short_error(exc: BaseException) -> str:
    """The first lines of a numba error that say what failed (the rest is context)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # numba's colour codes
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.lstrip().startswith(("During:", "File \"", "^"))]
    return f"{type(exc).__name__}: " + " | ".join((keep or lines or [""])[:3])[:400]


def _pretend_device(cc: tuple[int, int]) -> None:
    """Device functions are compiled for ``get_current_device().compute_capability``
    (numba-cuda's ``CUDADispatcher.compile_device``), which needs a driver: answer
    with the target architecture, as the real device would."""
    from types import SimpleNamespace

    from numba.cuda import dispatcher

    dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=cc)


def compile_kernel(fn, argtypes: tuple, cc: tuple[int, int], ptxas: str, *, options=None,
                   ptx_dir: Path | None = None, stem: str = "kernel") -> dict:
    """NVVM then ptxas for one kernel signature: {"ok", "regs", "spill_st",
    "spill_ld", "stack", "smem"} or {"ok": False, "error", "full_error"}."""
    from numba import cuda

    _pretend_device(cc)
    try:
        ptx, _ = cuda.compile_ptx(fn, argtypes, cc=cc, **(options or {}))
    except Exception as exc:
        return {"ok": False, "error": _short_error(exc),
                "full_error": re.sub(r"\x1b\[[0-9;]*m", "", str(exc))}
    return _ptxas(ptx, f"sm_{cc[0]}{cc[1]}", ptxas, ptx_dir, stem)


def _trivial_kernel(out):
    for i in range(out.size):
        out[i] = i * 2


def toolchain_status(cc: tuple[int, int]) -> str | None:
    """None when NVVM (libNVVM/NVRTC) and ptxas compile and assemble a trivial
    kernel for ``cc``; otherwise what is missing."""
    ptxas = find_ptxas()
    if ptxas is None:
        return "ptxas not found on PATH nor in $CUDA_HOME/bin (default /usr/local/cuda/bin)"
    try:
        from numba import types
    except ImportError as exc:  # pragma: no cover - numba is a dependency
        return f"numba: {exc}"
    row = compile_kernel(_trivial_kernel, (types.int32[::1],), cc, ptxas)
    return None if row["ok"] else row["error"]


def check(cc: tuple[int, int], verbose: bool, ptx_dir: Path | None,
          timeout: float = 150.0) -> tuple[list[dict], int]:
    """(one row per kernel signature, number of scenarios that failed under the simulator)."""
    missing = toolchain_status(cc)
    if missing:
        print(f"no CUDA toolchain to compile with: {missing}", file=sys.stderr)
        raise SystemExit(2)
    ptxas = find_ptxas()
    collected = _run_collector(timeout, verbose)
    for name, tb in collected["errors"].items():
        print(f"SCENARIO FAIL {name} (under the simulator):\n{textwrap.indent(tb, '    ')}")
    kernels = _library_kernels()
    sigs: dict[str, list] = {k: [] for k in kernels}
    sigs[PROBE].append([["array", "<i4", 1, "C"]])  # the probe's CuPy int32 vector
    for modname, qualname, args in collected["records"]:
        sigs.setdefault(f"{modname}:{qualname}", []).append(args)
    results = []
    for key in sorted(sigs):
        short = key.replace("rapids_balance.", "").replace("._gpu:", ".")
        if key not in kernels:
            results.append({"kernel": short, "ok": False, "sig": "",
                            "error": "launched under the simulator but not a module-level kernel"})
            continue
        if not sigs[key]:
            results.append({"kernel": short, "ok": False, "sig": "",
                            "error": "no signature: no scenario launched this kernel"})
            continue
        fn, options = kernels[key]
        for i, args in enumerate(sigs[key]):
            row = {"kernel": short, "sig": ""}
            t0 = time.perf_counter()
            try:
                argtypes = tuple(_numba_type(a) for a in args)
            except TypeError as exc:
                row.update(ok=False, error=str(exc))
            else:
                row["sig"] = "(" + ", ".join(str(t) for t in argtypes) + ")"
                row.update(compile_kernel(fn, argtypes, cc, ptxas, options=options, ptx_dir=ptx_dir,
                                          stem=re.sub(r"\W", "_", short) + f"_{i}"))
            row["seconds"] = round(time.perf_counter() - t0, 2)
            results.append(row)
    return results, len(collected["errors"])


def _print(results: list[dict], verbose: bool) -> None:
    width = max(len(r["kernel"]) for r in results)
    print(f"{'status':6} {'kernel':{width}} {'regs':>4} {'spill st/ld':>11} {'stack':>5} {'smem':>5}  signature")
    for r in results:
        if r["ok"]:
            spill = f"{r['spill_st']}/{r['spill_ld']}"
            print(f"{'OK':6} {r['kernel']:{width}} {r['regs']!s:>4} {spill:>11} {r['stack']:>5} "
                  f"{r['smem']:>5}  {r['sig']}")
        else:
            print(f"{'FAIL':6} {r['kernel']:{width}} {'-':>4} {'-':>11} {'-':>5} {'-':>5}  {r['sig']}")
            err = r.get("full_error", r["error"]) if verbose else r["error"]
            print(textwrap.indent(err, " " * 8))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="9.0", help="compute capability to compile for (default 9.0: H100/H200)")
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--ptx-dir", type=Path, help="keep the PTX files here")
    ap.add_argument("-v", "--verbose", action="store_true", help="full compiler errors")
    ap.add_argument("--toolchain", action="store_true",
                    help="only check that NVVM and ptxas compile a trivial kernel (exit 0, or 2)")
    ap.add_argument("--timeout", type=float, default=150.0,
                    help="seconds a scenario may run under the simulator (default 150)")
    ap.add_argument("--collect", metavar="OUT", help=argparse.SUPPRESS)
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.collect:
        collect(args.collect, args.scenario, args.timeout)
        return 0
    major, minor = (int(x) for x in args.cc.split("."))
    if args.toolchain:
        missing = toolchain_status((major, minor))
        print(f"no CUDA toolchain to compile with: {missing}" if missing else "NVVM and ptxas: OK")
        return 2 if missing else 0
    if args.ptx_dir:
        args.ptx_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results, scenario_failures = check((major, minor), args.verbose, args.ptx_dir, args.timeout)
    _print(results, args.verbose)
    failed = sum(not r["ok"] for r in results)
    print(f"{len(results) - failed}/{len(results)} kernel signatures compiled for "
          f"sm_{major}{minor} in {time.perf_counter() - t0:.0f} s (compiled and assembled, not run)"
          + (f"; {scenario_failures} scenario(s) failed under the simulator" if scenario_failures else ""))
    if args.json:
        for r in results:
            r.pop("ptxas_log", None)
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 1 if failed or scenario_failures else 0


if __name__ == "__main__":
    sys.exit(main())
