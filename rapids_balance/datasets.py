"""Small signed graphs shipped inside the package (no downloads at run time).

========================  ==========================================================  ===========
name                      what                                                         LCC n / m
========================  ==========================================================  ===========
``highland``              Gahuku-Gama highland tribes (Read 1954), graphB+ CSV         16 / 58
``bitcoin-otc``           SNAP Bitcoin OTC trust network, sign = sign(rating)          5,875 / 21,489
``bitcoin-alpha``         SNAP Bitcoin Alpha trust network, sign = sign(rating)        3,775 / 14,120
``sampson``               KONECT moreno_sampson monastery ratings (0 = mixed)          18 / 126
``graphb-test-1a``        graphB+ toy example (4 vertices, 5 edges)                    4 / 5
``slashdot-1000``         Levorato et al. correlation-clustering instance: SNAP        997 / 5,991
                          Slashdot induced on ids < 1000, inconsistent pairs dropped
========================  ==========================================================  ===========

Provenance and checksums of the originals: ``../shared/data/README.md`` of the
project (the bundled files are byte copies, or for ``slashdot-1000`` the one
tar member re-gzipped with ``gzip -9 -n``).
"""

from __future__ import annotations

from importlib.resources import files

from .graph import Graph
from .errors import GraphInputError, renamed_source

__all__ = ["list_examples", "load_example", "example_path", "EXAMPLES"]

# name -> (file in rapids_balance/data, description)
EXAMPLES: dict[str, tuple[str, str]] = {
    "highland": ("highland_tribes_graphB_edges.csv.gz",
                 "Gahuku-Gama highland tribes (16 vertices, 58 edges; graphB+ CSV, pairs listed twice)"),
    "bitcoin-otc": ("soc-sign-bitcoinotc.csv.gz",
                    "SNAP Bitcoin OTC who-trusts-whom, sign = sign(rating) (LCC 5,875 / 21,489)"),
    "bitcoin-alpha": ("soc-sign-bitcoinalpha.csv.gz",
                      "SNAP Bitcoin Alpha who-trusts-whom, sign = sign(rating) (LCC 3,775 / 14,120)"),
    "sampson": ("konect_out.moreno_sampson_sampson.gz",
                "KONECT Sampson monastery ratings, 0 = mixed (18 vertices, 126 pairs)"),
    "graphb-test-1a": ("graphB_test_1A_edges.csv.gz", "graphB+ toy example test_1A (4 vertices, 5 edges)"),
    "slashdot-1000": ("levorato_slashdot_size1000.g.gz",
                      "Levorato correlation-clustering instance: Slashdot ids < 1000 (997 / 5,991)"),
}


def list_examples() -> list[str]:
    """Names of the bundled example graphs (descriptions in :data:`EXAMPLES`).

    Returns
    -------
    list of str

    Examples
    --------
    >>> "highland" in list_examples()
    True
    """
    return list(EXAMPLES)


def example_path(name: str):
    """Path-like resource of a bundled example file (usable with ``open``/``read_edgelist``)."""
    try:
        fname = EXAMPLES[name][0]
    except KeyError:
        raise KeyError(f"no example graph {name!r}; available: {', '.join(EXAMPLES)}") from None
    return files("rapids_balance") / "data" / fname


def load_example(name: str, **options) -> Graph:
    """Load a bundled example graph.

    Parameters
    ----------
    name : str
        One of :func:`list_examples` (``"highland"``, ``"bitcoin-otc"``,
        ``"bitcoin-alpha"``, ``"sampson"``, ``"graphb-test-1a"``,
        ``"slashdot-1000"``).
    **options
        Passed to :func:`rapids_balance.read_edgelist` (``conflicts``,
        ``zero_sign``, ``component``, ``numbering``, ``signed``, ``weight`` ...).

    Returns
    -------
    SignedGraph
        (a :class:`Graph` with ``signed=False``), named after the example.

    Raises
    ------
    KeyError
        Unknown name; the message lists the available ones.

    Examples
    --------
    >>> g = load_example("highland")
    >>> g.n, g.m
    (16, 58)
    """
    from .io import read_edgelist

    path = example_path(name)
    options.setdefault("name", name)
    try:
        with path.open("rb") as fh:
            graph = read_edgelist(fh, **options)
    except GraphInputError as exc:  # named as the caller named it, not by its installed path
        raise renamed_source(exc, str(path), f"example {name!r}") from None
    graph.cleaning.source = f"example:{name} ({EXAMPLES[name][0]})"
    return graph
