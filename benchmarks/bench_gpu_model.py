"""Device work model of the GPU path: what each unit of work costs the host and the device.

For each GPU workload this counts, per unit of work, the kernel launches,
the host synchronisations, the bytes moved between host and device, and the
device bytes the kernels' arguments span, then turns them into a modelled
H100 time per unit with stated constants:

==========================  =====================================
kernel launch               5 us (``--launch-us``)
host synchronisation        15 us (``--sync-us``)
host <-> device copies      25 GB/s (``--hd-gbs``)
device memory               3 TB/s (``--device-tbs``)
==========================  =====================================

Units: per tree (balance with attributes, frustration without refinement,
with BFS trees and with Kruskal trees), per source (weighted betweenness),
per move and per round (VND), per batch (the BFS of a tree batch: one
launch, ``_k_bfs_groups``, builds the whole batch).

How each count is taken (the same under numba's CUDA simulator and on a GPU):

* launches: every launch of a numba-cuda kernel (numba's kernel class is
  hooked, so the version before this one is counted the same way), by name;
* device bytes: per launch, the bytes of its array arguments (the memory a
  kernel can touch once; gathers over the adjacency touch it more, so this is
  a floor on traffic, a ceiling on footprint);
* host <-> device bytes: arrays passed to ``to_host`` (device -> host) and to
  ``to_device`` / ``device_array`` from the host (host -> device) in the GPU
  modules (a ``to_host`` made inside ``to_device``, which the simulator's
  numpy path does, is neither a read nor a synchronisation, and is not
  counted);
* host synchronisations: each ``to_host`` of a GPU module, each
  ``cuda.synchronize``, and the reads of device values made outside
  ``to_host``.  Since ``backend.host_read`` every read the algorithms branch
  on goes through it (and so through ``to_host``), so nothing is inferred;
  for versions without it the reads outside ``to_host`` are counted per
  launch of the kernel they follow: the one-launch BFS's "any vertex
  unreached" (``BFS_READS_PER_BATCH`` per ``_k_bfs_groups`` launch), the
  level-synchronous BFS before it (``BFS_READS_PER_LEVEL`` per ``_k_settle``
  launch), and before ``backend.Kernel`` balancing's ``_k_jump`` and
  ``_k_cc_hook`` flags and one synchronisation per array argument of every
  launch: numba-cuda converted each CuPy argument at launch and
  synchronised its stream (``NUMBA_CUDA_ARRAY_INTERFACE_SYNC=1``, its
  default); ``backend.Kernel`` passes unsynchronised views.

Betweenness occupancy at 10**8 edges: the sources one launch takes as the
library's batch sizing gives them for the reference H100 (80 GiB, 132 SMs;
under the simulator the library assumes it), the thread blocks each source
gets (one, or several where memory holds fewer than 4 sources per SM:
``centrality._gpu.blocks_per_source``), and the resident blocks per SM that
follow from the launch's blocks over 132 SMs, 2048 threads and 65536
registers an SM (threads per block and registers per thread as the library
states them, else 256 and the 112 that ``tools/check_gpu_compile.py``
reported for the older kernel at sm_90).  The ``betweenness-split`` rows
count the same work with 4 blocks a source, as such graphs run it.

Occupancy of every workload (``--registers FILE``, the JSON of
``tools/check_gpu_compile.py --cc 9.0 --json FILE``): every kernel launch of
balance (each method and majority rule), frustration (BFS and Kruskal
trees, the refinement's rounds), VND clustering (one-block search and
parallel rounds), triangles, the shuffle null model and betweenness, as
:func:`launch_plan` computes it from the graph's size with the library's own
launch code (its ``launch_config`` calls, block constants and the engines'
batch sizing at the reference device's 80 GiB), at Slashdot with T = 1000
trees and at 10**8 edges with T = 64 (``OCCUPANCY_SIZES``): blocks, threads,
the kernel's registers a thread at sm_90 (the most over its signatures),
the resident blocks per SM on the reference H100 (132 SMs; per SM 2048
threads, 32 blocks, 65536 registers allocated per warp in steps of 256:
``rapids_balance._occupancy``) and the SMs the launch keeps busy, in the
JSON as ``occupancy``.  ``fills`` is the target of at least 4 resident blocks
per SM or at least 4 x 132 blocks per launch.  ``tests/test_gpu_model_plan.py``
holds the plan to the launches the code makes under the simulator.
``--occupancy-only`` writes these rows alone (nothing runs).

Modelled time (with ``--registers``; ``time_model`` in the JSON): per tree of
balance and frustration, per round of the parallel VND and per move of the
one-block VND, at the occupancy sizes and a 10**6-vertex graph of mean degree
20 (``TIME_SIZES``), from the launch plan: each launch's device bytes
(:func:`_traffic`: rows streamed at their size, every random access a whole
32-byte sector, no L2 credit) at 3 TB/s times the share of the SMs it keeps
busy, plus 5 us a launch, 15 us a host read and 25 GB/s for host copies
(``TIME_MODEL``).  Latency chains (a thread's serial steps) are not modelled.

``--baseline PATH`` counts another checkout (the version before: ``git
archive main | tar -x -C DIR``) in a subprocess with the same arguments and
puts its figures beside each row, so before and after come from one run.

Under the simulator full graphs are too slow, so ``--vertices`` takes
induced subgraphs of the graph's first vertices in BFS order from vertex 0
(connected), several sizes, to show how the counts per unit scale.

Run::

    NUMBA_ENABLE_CUDASIM=1 python benchmarks/bench_gpu_model.py \\
        --graph ../shared/data/soc-sign-Slashdot090221.txt.gz --vertices 60 120 240 --trees 16
    python benchmarks/bench_gpu_model.py --graph ../shared/data/soc-sign-Slashdot090221.txt.gz \\
        --trees 1000 --out gpu-out     # on a GPU: the full graph
    ... --baseline /tmp/before         # with the version before counted beside
    python tools/check_gpu_compile.py --cc 9.0 --json regs.json
    python benchmarks/bench_gpu_model.py --occupancy-only --registers regs.json --out DIR
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if "--repo" not in sys.argv:
    sys.path.insert(0, str(REPO))

GPU_MODULES = ("rapids_balance.balancing._gpu", "rapids_balance.balancing._gpu_split",
               "rapids_balance.centrality._gpu",
               "rapids_balance.clustering._gpu", "rapids_balance.frustration_index._gpu")
# reads of device values in the BFS outside to_host, for versions without backend.host_read:
# the one-launch BFS (balancing/_gpu.py `bfs_trees_gpu`: `bool((depth < 0).any())` after its one
# `_k_bfs_groups` launch), counted per launch; the level-synchronous BFS before it read the level's
# `int(count[0])` and the next frontier's `xp.nonzero`, two per `_k_settle` launch
BFS_READS_PER_BATCH = 1
BFS_READS_PER_LEVEL = 2
# the betweenness occupancy rows: (vertices, edges) at 10**8 edges; SMs of the reference H100
OCCUPANCY_GRAPHS = ((10**6, 10**8), (2 * 10**6, 10**8), (3 * 10**6, 10**8), (4 * 10**6, 10**8),
                    (10**7, 10**8), (24 * 10**6, 10**8), (10**8, 10**8))
SM_COUNT = 132
# versions whose betweenness module does not say: 256 threads a block, and the registers per
# thread of their `_bc_kernel` at sm_90 as tools/check_gpu_compile.py reports them (112 on
# 2026-11-25, allocated in steps of 8); an SM holds 65536 registers and 2048 threads
OLD_BC_THREADS, OLD_BC_REGISTERS = 256, 112


def _nbytes(a) -> int:
    return int(getattr(a, "nbytes", 0) or 0)


def _is_array(a) -> bool:
    return hasattr(a, "shape") and hasattr(a, "dtype") and getattr(a, "ndim", 0) > 0


class Counts:
    """Counters of one workload run."""

    def __init__(self):
        self.launches: Counter = Counter()
        self.array_args = 0
        self.device_bytes = 0
        self.to_host = 0
        self.d2h_bytes = 0
        self.h2d_bytes = 0
        self.synchronize = 0

    def syncs(self, per_argument: bool, flag_reads: dict) -> int:
        reads = sum(k * self.launches[name] for name, k in flag_reads.items())
        return self.to_host + self.synchronize + reads + (self.array_args if per_argument else 0)

    def row(self, units: float, consts: dict, per_argument: bool, flag_reads: dict) -> dict:
        per = {"launches": sum(self.launches.values()) / units,
               "host_syncs": self.syncs(per_argument, flag_reads) / units,
               "hd_bytes": (self.h2d_bytes + self.d2h_bytes) / units,
               "device_bytes": self.device_bytes / units}
        ms = 1e3 * (per["launches"] * consts["launch_us"] * 1e-6 + per["host_syncs"] * consts["sync_us"] * 1e-6
                    + per["hd_bytes"] / (consts["hd_gbs"] * 1e9)
                    + per["device_bytes"] / (consts["device_tbs"] * 1e12))
        return {**{k: round(v, 4) for k, v in per.items()}, "modelled_ms": round(ms, 5),
                "launches_by_kernel": dict(self.launches), "units": units}


@contextmanager
def counting(c: Counts):
    """Route launches, to_host, to_device/device_array and cuda.synchronize of the GPU modules through ``c``."""
    import importlib

    from rapids_balance import backend

    import importlib.util

    # the version before may lack a module (a --baseline run)
    mods = [importlib.import_module(m) for m in GPU_MODULES if importlib.util.find_spec(m)]
    saved = []

    def patch(obj, name, new):
        saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, new)

    if backend.simulator_enabled():
        from numba.cuda.simulator.kernel import FakeCUDAKernel as NumbaKernel

        def name_of(k):
            return k.fn.__name__
    else:
        from numba.cuda.dispatcher import CUDADispatcher as NumbaKernel

        def name_of(k):
            return k.py_func.__name__
    orig_getitem = NumbaKernel.__getitem__

    def getitem(self, config):
        launch = orig_getitem(self, config)

        def run(*args):
            c.launches[name_of(self)] += 1
            arrays = [a for a in args if _is_array(a)]
            c.array_args += len(arrays)
            c.device_bytes += sum(_nbytes(a) for a in arrays)
            return launch(*args)
        return run

    patch(NumbaKernel, "__getitem__", getitem)

    uploading = [0]  # under the simulator to_device hands host arrays to to_host: not a read

    def counted_to_host(fn):
        def to_host(a):
            if not uploading[0]:
                c.to_host += 1
                c.d2h_bytes += _nbytes(a)
            return fn(a)
        return to_host

    def counted_to_device(fn):
        def to_device(a, *args, **kw):
            if isinstance(a, np.ndarray) or not hasattr(a, "__cuda_array_interface__"):
                c.h2d_bytes += _nbytes(np.asarray(a)) if not _is_array(a) else _nbytes(a)
            uploading[0] += 1
            try:
                return fn(a, *args, **kw)
            finally:
                uploading[0] -= 1
        return to_device

    for mod in mods + [backend]:
        for name, wrap in (("to_host", counted_to_host), ("to_device", counted_to_device),
                           ("device_array", counted_to_device)):
            if hasattr(mod, name):
                patch(mod, name, wrap(getattr(mod, name)))
    cuda = backend.cuda()
    orig_sync = cuda.synchronize

    def synchronize():
        c.synchronize += 1
        return orig_sync()
    patch(cuda, "synchronize", synchronize)
    try:
        yield c
    finally:
        for obj, name, old in reversed(saved):
            setattr(obj, name, old)


def subgraph(g, n_keep: int):
    """The graph induced by its first ``n_keep`` vertices in BFS order from vertex 0 (connected)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order

    from rapids_balance.graph import build_graph

    src, dst = np.asarray(g.edge_src), np.asarray(g.edge_dst)
    a = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(g.n, g.n))
    order = breadth_first_order(a + a.T, 0, directed=False, return_predecessors=False)[:n_keep]
    keep = np.zeros(g.n, bool)
    keep[order] = True
    e = keep[src] & keep[dst]
    new = np.full(g.n, -1, np.int64)
    new[np.sort(order)] = np.arange(order.size)
    return build_graph(new[src[e]], new[dst[e]], sign=np.asarray(g.sign)[e])


