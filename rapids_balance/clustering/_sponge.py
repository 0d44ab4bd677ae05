"""SPONGE and SPONGE_sym k-way spectral clustering of signed graphs (Cucuringu et al. 2019).

SPONGE embeds the vertices with the ``k - 1`` eigenvectors of the smallest
eigenvalues of the generalised problem

    (L+ + tau- D-) v = lambda (L- + tau+ D+) v

(``L+-`` the Laplacians of the positive / negative parts, ``D+-`` their
degree matrices); SPONGE_sym uses the symmetric normalised Laplacians and
identities, ``(L+_sym + tau- I) v = lambda (L-_sym + tau+ I) v``.  k-means
(SciPy's ``kmeans2``, k-means++ seeding from the call's seed) groups the
embedded vertices.  Small graphs are solved densely (LAPACK), larger ones
with LOBPCG from a seeded start.

Without k, k is read from the signed Bethe Hessian ``H(r) = (r^2 - 1) I -
r A + D`` (A the signed adjacency, D the absolute degrees, ``r`` the square
root of the mean excess degree): its negative eigenvalues count the
informative directions of A (Saade, Krzakala and Zdeborova's rule,
signed), which are ``k - 1`` for k groups that repel each other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._output import frames_like_input, label_column, make_table
from .._validation import check_backend, check_choice, check_int, check_number, check_seed, param_error
from ..graph import Graph
from ._objective import canonical, edge_weights
from ._signed_objective import _signed_graph

__all__ = ["SpongeResult", "sponge", "bethe_hessian_k", "VARIANTS"]

VARIANTS = ("sponge", "sponge_sym")
#: graphs up to this many vertices are solved densely
DENSE_MAX = 1500
K_MAX_DEFAULT = 50
#: eigenpairs of the signed Bethe Hessian asked for first (doubled while all are negative)
BETHE_FIRST = 8


@dataclass
class SpongeResult:
    """Outcome of :func:`sponge`.

    Attributes
    ----------
    labels : DataFrame
        ``vertex``, ``community`` (0..k-1, numbered by first appearance).
    k : int
        Clusters asked of k-means.
    k_source : str
        ``"given"`` or ``"bethe_hessian"``.
    eigenvalues : numpy.ndarray
        The generalised eigenvalues of the embedding.
    bethe_negative : int or None
        Negative eigenvalues of the signed Bethe Hessian when k was chosen from it.
    variant, seed, elapsed_s, params
    """

    labels: pd.DataFrame
    k: int
    k_source: str
    eigenvalues: np.ndarray
    bethe_negative: int | None
    variant: str
    seed: int
    elapsed_s: float
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_communities(self) -> int:
        return int(self.labels["community"].nunique())

    def __repr__(self) -> str:
        return f"<SpongeResult {self.variant}: k={self.k} ({self.k_source}), {self.elapsed_s:.2f} s>"


def _parts(graph: Graph):
    import scipy.sparse as sp

    w = edge_weights(graph)
    n = graph.n
    out = []
    for mask in (graph.sign > 0, graph.sign < 0):
        s, d, ww = graph.edge_src[mask], graph.edge_dst[mask], w[mask]
        a = sp.coo_matrix((np.concatenate([ww, ww]), (np.concatenate([s, d]), np.concatenate([d, s]))),
                          shape=(n, n)).tocsr()
        out.append(a)
    return out


def _matrices(graph: Graph, variant: str, tau_p: float, tau_n: float):
    import scipy.sparse as sp

    ap, an = _parts(graph)
    dp = np.asarray(ap.sum(axis=1)).ravel()
    dn = np.asarray(an.sum(axis=1)).ravel()
    n = graph.n
    eye = sp.identity(n, format="csr")
    if variant == "sponge":
        lp = sp.diags(dp) - ap
        ln = sp.diags(dn) - an
        left = lp + tau_n * sp.diags(dn)
        right = ln + tau_p * sp.diags(dp)
    else:
        def sym(a, d):
            inv = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
            return eye - sp.diags(inv) @ a @ sp.diags(inv)
        left = sym(ap, dp) + tau_n * eye
        right = sym(an, dn) + tau_p * eye
    # a vertex with no edge of either sign makes the right side singular: a tiny ridge
    # keeps it positive definite without moving the other eigenvalues
    ridge = 1e-9 * max(1.0, float(abs(right).sum()) / max(n, 1))
    return left.tocsr(), (right + ridge * eye).tocsr()


def _smallest(left, right, nvec: int, seed: int):
    """The ``nvec`` smallest generalised eigenpairs of (left, right)."""
    n = left.shape[0]
    if n <= DENSE_MAX or nvec * 5 >= n:
        import scipy.linalg as la

        w, v = la.eigh(left.toarray(), right.toarray(), subset_by_index=[0, nvec - 1])
        return w, v
    from scipy.sparse.linalg import lobpcg

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, nvec))
    w, v = lobpcg(left, x, B=right, largest=False, tol=1e-6, maxiter=500)
    order = np.argsort(w)
    return w[order], v[:, order]


def bethe_hessian_k(graph: Any, k_max: int = K_MAX_DEFAULT) -> tuple[int, int]:
    """k from the signed Bethe Hessian: (k, negative eigenvalues).

    ``H = (r^2 - 1) I - r A + D`` with A the signed adjacency (weights), D
    the absolute degrees and ``r = sqrt(sum d^2 / sum d - 1)``.  Its
    negative eigenvalues (at most ``k_max`` are looked for) count the
    directions in which A holds groups together against the noise: ``k - 1``
    for k groups with positive links inside and negative links between, so
    ``k = negatives + 1``; when the eigenvector of the most negative
    eigenvalue keeps one sign (a graph that is one positive block) that
    direction is the block itself and ``k = negatives``.  At least 1.
    """
    import scipy.sparse as sp
    from scipy.sparse.linalg import eigsh

    g = graph
    ap, an = _parts(g)
    a = (ap - an).tocsr()
    d = np.asarray((ap + an).sum(axis=1)).ravel()
    n = g.n
    mean = d.sum()
    r2 = max(float((d * d).sum() / mean) - 1.0, 1.0 + 1e-6) if mean > 0 else 2.0
    r = np.sqrt(r2)
    h = (r2 - 1.0) * sp.identity(n) - r * a + sp.diags(d)
    most = int(min(k_max + 1, n))
    if n <= DENSE_MAX or most * 5 >= n:
        import scipy.linalg as la

        w, v = la.eigh(h.toarray(), subset_by_index=[0, most - 1])
    else:
        # a few eigenpairs first, more only while all of them are negative: Lanczos' cost
        # grows with the pairs asked for (n = 10^5, 12.5M edges: 51 pairs took 128 s)
        h = h.tocsr()
        v0 = np.random.default_rng(0).standard_normal(n)
        nvec = min(BETHE_FIRST, most)
        while True:
            w, v = eigsh(h, k=nvec, which="SA", v0=v0, tol=1e-8)
            order = np.argsort(w)
            w, v = w[order], v[:, order]
            if np.count_nonzero(w < 0) < nvec or nvec == most:
                break
            nvec = min(2 * nvec, most)
    neg = int(np.count_nonzero(w < 0))
    if neg == 0:
        return 1, 0
    lead = v[:, 0]
    big = np.abs(lead) > 1e-8 * np.abs(lead).max()
    one_sign = (lead[big] > 0).all() or (lead[big] < 0).all()
    return max(1, neg if one_sign else neg + 1), neg


@frames_like_input(dask_fields=())
def sponge(graph: Any, k: int | None = None, *, variant: str = "sponge", tau_positive: float = 1.0,
           tau_negative: float = 1.0, k_max: int = K_MAX_DEFAULT, seed: int = 0,
           backend: str = "auto", source: Any = None, target: Any = None, sign: Any = None,
           weight: Any = None) -> SpongeResult:
    """SPONGE / SPONGE_sym spectral clustering of a signed graph into k groups.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
    k : int, optional
        Number of groups, 2 .. n.  None: chosen from the signed Bethe
        Hessian (:func:`bethe_hessian_k`, at most ``k_max``).
    variant : {"sponge", "sponge_sym"}, default "sponge"
    tau_positive, tau_negative : float, default 1.0
        The regularisations tau+ and tau-, finite and > 0.
    k_max : int, default 50
        Largest k the Bethe Hessian rule may return, 1 .. 10**4.
    seed : int, default 0
        Seed of the eigensolver's start and of k-means++.
    backend : {"auto", "cpu"}
        The eigensolver runs on the CPU (SciPy); ``"gpu"`` is refused.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    SpongeResult

    References
    ----------
    .. [1] M. Cucuringu, P. Davies, A. Glielmo, H. Tyagi, "SPONGE: A generalized
       eigenproblem for clustering signed networks", AISTATS 2019.
    .. [2] A. Saade, F. Krzakala, L. Zdeborova, "Spectral clustering of graphs
       with the Bethe Hessian", NeurIPS 2014.

    Examples
    --------
    >>> import rapids_balance as rb
    >>> rb.sponge(rb.load_example("highland"), 3, seed=0).n_communities
    3
    """
    t0 = time.perf_counter()
    owner = "sponge"
    check_choice(variant, "variant", owner, VARIANTS)
    tp = check_number(tau_positive, "tau_positive", owner, low=0.0, low_open=True, high=1e12)
    tn = check_number(tau_negative, "tau_negative", owner, low=0.0, low_open=True, high=1e12)
    k_max = check_int(k_max, "k_max", owner, low=1, high=10**4)
    seed = check_seed(seed, owner)
    check_backend(backend, owner)
    if backend == "gpu":
        raise param_error("backend", owner, "'auto' or 'cpu' (the eigensolver runs on the CPU)",
                          backend)
    if k is not None:
        k = check_int(k, "k", owner, low=2, high=2**31 - 1)
    g = _signed_graph(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    if k is not None and k > g.n:
        raise param_error("k", owner, f"at most the number of vertices ({g.n})", k)
    neg = None
    source_k = "given"
    if k is None:
        k, neg = bethe_hessian_k(g, k_max)
        source_k = "bethe_hessian"
    if k == 1:
        lab = np.zeros(g.n, np.int64)
        vals = np.empty(0)
    else:
        from scipy.cluster.vq import kmeans2

        left, right = _matrices(g, variant, tp, tn)
        vals, vecs = _smallest(left, right, k - 1, seed)
        # the embedding of the authors' code (SigNet's ``v / w``): the eigenvectors (normalised
        # in the right-hand side's inner product) scaled by 1 / eigenvalue
        emb = vecs / np.where(np.abs(vals) > 1e-12, vals, 1e-12)
        _, lab = kmeans2(emb, k, minit="++", seed=np.random.default_rng(seed), iter=100)
        lab = canonical(lab).astype(np.int64)
    frame = make_table({"vertex": label_column(g), "community": lab}, like=g)
    return SpongeResult(labels=frame, k=int(k), k_source=source_k, eigenvalues=np.asarray(vals),
                        bethe_negative=neg, variant=variant, seed=seed,
                        elapsed_s=time.perf_counter() - t0,
                        params=dict(tau_positive=tp, tau_negative=tn, k_max=k_max))
