"""
Balance a signed graph over many spanning trees
===============================================

Read off consensus attributes of vertices and edges.
The Gahuku-Gama highland tribes (Read 1954): 16 tribes, 58 alliances (+) and
enmities (-).  Each of 1000 BFS spanning trees gives a nearest balanced state
(ECL-SGB path signs); counting over the trees gives each tribe's *status*
(how often it sits in the larger Harary side) and each relation's share of
trees in which balancing flipped it.

Needs nothing beyond a plain install (``--gpu`` needs the ``gpu`` extra and a GPU).

Run: ``python examples/balance.py`` (add ``--gpu`` on a machine with a GPU).
"""

import os
import sys
import tempfile

import rapids_balance as rb
from rapids_balance.balancing import graphbplus_roots


def main() -> None:
    backend = "gpu" if "--gpu" in sys.argv else "auto"
    g = rb.load_example("highland")
    print(g, "| fundamental cycles:", g.m - g.n + 1)

    res = rb.balance(g, n_trees=1000, seed=0, backend=backend, progress=False)
    print(res)
    print("\ntribes by status (share of trees in the majority side):")
    print(res.vertices.sort_values("status", ascending=False).head(8).to_string(index=False))

    print("\nrelations most often switched to reach balance:")
    print(res.edges.sort_values("switched", ascending=False).head(6).to_string(index=False))

    # the same trees balanced by graphB+'s cycle walks give identical states
    walk = rb.balance(g, n_trees=1000, seed=0, method="cycle", backend=backend, progress=False)
    assert walk.vertices.equals(res.vertices) and walk.edges.equals(res.edges)
    print("\ncycle walks (graphB+) and path signs (ECL-SGB) agree on all 1000 states")

    # graphB+ v0.2's own output file, digit for digit: its numbering, roots, seed and majority
    gb = rb.load_example("highland", numbering="graphbplus")
    ref = rb.balance(gb, 1000, roots=graphbplus_roots(gb, 1000), seed=17, majority="agreeable",
                     backend=backend, progress=False)
    with tempfile.TemporaryDirectory() as tmp:  # removed on exit, like every file the example writes
        path = os.path.join(tmp, "highland_graphbplus.txt")
        ref.write_graphbplus(path)
        print("wrote highland_graphbplus.txt (graphB+ v0.2 format):")
        with open(path) as fh:
            print("".join(fh.readlines()[:4]), end="")

if __name__ == "__main__":
    main()