def workloads(g, trees: int, k: int):
    """(name, unit name, run) of each workload; ``run()`` returns its units, or the name of the
    kernel launched once per unit."""
    import rapids_balance as rb
    from rapids_balance.balancing._trees import bfs_trees
    from rapids_balance.balancing._roots import tree_roots
    from rapids_balance.clustering._gpu import GPUState
    from rapids_balance.clustering._objective import slot_weights
    from rapids_balance.clustering._state import Level

    lengths = np.random.default_rng(0).integers(1, 11, g.m).astype(np.float64)

    def balance():
        rb.balance(g, trees, seed=0, backend="gpu", progress=False)
        return trees

    def frustration():
        rb.frustration(g, trees, seed=0, refine=False, backend="gpu", progress=False)
        return trees

    def frustration_kruskal():
        rb.frustration(g, trees, sampler="kruskal", seed=0, refine=False, backend="gpu", progress=False)
        return trees

    def betweenness():
        rb.node_and_edge_betweenness(g, k=min(k, g.n), weight=lengths, seed=0, backend="gpu", progress=False)
        return min(k, g.n)

    def betweenness_split():
        # as on a graph too large for a block per source: 4 blocks a source (._gpu_split)
        from rapids_balance.centrality import _gpu_fold

        chosen = _gpu_fold.blocks_per_source
        _gpu_fold.blocks_per_source = lambda *a, **kw: 4
        try:
            return betweenness()
        finally:
            _gpu_fold.blocks_per_source = chosen

    import importlib.util

    # versions with the split kernels
    split = ([("betweenness-split", "source", betweenness_split)]
             if importlib.util.find_spec("rapids_balance.centrality._gpu_fold") else [])

    roots, seeds = tree_roots(g, np.arange(trees), seed=0)

    def bfs():
        bfs_trees(g, roots, seeds, backend="gpu")
        return "_k_bfs_groups"  # units: batches, one launch each

    level = Level(np.asarray(g.indptr), np.asarray(g.indices), slot_weights(g))
    start = np.arange(g.n, dtype=np.int32)

    def vnd_moves():
        return GPUState(level, start, 0).vnd_best()[0]

    def vnd_rounds():
        GPUState(level, start, 0).parallel()
        return "k_select"  # units: rounds, one selection launch each

    return [("balance", "tree", balance), ("frustration", "tree", frustration),
            ("frustration-kruskal", "tree", frustration_kruskal),
            ("betweenness", "source", betweenness), *split, ("bfs", "batch", bfs),
            ("vnd-best", "move", vnd_moves), ("vnd-parallel", "round", vnd_rounds)]


