"""
Use a Dask cluster that is already running
==========================================

Another machine, SLURM, Kubernetes: connect a client and pass it as ``client=``.

Start a scheduler and workers elsewhere, e.g.::

    dask scheduler                                   # prints tcp://HOST:8786
    dask worker tcp://HOST:8786 --nworkers 4 --nthreads 1        # CPU nodes
    dask cuda worker tcp://HOST:8786                              # GPU nodes

(every worker needs rapids-balance installed), then::

    python examples/distributed_existing_cluster.py tcp://HOST:8786

Without an address this script starts a throw-away local cluster so it runs
anywhere.  The graph is sent to each worker once; only batch descriptions
(tree-id ranges, source lists) and partial results travel afterwards.

Needs the ``dask`` extra (``pip install 'rapids-balance[dask]'``).
"""

import sys

from _extras import require

require("dask", "distributed", "dask.dataframe")

from distributed import Client  # noqa: E402

import rapids_balance as rb
from rapids_balance.balancing import balance
from rapids_balance.centrality import edge_betweenness_centrality


def main() -> None:
    if len(sys.argv) > 1:
        client = Client(sys.argv[1])                    # an existing scheduler
    else:
        client = rb.start_cluster(2, gpu=False)         # stand-in for the demo
    try:
        print(client)
        graph = rb.load_example("bitcoin-otc")
        res = balance(graph, n_trees=100, seed=17, progress=False, client=client)
        print(res.edges.head())
        ebc = edge_betweenness_centrality(graph, k=512, seed=3, weight=None, client=client)
        print(ebc.nlargest(5, "betweenness_centrality"))
        # a per-edge table as a dask DataFrame, for pipelines that stay on the cluster
        from rapids_balance.distributed import to_dask_frame

        print(to_dask_frame(ebc, npartitions=4))
    finally:
        client.close()


if __name__ == "__main__":
    main()
