"""A fresh install's first commands: wall time, and where numba's compile time goes.

Each command of the CLI (and ``warmup``) runs in a fresh process with an
empty numba cache (``NUMBA_CACHE_DIR`` a new empty folder).  A listener on
numba's own ``numba:compile`` events records every function and type
signature compiled, with its inclusive seconds (a kernel's compile event
encloses those of the kernels it calls that were not compiled yet) and its
self seconds (inclusive minus the nested events).  Rows: per command, the
wall time of the whole process, the seconds inside outermost compile events
and the number of signatures compiled (all in the command's own process: a
search's side process, which compiles a part of its kernels on a cold cache,
is counted apart, as ``side_wait_s``, the wall seconds the command waited
for it, and ``side_cpu_s``, the CPU seconds of the command's child
processes; ``process_cpu_s`` is the command's own); with ``--prev PATH`` the same command
is run with the code of another checkout (through ``PYTHONPATH``) right
after, as the peer.  A second table lists the costliest function signatures
per command (self seconds), written beside the JSON as ``compile_table.txt``.

The machine may be shared: each row carries the load average at its start,
and only figures from the same run compare.

Run: ``python benchmarks/bench_first_call.py [--prev PATH] [--only balance,cluster]
[--out benchmarks/results/DATE-cpu-2core-first-call] [--repeat 1] [--warm]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _harness import REPO, Report, load_average

COMMANDS = {
    "balance": ["balance", "--example", "bitcoin-otc", "--trees", "1000", "--out", "{out}", "--quiet"],
    "cluster": ["cluster", "--example", "bitcoin-otc", "--time-limit", "5", "--out", "{out}/c.csv",
                "--quiet"],
    "frustration": ["frustration", "--example", "bitcoin-otc", "--time-limit", "5", "--out",
                    "{out}/f.csv", "--quiet"],
    "measures": ["measures", "--example", "bitcoin-otc", "--out", "{out}", "--quiet"],
    "betweenness": ["betweenness", "--example", "bitcoin-otc", "--out", "{out}/b.csv", "--quiet"],
    "warmup": ["warmup", "--quiet"],
}


def _name(dispatcher) -> str:
    fn = getattr(dispatcher, "py_func", None)
    if fn is None:  # e.g. a with-block lifted to object mode
        return type(dispatcher).__name__
    return f"{fn.__module__}.{fn.__qualname__}"


def _child(argv: list[str], events_path: str) -> int:
    """Run one CLI command in this process, recording numba's compile events."""
    from numba.core import event

    events: list[dict] = []
    unmatched: list[str] = []
    local = threading.local()  # kernels may compile on several threads: one stack each

    def stack() -> list[dict]:
        if not hasattr(local, "stack"):
            local.stack = []
        return local.stack

    class Listener(event.Listener):
        def on_start(self, ev):
            d = ev.data["dispatcher"]
            stack().append({"function": _name(d),
                          "signature": "(" + ", ".join(str(a) for a in ev.data["args"]) + ")",
                          "parallel": bool(getattr(d, "targetoptions", {}).get("parallel")),
                          "start": time.perf_counter(), "cpu_start": time.process_time(),
                          "nested_s": 0.0, "nested_cpu_s": 0.0, "depth": len(stack()),
                            "thread": threading.current_thread().name})

        def on_end(self, ev):
            if not stack():  # an end without a start seen on this thread: counted apart
                unmatched.append(_name(ev.data["dispatcher"]))
                return
            rec = stack().pop()
            rec["failed"] = ev.is_failed
            rec["inclusive_s"] = time.perf_counter() - rec.pop("start")
            rec["inclusive_cpu_s"] = time.process_time() - rec.pop("cpu_start")
            rec["self_s"] = rec["inclusive_s"] - rec.pop("nested_s")
            rec["self_cpu_s"] = rec["inclusive_cpu_s"] - rec.pop("nested_cpu_s")
            if stack():
                stack()[-1]["nested_s"] += rec["inclusive_s"]
                stack()[-1]["nested_cpu_s"] += rec["inclusive_cpu_s"]
            events.append(rec)

    event.register("numba:compile", Listener())
    side_wait = event.TimingListener()  # waits for a side process compiling (rapids_balance._ready)
    event.register("rapids_balance:side_compile", side_wait)
    # the code under test is the one on PYTHONPATH (this checkout, or --prev's): not the checkout
    # that _harness puts first on the path
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != REPO]
    sys.path[:0] = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    from rapids_balance.cli import main

    import rapids_balance
    print(f"code: {Path(rapids_balance.__file__).resolve().parent.parent}", file=sys.stderr)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        rc = main(argv)
    finally:
        times = os.times()  # the side processes are this process's children, waited for
        Path(events_path).write_text(json.dumps({"events": events, "main_s": time.perf_counter() - start,
                                                 "main_cpu_s": time.process_time() - cpu,
                                                 "side_wait_s": side_wait.duration if side_wait.done else 0.0,
                                                 "children_cpu_s": times.children_user + times.children_system,
                                                 "unmatched": unmatched}))
    return rc


