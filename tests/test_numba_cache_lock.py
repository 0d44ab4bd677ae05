"""Processes saving kernels to one numba cache at once leave an index whose every entry loads
its own signature's machine code (:func:`rapids_balance._numba_cache.lock_cache_writes`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# one cached function; each process compiles its own signatures of it, the saves racing
_MODULE = textwrap.dedent("""
    import numba

    @numba.njit(cache=True)
    def scale(x, k):
        return x * k + 1
""")

_WRITER = textwrap.dedent("""
    import sys, time
    import numpy as np
    from numba.core import caching
    from rapids_balance._numba_cache import lock_cache_writes
    assert lock_cache_writes()
    # a slow disk: a second between reading the index and writing it back, where numba's own
    # save lets another process's save slip in (both take data file 1, one entry is lost or
    # names the other's code)
    read = caching.IndexDataCacheFile._load_index
    def slow_read(self):
        out = read(self)
        time.sleep(1.0)
        return out
    caching.IndexDataCacheFile._load_index = slow_read
    import racemod
    start = float(sys.argv[2])
    while time.time() < start:  # both processes start compiling at the same moment
        pass
    for dtype in sys.argv[1].split(","):
        racemod.scale(np.ones(3, dtype), 2)
""")

_READER = textwrap.dedent("""
    import json
    import numpy as np
    import racemod
    out = {}
    for dtype in ("int8", "int16", "float32", "float64"):
        r = racemod.scale(np.full(3, 5, dtype), 3)
        out[dtype] = [str(r.dtype), int(r[0])]
    print(json.dumps({"results": out, "hits": sum(racemod.scale.stats.cache_hits.values()),
                      "misses": sum(racemod.scale.stats.cache_misses.values())}))
""")


def test_concurrent_saves_keep_each_signature_with_its_own_code(tmp_path):
    (tmp_path / "racemod.py").write_text(_MODULE)
    for rnd in range(2):
        cache = tmp_path / f"cache{rnd}"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
                   PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
        import time
        start = str(time.time() + 4.0)
        writers = [subprocess.Popen([sys.executable, "-c", _WRITER, dtypes, start], env=env)
                   for dtypes in ("int8,float32", "int16,float64")]
        assert [w.wait(timeout=300) for w in writers] == [0, 0]
        out = subprocess.run([sys.executable, "-c", _READER], env=env, capture_output=True,
                             text=True, timeout=300, check=True).stdout
        got = json.loads(out.strip().splitlines()[-1])
        # every signature comes from the cache, and computes with its own types
        assert got["hits"] == 4 and got["misses"] == 0
        assert got["results"] == {"int8": ["int64", 16], "int16": ["int64", 16],
                                  "float32": ["float32", 16], "float64": ["float64", 16]}