def _flag_reads(backend) -> tuple[bool, dict]:
    """(synchronisation per CuPy argument?, reads of device flags per launch made outside to_host).

    With ``backend.host_read`` (this version) every read the host branches on goes through
    ``to_host``, where it is counted: nothing to add.  With ``backend.Kernel`` alone launches
    take unsynchronised views and the balancing flags go through ``to_host``; the BFS's reads
    do not.  Without it, numba-cuda synchronised per CuPy argument and balancing read the
    flags of ``_k_jump`` and ``_k_cc_hook`` directly.
    """
    bfs = {"_k_bfs_groups": BFS_READS_PER_BATCH, "_k_settle": BFS_READS_PER_LEVEL}
    if hasattr(backend, "host_read"):
        return False, {}
    if hasattr(backend, "Kernel"):
        return False, bfs
    return True, {**bfs, "_k_jump": 1, "_k_cc_hook": 1}


def occupancy() -> list[dict]:
    """Betweenness sources per launch and resident blocks per SM at 10**8 edges (see the header)."""
    from rapids_balance.centrality import _gpu as gmod, betweenness as bmod

    rows = []
    for n, m in OCCUPANCY_GRAPHS:
        for what, m_acc in (("node+edge", m), ("node", 0)):
            batches = bmod._batches(np.arange(4096 * 4, dtype=np.int64), n, 2 * m, m_acc, "gpu",
                                    bmod._CHUNK["gpu"])
            sources = int(batches[0].size) // bmod._CHUNK["gpu"]
            each = 1
            if hasattr(gmod, "resident_blocks_per_sm"):
                threads, regs = gmod.BLOCK_THREADS, gmod.KERNEL_REGISTERS
                if hasattr(gmod, "blocks_per_source"):  # versions that split a source over blocks
                    each = gmod.blocks_per_source(n, 2 * m, sources, SM_COUNT)
                    regs = gmod.SPLIT_KERNEL_REGISTERS if each > 1 else regs
                    resident = gmod.resident_blocks_per_sm(sources, SM_COUNT, threads, regs,
                                                           blocks_each=each)
                else:
                    resident = gmod.resident_blocks_per_sm(sources, SM_COUNT)
            else:
                threads, regs = OLD_BC_THREADS, OLD_BC_REGISTERS
                resident = min(2048 // threads, 65536 // (threads * regs), sources / SM_COUNT)
            rows.append({"vertices": n, "edges": m, "scores": what, "sources_per_launch": sources,
                         "blocks_per_source": each, "blocks_per_launch": sources * each,
                         "threads_per_block": threads, "registers_per_thread": regs,
                         "resident_blocks_per_sm": round(resident, 2)})
    return rows


# ---------------------------------------------------------------------------
# occupancy of every GPU workload: each launch read against the reference H100
# ---------------------------------------------------------------------------

#: (name, vertices, edges, trees or sources, triangles) of the two sizes the model reads every
#: launch at: Slashdot's largest component (n, m and its 579,565 triangles as
#: the measures benchmark counted them on 2026-11-25; that run is in the git history) with
#: T = 1000 trees, and 10**8 edges on 10**7 vertices with T = 64 (its triangles taken as its
#: edges, Slashdot's ratio being 1.16: the count is the graph's, not the library's)
OCCUPANCY_SIZES = (("slashdot", 82_140, 500_481, 1000, 579_565),
                   ("1e8-edges", 10**7, 10**8, 64, 10**8))
#: device memory the batch sizing is read at: the reference H100's (centrality._gpu)
REFERENCE_MEMORY = 80 * 2**30
#: null-model samples a batch (null_models._significance.DEFAULT_BATCH at the time of writing is
#: read from the module; this is only the fallback for versions without it)
NULL_BATCH = 16


def kernel_key(k) -> str:
    """A kernel's name as ``tools/check_gpu_compile.py`` prints it."""
    fn = getattr(k, "py_func", k)
    return f"{fn.__module__}:{fn.__qualname__}".replace("rapids_balance.", "").replace("._gpu:", ".")


def load_registers(path) -> dict:
    """{kernel: registers a thread} from ``tools/check_gpu_compile.py --json``: the most over
    the kernel's signatures (the launch's own signature is one of them)."""
    regs: dict = {}
    for row in json.loads(Path(path).read_text()):
        if row.get("ok") and row.get("regs") is not None:
            regs[row["kernel"]] = max(regs.get(row["kernel"], 0), int(row["regs"]))
    return regs


def _launch(workload, kernel, per, blocks, threads, note=""):
    return {"workload": workload, "kernel": kernel_key(kernel), "per": per, "blocks": int(blocks),
            "threads": int(threads), "note": note}


def launch_plan(n: int, m: int, trees: int, triangles: int, *, gpu_threads: bool = True) -> list[dict]:
    """Every kernel launch of each GPU workload at a graph of ``n`` vertices and ``m`` edges,
    ``trees`` trees (and betweenness sources), ``triangles`` triangles: one row per kernel and
    launch shape, with what it is launched per (batch, level, round, search).

    The blocks and threads are those the GPU modules compute (their ``launch_config`` calls,
    block constants and the batch sizing of the engines at the reference device's memory);
    ``gpu_threads=False`` gives the block sizes the modules use under the simulator (which
    shrinks reduction blocks), for the test that compares the plan with recorded launches.
    """
    import importlib.util
    from types import SimpleNamespace

    from rapids_balance.backend import launch_config
    from rapids_balance.balancing import _engine, _gpu as bal
    from rapids_balance.centrality import _gpu as bc, _gpu_split, betweenness as bmod
    from rapids_balance.clustering import _gpu as cl
    from rapids_balance.frustration_index import _gpu as fr
    from rapids_balance.frustration_index._frustration import DEFAULT_BATCH
    from rapids_balance.frustration_index._shared import n_words
    from rapids_balance.measures import _triangle_gpu as tg
    from rapids_balance.null_models import _gpu as nm

    try:
        from rapids_balance.null_models._significance import DEFAULT_BATCH as null_batch
    except ImportError:
        null_batch = NULL_BATCH
    rows = []
    g = SimpleNamespace(n=n, m=m)
    from rapids_balance import backend as be
    from rapids_balance.frustration_index import _frustration as fmod

    saved = _engine._gpu_free_memory, be.sm_count, getattr(be, "gpu_free_memory", None)
    _engine._gpu_free_memory = lambda: REFERENCE_MEMORY
    be.sm_count = lambda: SM_COUNT
    be.gpu_free_memory = lambda: REFERENCE_MEMORY
    try:
        batch = {meth: _engine.batch_size_for(g, _engine.BalanceParams(trees, method=meth, backend="gpu"))
                 for meth in ("path-sign", "cycle")}
        # frustration: the batches the device samples at once (versions before: one)
        at_once = (fmod._device_batches(g, fmod.FrustrationParams(trees, backend="gpu"))
                   if hasattr(fmod, "_device_batches") else 1)
    finally:
        _engine._gpu_free_memory, be.sm_count, be.gpu_free_memory = saved
        if saved[2] is None:
            del be.gpu_free_memory
    bfs_threads = 256 if gpu_threads else bal.bfs_threads()

    def bfs(workload, B):
        split = importlib.util.find_spec("rapids_balance.balancing._gpu_split")
        k = 1
        if split:  # versions that split a tree over blocks when the batch is small
            from rapids_balance.balancing import _gpu_split as bsplit

            k = bsplit.blocks_per_tree(B, n, SM_COUNT, bfs_threads)
        if k > 1:
            for kern in (bsplit._k_expand, bsplit._k_pull):
                rows.append(_launch(workload, kern, "level", B * k, bfs_threads,
                                    f"{k} blocks a tree; batch of {B} trees, two launches a level"))
            return
        group = bal.trees_per_block(B, SM_COUNT) if hasattr(bal, "trees_per_block") else bal.GROUP
        rows.append(_launch(workload, bal._k_bfs_groups, "batch", -(-B // group), bfs_threads,
                            f"{group} trees a block; batch of {B} trees"))

    # balance: path-sign (default), cycle, agreeable
    for workload, meth in (("balance", "path-sign"), ("balance-cycle", "cycle"),
                           ("balance-agreeable", "path-sign")):
        B = batch[meth]
        bfs(workload, B)
        if meth == "cycle":
            depth = max(1, int(round(math.log(max(n, 2)) / math.log(max(2 * m / n, 2)))) + 1)
            k = -(-B * n // depth)
            rows.append(_launch(workload, bal._k_sizes_up, "level", *launch_config(k),
                                f"mean level of {B} trees x {n} vertices over ~{depth} levels"))
            rows.append(_launch(workload, bal._k_labels_down, "level", *launch_config(k)))
            rows.append(_launch(workload, bal._k_cycles, "batch", *launch_config(B * n * bal.WARP, 128)))
        if workload == "balance-agreeable":
            rows.append(_launch(workload, bal._k_cc_hook, "round", *launch_config(B * m)))
            rows.append(_launch(workload, bal._k_cc_jump, "round", *launch_config(B * n)))
            rows.append(_launch(workload, bal._k_cc_compress, "batch", *launch_config(B * n)))
        if hasattr(bal, "COUNTER_THREADS"):  # versions with tree lanes
            rows.append(_launch(workload, bal._k_edge_counters, "batch",
                                *launch_config(m * bal.WARP, bal.COUNTER_THREADS),
                                "warp per edge, lanes over the batch's trees"))
            rows.append(_launch(workload, bal._k_vertex_counters, "batch",
                                *launch_config(n * bal.WARP, bal.COUNTER_THREADS),
                                "warp per vertex, lanes over the batch's trees"))
        else:
            rows.append(_launch(workload, bal._k_edge_counters, "batch", *launch_config(m),
                                "thread per edge, looping over the batch's trees"))
            rows.append(_launch(workload, bal._k_vertex_counters, "batch", *launch_config(n)))

    # frustration: trees in batches of DEFAULT_BATCH, `at_once` of them sampled together; BFS or
    # Kruskal trees; the refinement
    B = min(trees, DEFAULT_BATCH * at_once)
    W = n_words(n)

    def states(workload):
        rows.append(_launch(workload, fr._k_words, "batch", *launch_config(B * W)))
        rows.append(_launch(workload, fr._k_hash, "batch", *launch_config(B),
                            "thread per tree: W hash steps"))
        rows.append(_launch(workload, fr._k_switches, "batch", *launch_config(B * m)))

    bfs("frustration", B)
    states("frustration")
    bv_threads = fr.boruvka_threads(m) if hasattr(fr, "boruvka_threads") else min(
        fr._BV_THREADS, 32 * max(1, -(-m // 32)))
    rows.append(_launch("frustration-kruskal", fr._k_boruvka, "batch", B, bv_threads,
                        "block per tree, every Boruvka round in one launch"))
    if hasattr(fr, "_k_root_signs"):
        rows.append(_launch("frustration-kruskal", fr._k_root_signs, "batch", B,
                            fr.ROOT_THREADS if gpu_threads else fr.root_threads(),
                            "block per tree, level by level"))
    else:
        rows.append(_launch("frustration-kruskal", fr._k_root_trees, "batch", *launch_config(B, 64),
                            "thread per tree: O(n + m) serial work each"))
    states("frustration-kruskal")
    for kern in (fr._k_gains, fr._k_select, fr._k_apply):
        rows.append(_launch("frustration-refine", kern, "round", *launch_config(n)))

    # clustering VND at the finest level (n vertices)
    reduce = cl._REDUCE_THREADS if not gpu_threads else 256
    rows.append(_launch("vnd-best", cl.k_build, "search", *launch_config(n),
                        "the state's cluster tables, built once"))
    rows.append(_launch("vnd-best", cl.k_eval, "search", *launch_config(n)))
    rows.append(_launch("vnd-best", cl.k_vnd, "search", 1, reduce,
                        "one block runs every move: an O(n) block argmin a move"))
    for kern in (cl.k_select, cl.k_apply, cl.k_build, cl.k_eval):
        rows.append(_launch("vnd-parallel", kern, "round", *launch_config(n)))

    # triangles and the shuffle null model's batch
    rows.append(_launch("triangles", tg.k_count, "call", *launch_config(n, 32)))
    rows.append(_launch("triangles", tg.k_fill, "call", *launch_config(n, 32)))
    rows.append(_launch("triangles", tg.k_tally, "call", *launch_config(triangles, 64)))
    if hasattr(nm, "SHUFFLE_THREADS"):
        rows.append(_launch("null-models", nm._k_shuffle, "batch", null_batch, nm.SHUFFLE_THREADS,
                            f"block per sample: a warp copies m signs, a Fisher-Yates chain of m "
                            f"swaps in one lane; {null_batch} samples a batch"))
    else:
        rows.append(_launch("null-models", nm._k_shuffle, "batch", *launch_config(null_batch, 64),
                            f"thread per sample: a Fisher-Yates shuffle of m signs; {null_batch} a batch"))
    rows.append(_launch("null-models", tg.k_type_counts, "batch",
                        *launch_config(null_batch * triangles)))

    # betweenness: the sources of one launch as the library sizes them at the reference device
    sources = min(trees, len(bmod._batches(np.arange(trees, dtype=np.int64), n, 2 * m, m, "gpu", 1,
                                           distributed=True)[0]))
    each = bc.blocks_per_source(n, 2 * m, sources, SM_COUNT)
    vw = bc.virtual_warp_width(n, 2 * m)
    bc_threads = max(vw, bc.BLOCK_THREADS) if gpu_threads else bmod._gpu_threads(vw)
    if each == 1:
        rows.append(_launch("betweenness", bc._bc_kernel, "launch", sources, bc_threads,
                            f"block per source; {sources} sources a launch"))
    else:
        for kern in (_gpu_split._k_init, _gpu_split._k_relax, _gpu_split._k_bound,
                     _gpu_split._k_partition, _gpu_split._k_pull, _gpu_split._k_dependencies):
            rows.append(_launch("betweenness", kern, "step", sources * each, bc_threads,
                                f"{each} blocks a source; {sources} sources a launch"))
    rows.append(_launch("betweenness", bc._k_fold_nodes, "launch", *launch_config(n)))
    rows.append(_launch("betweenness", bc._k_fold_edges, "launch", *launch_config(m)))
    return rows


def occupancy_rows(registers: dict) -> list[dict]:
    """:func:`launch_plan` at each of :data:`OCCUPANCY_SIZES`, with each kernel's registers a
    thread at sm_90 and what follows on the reference H100: resident blocks per SM, SMs busy."""
    # this checkout's arithmetic, whichever library the plan reads (a --baseline run's has none)
    import importlib.util

    spec = importlib.util.spec_from_file_location("_occupancy_model", REPO / "rapids_balance" / "_occupancy.py")
    arith = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(arith)
    blocks_per_sm, occ = arith.blocks_per_sm, arith.occupancy

    out = []
    for size, n, m, trees, tri in OCCUPANCY_SIZES:
        for r in launch_plan(n, m, trees, tri):
            regs = registers.get(r["kernel"])
            row = {"workload": r["workload"], "kernel": r["kernel"], "size": size, "vertices": n,
                   "edges": m, "trees": trees, "per": r["per"], "blocks": r["blocks"],
                   "threads": r["threads"], "registers": regs}
            if regs is None:
                row.update(resident_per_sm=None, sms_busy=None, fills=None)
            else:
                o = occ(r["blocks"], r["threads"], regs, SM_COUNT)
                row.update(o, resident_limit=blocks_per_sm(r["threads"], regs),
                           fills=bool(o["resident_per_sm"] >= 4 or r["blocks"] >= 4 * SM_COUNT))
            row["note"] = r["note"]
            out.append(row)
    return out


# ---------------------------------------------------------------------------
# modelled times: each launch's device traffic at the reference H100's bandwidth
# ---------------------------------------------------------------------------

#: the time model's constants: DRAM bandwidth of the reference H100 (3 TB/s, as the counted
#: rows), one 32-byte sector for every random read or write (no credit for the L2 cache or
#: for neighbours sharing a sector), 5 us a launch, 15 us a host read, 25 GB/s host <-> device
TIME_MODEL = {"dram_tbs": 3.0, "sector_bytes": 32, "launch_us": 5.0, "sync_us": 15.0,
              "hd_gbs": 25.0}
#: sizes of the time model: those of the occupancy rows, and a 10**6-vertex graph of mean
#: degree 20 where clustering's level is set beside a balance tree
TIME_SIZES = OCCUPANCY_SIZES + (("1e6-vertices", 10**6, 10**7, 1000, 10**7),)


def _bfs_levels(n: int, m: int) -> int:
    """BFS depth of a random-like graph: log n / log(mean degree), plus one."""
    return max(1, int(round(math.log(max(n, 2)) / math.log(max(2 * m / max(n, 1), 2))))) + 1


def _split_reads(levels: int) -> int:
    """Host reads of the split BFS over ``levels`` levels (after 4, 8, ... 64 levels at a time)."""
    reads, done, chunk = 0, 0, 4
    while done <= levels:
        done += chunk
        reads += 1
        chunk = min(2 * chunk, 64)
    return reads


def _traffic(kernel: str, n: int, m: int, B: int, blocks: int) -> float | None:
    """Device bytes one launch of ``kernel`` moves for a batch of ``B`` trees (``blocks``
    blocks), every random access a whole sector (``TIME_MODEL``).  None: not modelled."""
    S = TIME_MODEL["sector_bytes"]
    slots = 2 * m
    name = kernel.rsplit(".", 1)[-1].rsplit(":", 1)[-1]
    if name == "_k_bfs_groups":
        # per block: the expansion's row reads with a random reached word per slot, the pull's
        # OR over the candidates' rows (a block of more than one tree); per tree: the argmax
        # rescan of each row for the tree's bit and four scattered writes (parent, edge,
        # depth, path sign) per vertex
        # (versions before the split BFS made the OR pass in a block of one tree too)
        single = importlib.util.find_spec("rapids_balance.balancing._gpu_split") is not None
        passes = 2 if B > blocks or not single else 1
        return blocks * (slots * passes * (4 + S) + 12 * n) + B * (slots * (4 + S) + 4 * S * n)
    if name == "_k_expand":  # each row once, a random depth per slot, a listing per vertex
        return B * (slots * (4 + S) + 2 * S * n) / _LEVELS[0]
    if name == "_k_pull":  # each candidate's row, a random depth per slot, five scattered accesses
        return B * (slots * (4 + S) + 5 * S * n) / _LEVELS[0]
    from rapids_balance.balancing import _gpu as bal

    lanes = hasattr(bal, "COUNTER_THREADS")  # versions with tree lanes
    if name == "_k_edge_counters":
        # per edge its ends and counters; per tree, with tree lanes (the (n, T) copies), both
        # ends' side and tree edge side by side with the other trees' (1 + 4 bytes each);
        # before, a thread per edge read the source end's in step with its neighbours (edges
        # are sorted by source) and the target end's at random; plus the copies' transposition
        if lanes:
            return m * (8 + 64) + B * m * 2 * 5 + B * n * 2 * 5
        return m * (8 + 64) + B * m * (5 + 2 * S)
    if name == "_k_vertex_counters":  # per tree a side per slot: side by side, or a random sector
        return n * 40 + B * (slots * (1 if lanes else S) + (1 if lanes else S) * n)
    if name == "_k_words":
        return B * (n + 8 * -(-n // 64))
    if name == "_k_hash":
        return B * 8 * -(-n // 64)
    if name == "_k_switches":  # per (tree, edge): the edge, two random path signs, its tree's sum
        return B * m * (9 + 2 * S) + B * 8
    if name == "k_vnd":  # a move: the block's argmin over every vertex's best move and gain
        return n * 12
    if name in ("k_select", "k_apply", "k_build", "k_eval"):
        # a vertex's row (neighbour, weight) with a random label or table entry per slot
        return slots * (4 + 8 + S) + n * S
    return None


_LEVELS = [1]  # the BFS depth of the size being modelled (per-level launches share the tree's work)


def _launch_ms(row: dict, bytes_: float) -> float:
    """One launch: its overhead, and its bytes at the bandwidth of the SMs it keeps busy."""
    share = min(1.0, (row.get("sms_busy") or 1) / SM_COUNT)
    return TIME_MODEL["launch_us"] * 1e-3 + bytes_ / (TIME_MODEL["dram_tbs"] * 1e12 * share) * 1e3


def time_rows(registers: dict) -> list[dict]:
    """Modelled device time per tree of balance and frustration (BFS trees, no refinement), and
    per round of clustering's parallel local search, at :data:`TIME_SIZES`, from the launch
    plan, each launch's traffic (:func:`_traffic`) and occupancy (``TIME_MODEL``)."""
    import re

    spec = importlib.util.spec_from_file_location("_occupancy_model", REPO / "rapids_balance" / "_occupancy.py")
    arith = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(arith)
    out = []
    for size, n, m, trees, tri in TIME_SIZES:
        plan = launch_plan(n, m, trees, tri)
        levels = _bfs_levels(n, m)
        _LEVELS[0] = levels
        for workload in ("balance", "frustration", "vnd-parallel", "vnd-best"):
            rows = [r for r in plan if r["workload"] == workload]
            if workload == "vnd-best":  # per move of the one-block search (its launch is one)
                rows = [{**r, "per": "move"} for r in rows if r["kernel"].endswith("k_vnd")]
            bfs = [r for r in rows if "batch of" in r["note"]]
            B = int(re.search(r"batch of (\d+)", bfs[0]["note"]).group(1)) if bfs else 1
            ms, reads, parts = 0.0, 0, {}
            for r in rows:
                regs = registers.get(r["kernel"])
                r = {**r, **(arith.occupancy(r["blocks"], r["threads"], regs, SM_COUNT)
                             if regs else {"sms_busy": min(SM_COUNT, r["blocks"])})}
                b = _traffic(r["kernel"], n, m, B, r["blocks"])
                if b is None:
                    parts[r["kernel"]] = None
                    continue
                times = levels if r["per"] == "level" else 1
                t = times * _launch_ms(r, b)
                parts[r["kernel"]] = round(t, 5)
                ms += t
            split = any(r["per"] == "level" for r in bfs)
            hd = 0.0
            if workload == "balance":  # the BFS's unreached check (split: its level reads),
                # the majority's and ties' reads, the counters to the host (a graph on the host)
                reads = 1 + (_split_reads(levels) if split else 0) + 2
                hd = 5 * m * 8 + 2 * n * 8
            elif workload == "frustration":
                reads = 1 + (_split_reads(levels) if split else 0)
                hd = B * (-(-n // 64) + 2) * 8  # each tree's state words to the host
            elif workload == "vnd-parallel":
                reads = 5  # a round's counts and gain read, and the cluster reset's compaction
            else:
                reads = 0
                ms -= TIME_MODEL["launch_us"] * 1e-3  # one launch runs every move
            ms += reads * TIME_MODEL["sync_us"] * 1e-3 + hd / (TIME_MODEL["hd_gbs"] * 1e9) * 1e3
            unit = {"vnd-parallel": "round", "vnd-best": "move"}.get(workload, "tree")
            per = B if unit == "tree" else 1
            out.append({"size": size, "vertices": n, "edges": m, "workload": workload, "unit": unit,
                        "batch": B if unit == "tree" else None, "bfs_levels": levels,
                        "host_reads": reads, "ms_per_batch" if unit == "tree" else "ms": round(ms, 5),
                        f"ms_per_{unit}": round(ms / per, 5), "launch_ms": parts})
    return out


def measure(args) -> dict:
    import rapids_balance as rb
    from rapids_balance import backend
    from rapids_balance.backend import gpu_status, simulator_enabled

    if args.occupancy_only:  # counts from the launch plan alone: nothing runs
        return {"library": f"rapids_balance {getattr(rb, '__version__', '')}".strip(),
                "reference_device": {"sm_count": SM_COUNT, "memory_bytes": REFERENCE_MEMORY},
                "registers_from": Path(args.registers).name,
                "occupancy": occupancy_rows(load_registers(args.registers)),
                "time_model": {"constants": TIME_MODEL, "rows": time_rows(load_registers(args.registers))},
                "rows": [],
                "occupancy_1e8_edges": occupancy()}
    if not gpu_status().usable:
        raise SystemExit(f"no usable GPU: {gpu_status().reason}")
    consts = {"launch_us": args.launch_us, "sync_us": args.sync_us, "hd_gbs": args.hd_gbs,
              "device_tbs": args.device_tbs}
    per_argument, flag_reads = _flag_reads(backend)
    g0 = rb.load_example(args.example) if args.example else rb.read_edgelist(args.graph)
    report = {"graph": args.example or Path(args.graph).name, "library": f"rapids_balance {getattr(rb, '__version__', '')}".strip(),  # no machine paths
              "simulated": simulator_enabled(), "device": gpu_status().device, "constants": consts,
              "trees": args.trees, "k": args.k, "sync_per_cupy_argument": per_argument,
              "flag_reads_per_launch": flag_reads, "occupancy_1e8_edges": occupancy(), "rows": []}
    if args.registers:
        report["registers_from"] = Path(args.registers).name
        report["occupancy"] = occupancy_rows(load_registers(args.registers))
    for n_keep in args.vertices or [g0.n]:
        g = g0 if n_keep >= g0.n else subgraph(g0, n_keep)
        for name, unit, run in workloads(g, args.trees, args.k):
            if args.only and name not in args.only:
                continue
            run()  # compile and warm up outside the count
            c = Counts()
            counted = getattr(backend, "launch_counts", {})
            reads0 = counted.get("host_reads")
            t0 = time.perf_counter()
            with counting(c):
                units = run()
            wall = time.perf_counter() - t0
            if isinstance(units, str):  # counted by the launches of one kernel per unit
                units = max(c.launches[units], 1)
            row = {"workload": name, "unit": unit, "vertices": int(g.n), "edges": int(g.m),
                   "wall_s": round(wall, 3), **c.row(units, consts, per_argument, flag_reads)}
            if reads0 is not None:  # the library's own count of its decision reads (backend.host_read)
                row["host_reads"] = round((counted["host_reads"] - reads0) / units, 4)
            report["rows"].append(row)
    return report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group()
    src.add_argument("--graph", help="edge-list file")
    src.add_argument("--example", help="a bundled example graph")
    p.add_argument("--vertices", type=int, nargs="*", default=[],
                   help="induced subgraphs of this many vertices (none: the whole graph)")
    p.add_argument("--trees", type=int, default=1000)
    p.add_argument("--k", type=int, default=64, help="betweenness sources")
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--launch-us", type=float, default=5.0)
    p.add_argument("--sync-us", type=float, default=15.0)
    p.add_argument("--hd-gbs", type=float, default=25.0)
    p.add_argument("--device-tbs", type=float, default=3.0)
    p.add_argument("--baseline", help="another checkout of this library (the version before): "
                                      "counted in a subprocess with the same arguments, shown beside")
    p.add_argument("--repo", help=argparse.SUPPRESS)  # the library to import (the baseline's run)
    p.add_argument("--json", help=argparse.SUPPRESS)  # where the baseline's run writes its report
    p.add_argument("--registers", help="JSON of tools/check_gpu_compile.py --json: registers a thread "
                                        "of every kernel, for the occupancy rows")
    p.add_argument("--occupancy-only", action="store_true",
                   help="only the occupancy rows (no workload run: no device or simulator time)")
    p.add_argument("--out", default=None, help="folder of gpu_model.json (default bench-results/)")
    args = p.parse_args(argv)
    if not (args.graph or args.example or args.occupancy_only):
        p.error("one of --graph, --example or --occupancy-only is required")
    if args.occupancy_only and not args.registers:
        p.error("--occupancy-only needs --registers (tools/check_gpu_compile.py --json)")
    if args.repo:
        sys.path.insert(0, str(Path(args.repo).resolve()))
        Path(args.json).write_text(json.dumps(measure(args)))
        return 0
    before = None
    if args.baseline:
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "before.json"
            cmd = [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:]),
                   "--repo", args.baseline, "--json", str(out)]
            subprocess.run(cmd, check=True, cwd=tmp)
            before = json.loads(out.read_text())
    report = measure(args)
    if before is not None and args.occupancy_only:
        report["before"] = {"library": before["library"]}
        olds = {(o["size"], o["workload"], o["kernel"]): o for o in before["occupancy"]}
        for row in report["occupancy"]:
            old = olds.get((row["size"], row["workload"], row["kernel"]))
            if old is not None:
                row["before"] = {k: old[k] for k in ("blocks", "threads", "resident_per_sm", "sms_busy")}
        old_times = {(r["size"], r["workload"]): r for r in before.get("time_model", {}).get("rows", [])}
        for row in report["time_model"]["rows"]:
            old = old_times.get((row["size"], row["workload"]))
            if old is not None:
                unit = f"ms_per_{row['unit']}"
                row["before"] = {k: old[k] for k in ("batch", "host_reads", unit, "launch_ms")}
        report["before"]["occupancy_replaced"] = [
            {k: o[k] for k in ("size", "workload", "kernel", "blocks", "threads", "registers",
                               "resident_per_sm", "sms_busy")}
            for key, o in olds.items() if key not in {(r["size"], r["workload"], r["kernel"])
                                                       for r in report["occupancy"]}]
    elif before is not None:
        report["before"] = {"library": before["library"], "sync_per_cupy_argument": before["sync_per_cupy_argument"],
                            "flag_reads_per_launch": before["flag_reads_per_launch"],
                            "occupancy_1e8_edges": before["occupancy_1e8_edges"]}
        olds = {(old["workload"], old["vertices"]): old for old in before["rows"]}
        for row in report["rows"]:
            old = olds.get((row["workload"], row["vertices"]))
            if old is None:  # a workload the version before does not have
                continue
            row["before"] = {k: old[k] for k in ("launches", "host_syncs", "hd_bytes", "device_bytes",
                                                 "modelled_ms", "units", "launches_by_kernel")}
    print(f"{'workload':19s} {'n':>6s} {'m':>7s} {'unit':>6s} {'units':>6s} {'launch/u':>9s} {'sync/u':>8s} "
          f"{'HD B/u':>9s} {'dev B/u':>10s} {'model ms/u':>10s}" + ("  | before: launch/u sync/u model ms/u"
                                                                  if before else ""))
    for r in report["rows"]:
        line = (f"{r['workload']:19s} {r['vertices']:6d} {r['edges']:7d} {r['unit']:>6s} {r['units']:6d} "
                f"{r['launches']:9.3f} {r['host_syncs']:8.3f} {r['hd_bytes']:9.0f} {r['device_bytes']:10.0f} "
                f"{r['modelled_ms']:10.4f}")
        if "before" in r:
            b = r["before"]
            line += f"  | {b['launches']:9.3f} {b['host_syncs']:7.3f} {b['modelled_ms']:10.4f}"
        print(line)
    print(f"\nbetweenness at 10**8 edges, reference H100 ({SM_COUNT} SMs): sources x blocks each, blocks per launch, "
          "resident per SM"
          + ("  | before" if before else ""))
    olds = before["occupancy_1e8_edges"] if before else [None] * len(report["occupancy_1e8_edges"])
    for o, b in zip(report["occupancy_1e8_edges"], olds):
        line = (f"  n={o['vertices']:>9d} {o['scores']:>9s} {o.get('sources_per_launch', o['blocks_per_launch']):6d}"
                f" x {o.get('blocks_per_source', 1):3d} {o['blocks_per_launch']:6d} {o['resident_blocks_per_sm']:6.2f}")
        if b:
            line += f"  | {b['blocks_per_launch']:6d} {b['resident_blocks_per_sm']:6.2f}"
        print(line)
    if report.get("occupancy"):
        print(f"\noccupancy on the reference H100 ({SM_COUNT} SMs): blocks x threads, registers, "
              "resident blocks per SM, SMs busy")
        for o in report["occupancy"]:
            print(f"  {o['size']:9s} {o['workload']:19s} {o['kernel']:36s} {o['per']:>6s} "
                  f"{o['blocks']:9d} x {o['threads']:4d} {o['registers']!s:>4} "
                  f"{o['resident_per_sm']!s:>7} {o['sms_busy']!s:>4}{'' if o['fills'] else '  idle SMs' if o['fills'] is False else '  (no registers)'}"
                  + (f"  | before {o['before']['blocks']} x {o['before']['threads']}, "
                     f"{o['before']['resident_per_sm']} {o['before']['sms_busy']}" if "before" in o else ""))
    if report.get("time_model"):
        print("\nmodelled device time on the reference H100 (traffic at 3 TB/s over the SMs busy, "
              "launches, host reads)")
        for t in report["time_model"]["rows"]:
            unit = f"ms_per_{t['unit']}"
            print(f"  {t['size']:13s} {t['workload']:13s} {unit:13s} {t[unit]:10.5f}"
                  + (f"  | before {t['before'][unit]:10.5f}" if "before" in t else ""))
    out = Path(args.out) if args.out else REPO / "bench-results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_model.json").write_text(json.dumps(report, indent=1))
    print(f"wrote {out / 'gpu_model.json'}")
    return 0


if __name__ == "__main__":
    if os.environ.get("RAPIDS_BALANCE_CUDASIM"):
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    sys.exit(main())