def run_command(name: str, code: Path, cache_dir: str) -> dict:
    """One command in a fresh process on ``cache_dir``: wall seconds, its compile events, output."""
    out = tempfile.mkdtemp(prefix=f"first-call-{name}-")
    events_path = os.path.join(out, "events.json")
    argv = [a.format(out=os.path.join(out, "res")) for a in COMMANDS[name]]
    if name not in ("balance", "measures"):  # these create their --out folder
        os.mkdir(os.path.join(out, "res"))
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(code))
    load = load_average()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", events_path, "--", *argv], env=env,
                          capture_output=True, text=True, cwd=out)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    doc = json.loads(Path(events_path).read_text())
    shutil.rmtree(out, ignore_errors=True)
    events = doc["events"]
    return {"wall_s": wall, "main_s": doc["main_s"], "load_avg": load, "events": events,
            "compile_s": sum(e["inclusive_s"] for e in events if e["depth"] == 0),
            "compile_cpu_s": sum(e["inclusive_cpu_s"] for e in events if e["depth"] == 0),
            "main_cpu_s": doc["main_cpu_s"], "side_wait_s": doc["side_wait_s"],
            "side_cpu_s": doc["children_cpu_s"],
            "signatures": len(events), "parallel_signatures": sum(e["parallel"] for e in events),
            "stdout": proc.stdout.strip().splitlines()[-3:],
            "code": next((ln[6:] for ln in proc.stderr.splitlines() if ln.startswith("code: ")), None)}


def cold_and_warm(name: str, code: Path, warm: bool) -> tuple[dict, dict | None]:
    """The command on an empty cache, then (``warm``) again on the cache that run filled."""
    cache_dir = tempfile.mkdtemp(prefix="numba-cache-")
    try:
        cold = run_command(name, code, cache_dir)
        return cold, run_command(name, code, cache_dir) if warm else None
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)


def top_table(name: str, events: list[dict], n: int = 25) -> str:
    """The costliest signatures by self CPU seconds (wall seconds beside them)."""
    rows = sorted(events, key=lambda e: -e["self_cpu_s"])[:n]
    width = max((len(e["function"]) for e in rows), default=10)
    lines = [f"## {name}: {len(events)} signatures, {sum(e['self_cpu_s'] for e in events):.1f} s CPU "
             f"({sum(e['self_s'] for e in events):.1f} s wall) compiling; top {len(rows)} by self CPU s",
             f"{'function'.ljust(width)} | self_cpu_s | self_s | incl_s | par | signature"]
    for e in rows:
        lines.append(f"{e['function'].ljust(width)} | {e['self_cpu_s']:10.2f} | {e['self_s']:6.2f} | "
                     f"{e['inclusive_s']:6.2f} | {'yes' if e['parallel'] else '   '} | {e['signature'][:90]}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prev", help="a checkout of the earlier code, run after each command as the peer")
    ap.add_argument("--only", help="comma-separated commands (default: all)")
    ap.add_argument("--out", default=None, help="results folder")
    ap.add_argument("--repeat", type=int, default=1, help="runs per command and code")
    ap.add_argument("--warm", action="store_true",
                    help="also run each command again on the cache its first run filled")
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(COMMANDS)
    rep = Report("first_call", __doc__.split("\n")[0],
                 params={"commands": {n: " ".join(COMMANDS[n]) for n in names}, "prev": args.prev,
                         "repeat": args.repeat})
    tables = []
    for name in names:
        label = f"rapids-balance {' '.join(COMMANDS[name][:1 + (name != 'warmup') * 2])}"
        for r in range(args.repeat):
            ours, ours_warm = cold_and_warm(name, REPO, args.warm and name != "warmup")
            peer, peer_warm = cold_and_warm(name, Path(args.prev).resolve(), args.warm and name != "warmup") \
                if args.prev else (None, None)
            for figure, a, b in (("wall s, empty cache", ours, peer), ("wall s, warm cache", ours_warm, peer_warm)):
                if a is None:
                    continue
                rep.add(input=label, figure=figure, value=round(a["wall_s"], 2), unit="s",
                        peer="previous code" if b else None, peer_value=round(b["wall_s"], 2) if b else None,
                        compile_s=round(a["compile_s"], 2), compile_cpu_s=round(a["compile_cpu_s"], 2),
                        process_cpu_s=round(a["main_cpu_s"], 2), side_wait_s=round(a["side_wait_s"], 2),
                        side_cpu_s=round(a["side_cpu_s"], 2), signatures=a["signatures"],
                        parallel_signatures=a["parallel_signatures"], load_avg=a["load_avg"],
                        peer_compile_s=round(b["compile_s"], 2) if b else None,
                        peer_compile_cpu_s=round(b["compile_cpu_s"], 2) if b else None,
                        peer_signatures=b["signatures"] if b else None,
                        peer_load_avg=b["load_avg"] if b else None,
                        peer_process_cpu_s=round(b["main_cpu_s"], 2) if b else None,
                        peer_side_wait_s=round(b["side_wait_s"], 2) if b else None,
                        peer_side_cpu_s=round(b["side_cpu_s"], 2) if b else None,
                        code=a["code"], peer_code=b["code"] if b else None, stdout=a["stdout"],
                        peer_stdout=b["stdout"] if b else None, events=a["events"],
                        peer_events=b["events"] if b else None)
            rep.add(input=label, figure="compile s (numba events), empty cache", value=round(ours["compile_s"], 2),
                    unit="s", peer="previous code" if peer else None,
                    peer_value=round(peer["compile_s"], 2) if peer else None,
                    signatures=ours["signatures"], peer_signatures=peer["signatures"] if peer else None)
            if r == 0:
                tables.append(top_table(name, ours["events"]))
                if peer:
                    tables.append(top_table(f"{name} (previous code)", peer["events"]))
    out = Path(args.out) if args.out else REPO / "benchmarks" / "results" / \
        f"{time.strftime('%Y-%m-%d', time.gmtime())}-cpu-2core-first-call"
    rep.finish(out)
    (out / "compile_table.txt").write_text("\n\n".join(tables) + "\n")
    print("\n\n".join(tables))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.exit(_child(sys.argv[4:], sys.argv[2]))
    main()
