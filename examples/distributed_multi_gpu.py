"""
Scale out on one machine
========================

Every GPU (or every CPU core) as a Dask worker.

``start_cluster()`` starts a ``dask_cuda.LocalCUDACluster`` with one worker
per GPU when dask-cuda is installed and a GPU is usable, otherwise a
``distributed.LocalCluster`` of CPU worker processes.  The same calls as in
the single-process examples then take ``client=`` and return the same
answer (checked below).

Needs the ``dask`` extra (``pip install 'rapids-balance[dask]'``); GPU
workers also need the ``rapids`` extra (dask-cuda) and a GPU.

Run: ``python examples/distributed_multi_gpu.py [n_workers]``
"""

import sys
import time

import numpy as np
from _extras import require

import rapids_balance as rb
from rapids_balance.balancing import balance
from rapids_balance.centrality import betweenness_centrality


def main() -> None:
    require("dask", "distributed")
    n_workers = int(sys.argv[1]) if len(sys.argv) > 1 else None
    graph = rb.load_example("bitcoin-alpha")
    print(graph)

    # the with-block closes the client and its cluster
    with rb.start_cluster(n_workers) as client:
        print(client)

        t = time.perf_counter()
        res = balance(graph, n_trees=200, seed=1, progress=True, client=client)
        print(f"balance, 200 trees on the cluster: {time.perf_counter() - t:.2f} s")
        print(res.vertices.sort_values("status", ascending=False).head())

        local = balance(graph, n_trees=200, seed=1, progress=False)
        same = all(np.array_equal(res.counters[k], local.counters[k]) for k in local.counters)
        print("same counters as the single-process call:", same)

        t = time.perf_counter()
        bc = betweenness_centrality(graph, k=1024, seed=7, weight=None, client=client)
        print(f"betweenness, 1024 sources on the cluster: {time.perf_counter() - t:.2f} s")
        print(bc.nlargest(5, "betweenness_centrality"))
        print("bit-identical to the single-process call:",
              bc.equals(betweenness_centrality(graph, k=1024, seed=7, weight=None)))

        # GRASP restarts spread over the workers; best imbalance, ties to the first restart
        cc = rb.correlation_clustering(graph, method="grasp", max_iterations=8, seed=3,
                                       progress=False, client=client)
        print(cc)
        local = rb.correlation_clustering(graph, method="grasp", max_iterations=8, seed=3,
                                          progress=False)
        print("same clustering as the single-process call:", cc.labels.equals(local.labels))


if __name__ == "__main__":  # required: worker processes re-import this file
    main()
