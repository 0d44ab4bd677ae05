"""Walk-based balance (Estrada and Benzi): traces of matrix exponentials, in log space.

``tr exp(beta A)`` sums ``exp(beta lambda_i)`` over the eigenvalues of a
symmetric matrix ``A``; on a graph of a million edges the leading
eigenvalues are in the hundreds, so the traces overflow and their ratio
underflows.  Everything here is a logarithm.

Two methods:

* ``"exact"``: every eigenvalue of the dense matrix (``numpy.linalg.eigvalsh``),
  for graphs of at most :data:`EXACT_MAX_VERTICES` vertices.
* ``"slq"``: the ``deflation`` leading eigenpairs by Lanczos (``eigsh``),
  whose terms are summed exactly, plus the trace of the rest by stochastic
  Lanczos quadrature: Rademacher probes projected off those eigenvectors,
  ``steps`` Lanczos steps each (all probes advanced together, one sparse
  matrix times block per step), and Gauss quadrature of ``exp(beta x)`` on
  each tridiagonal matrix.  The probes' spread gives the error bar.  The
  leading terms, which dominate at large ``beta``, carry no sampling error;
  the rest, which dominates at small ``beta`` (the bulk of eigenvalues near
  0), has little variance.  The tridiagonal matrices do not depend on
  ``beta``, so several values of ``beta`` cost one run.  Probes run in
  batches (16, then doubling) and, in :func:`walk_balance`, stop once the
  error bar is ``rtol`` of the score; the first batch also stops adding
  Lanczos steps once the score has settled (Gauss quadrature of ``exp``
  converges faster than geometrically).

Sparse products are numba kernels on the CPU (:mod:`._lanczos_kernels`:
parallel over rows, column sums in fixed chunks, so the result does not
depend on the thread count) and CuPy's (``cupyx.scipy.sparse``) on a GPU;
probes come from ``numpy.random.default_rng(seed)``, so a seed gives the
same probes on both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._validation import check_backend, check_bool, check_choice, check_count, check_int, check_number
from .._validation import check_seed
from ..io._roles import check_roles
from ..backend import array_module, resolve_backend, to_host
from ..errors import GraphInputError
from ._input import signed_input

__all__ = ["WalkBalance", "walk_balance", "log_trace_exp", "walk_log_ratio", "EXACT_MAX_VERTICES",
           "AUTO_EXACT_VERTICES", "WALK_METHODS"]

#: the largest graph ``method="exact"`` accepts (a dense n x n matrix and its eigenvalues)
EXACT_MAX_VERTICES = 5000
#: ``method="auto"`` is exact up to this many vertices, stochastic above
AUTO_EXACT_VERTICES = 2000
WALK_METHODS = ("auto", "exact", "slq")
EIGSH_TOL = 1e-10
#: Lanczos steps between two checks of the adaptive stop
STEP_CHUNK = 8
#: default ``rtol`` of :func:`walk_balance`: probes stop once the error bar is this share of the score
DEFAULT_RTOL = 1e-3


@dataclass(frozen=True)
class WalkBalance:
    """Walk-based balance of a signed graph.

    Attributes
    ----------
    score : float
        ``tr exp(beta A) / tr exp(beta |A|)``, in ``(0, 1]`` (1: balanced);
        may underflow to 0.0 on large graphs, where ``log_score`` is the
        figure to read.
    log_score : float
        Its natural logarithm, ``log_trace_signed - log_trace_unsigned``.
    log_score_error : float
        One standard error of ``log_score`` from the probes (0.0 for the
        exact method); ``exp(+-error)`` is the relative error bar of ``score``.
    log_trace_signed, log_trace_unsigned : float
        ``log tr exp(beta A)`` and ``log tr exp(beta |A|)``.
    log_trace_signed_error, log_trace_unsigned_error : float
        Their standard errors.
    beta : float
        The inverse temperature.
    method : str
        ``"exact"`` or ``"slq"``.
    params : dict
        ``probes``, ``steps``, ``deflation``, ``seed``, ``rtol`` of a
        stochastic run, and ``probes_used`` and ``steps_used`` (where the
        adaptive stop left them).
    """

    score: float
    log_score: float
    log_score_error: float
    log_trace_signed: float
    log_trace_unsigned: float
    log_trace_signed_error: float
    log_trace_unsigned_error: float
    beta: float
    method: str
    params: dict

    def __float__(self) -> float:
        return float(self.score)


# ---------------------------------------------------------------------------
# array level
# ---------------------------------------------------------------------------

def _logsumexp(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out.squeeze() if axis is None else np.squeeze(out, axis=axis)


def _dense(src, dst, values, n) -> np.ndarray:
    a = np.zeros((n, n), dtype=np.float64)
    a[src, dst] = values
    a[dst, src] = values
    return a


def _sparse(src, dst, values, n, backend):
    """The symmetric matrix as CSR: SciPy, or CuPy's on a real GPU."""
    import scipy.sparse as sp

    rows = np.concatenate([src, dst])
    cols = np.concatenate([dst, src])
    vals = np.concatenate([values, values]).astype(np.float64)
    a = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))
    if array_module(backend) is not np:
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(a)
    return a


def _leading_pairs(a, n: int, k: int, seed: int, backend: str):
    """The ``k`` algebraically largest eigenpairs (values ascending), seeded start vector."""
    v0 = np.random.default_rng([seed, 1]).standard_normal(n)
    xp = array_module(backend)
    if xp is not np:
        from cupyx.scipy.sparse.linalg import eigsh

        vals, vecs = eigsh(a, k=k, which="LA")
    else:
        from scipy.sparse.linalg import eigsh

        vals, vecs = eigsh(a, k=k, which="LA", v0=v0, tol=EIGSH_TOL)
    order = xp.argsort(vals)
    return to_host(vals[order]), vecs[:, order]


def _lanczos_steps(a, z, vecs, xp, kernels: bool = True):
    """Lanczos from each column of ``z`` at once, kept off ``vecs``: yields ``(alpha_j, beta_j)``
    (two arrays, one entry per column) step after step, as long as asked.  NumPy arrays go to
    the numba kernels unless ``kernels`` is False (then the array program a GPU runs)."""
    if xp is np and kernels:
        yield from _lanczos_steps_cpu(a, z, vecs)
        return
    p = z.shape[1]
    q = z / xp.linalg.norm(z, axis=0, keepdims=True)
    q_prev = xp.zeros_like(q)
    b_prev = xp.zeros((1, p))
    while True:
        w = a @ q
        if vecs is not None:
            w -= vecs @ (vecs.T @ w)
        al = xp.sum(q * w, axis=0, keepdims=True)
        w -= al * q + b_prev * q_prev
        # one step of re-orthogonalisation against the last two vectors keeps ghosts rare
        w -= q * xp.sum(q * w, axis=0, keepdims=True)
        b = xp.linalg.norm(w, axis=0, keepdims=True)
        # an invariant subspace reached: the column's later steps stay zero (weight 0)
        dead = b <= 1e-10 * xp.maximum(xp.abs(al), 1.0)
        q_prev = q
        q = xp.where(dead, 0.0, w / xp.where(dead, 1.0, b))
        b_prev = xp.where(dead, 0.0, b)
        yield to_host(al).ravel(), to_host(b_prev).ravel()


def _lanczos_steps_cpu(a, z, vecs):
    """:func:`_lanczos_steps` with the numba kernels of :mod:`._lanczos_kernels` (four passes
    over the block a step, in place; the projection off ``vecs`` is two BLAS products)."""
    from ._lanczos_kernels import column_dots, normalise, spmm, subtract_dot, subtract_norm

    p = z.shape[1]
    q = np.ascontiguousarray(z / np.sqrt(column_dots(z, z)))
    q_prev = np.zeros_like(q)
    w = np.empty_like(q)
    b_prev = np.zeros(p)
    while True:
        spmm(a.indptr, a.indices, a.data, q, w)
        if vecs is not None:
            w -= vecs @ (vecs.T @ w)
        al = column_dots(q, w)
        # the second sum re-orthogonalises against the last vector: ghosts stay rare
        b = np.sqrt(subtract_norm(w, q, subtract_dot(w, q, q_prev, al, b_prev)))
        dead = b <= 1e-10 * np.maximum(np.abs(al), 1.0)
        b_prev = np.where(dead, 0.0, b)
        q_prev, q = q, q_prev  # the old q_prev's memory takes the next vector
        normalise(w, np.where(dead, 0.0, 1.0 / np.where(dead, 1.0, b)), q)
        yield al, b_prev


def _quadrature_nodes(alpha, beta) -> tuple[np.ndarray, np.ndarray]:
    """Gauss nodes and log-weights of each column's tridiagonal matrix: two (steps, probes) arrays."""
    steps, p = alpha.shape
    nodes = np.empty((steps, p))
    logw = np.empty((steps, p))
    for c in range(p):
        t = np.diag(alpha[:, c]) + np.diag(beta[:-1, c], 1) + np.diag(beta[:-1, c], -1)
        theta, u = np.linalg.eigh(t)
        nodes[:, c] = theta
        with np.errstate(divide="ignore"):
            logw[:, c] = 2.0 * np.log(np.abs(u[0]))
    return nodes, logw


def _exp_tail(y: np.ndarray) -> np.ndarray:
    """``exp(y) - 1 - y - y^2 / 2``, without cancellation near 0."""
    small = np.abs(y) < 1e-2
    ys = np.where(small, y, 0.0)
    series = ys**3 / 6 * (1 + ys / 4 * (1 + ys / 5 * (1 + ys / 6)))
    with np.errstate(over="ignore"):
        direct = np.expm1(np.where(small, 0.0, y)) - y - y * y / 2
    return np.where(small, series, direct)


def _rest_estimates(nodes, logw, log_norm2, bt, exact_poly) -> tuple[float, float]:
    """log of the trace left after deflation, and its relative standard error.

    Two estimators over the same quadrature: the probes' ``exp`` directly,
    and the probes' ``exp - 1 - x - x^2/2`` plus that polynomial's exact
    trace (``exact_poly``), a control variate that removes most of the
    variance at small ``beta`` (where the bulk of eigenvalues near 0
    dominates).  The one with the smaller standard error is kept.
    """
    p = nodes.shape[1]
    q = _logsumexp(bt * nodes + logw, axis=0) + log_norm2
    top = float(np.max(q))
    scaled = np.exp(q - top)
    mean = float(np.mean(scaled))
    log_rest = math.log(mean) + top
    se = float(np.std(scaled, ddof=1) / math.sqrt(p)) / mean
    if np.max(bt * nodes) < 600:
        g = np.sum(np.exp(logw) * _exp_tail(bt * nodes), axis=0) * np.exp(log_norm2)
        total = exact_poly + float(np.mean(g))
        if total > 0:
            se_g = float(np.std(g, ddof=1) / math.sqrt(p)) / total
            if se_g < se:
                return math.log(total), se_g
    return log_rest, se


def log_trace_exp(src: Any, dst: Any, values: Any, n: int, betas: Sequence[float], *,
                  method: str = "slq", probes: int = 64, steps: int = 40, deflation: int = 16,
                  seed: int = 0, backend: str = "cpu", atol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``log tr exp(beta A)`` of a symmetric matrix given by its edges, for several ``beta``.

    Parameters
    ----------
    src, dst : array of int
        The ``m`` edges (internal ids in ``[0, n)``, each pair once, no
        self-loop): ``A[src, dst] = A[dst, src] = values``.  Not checked.
    values : array of float
        The entry of each edge: the signs for the signed matrix, ones (or
        ``abs`` of the signs) for the unsigned one.
    n : int
        Number of vertices.
    betas : sequence of float
        Inverse temperatures; the stochastic method reuses one Lanczos run
        for all of them.
    method : {"exact", "slq"}
        Dense eigenvalues, or stochastic Lanczos quadrature with deflation
        (module docstring).
    probes, steps, deflation : int
        Rademacher probes (at most), Lanczos steps per probe, leading
        eigenpairs summed exactly (``slq`` only).
    seed : int
        Seed of the probes and of the eigensolver's start vector.
    backend : {"cpu", "gpu"}
        Already resolved; ``"gpu"`` multiplies with CuPy on a real GPU.
    atol : float, default 0.0
        Stop adding probes (batches of :data:`FIRST_PROBES`, then doubling
        the count: :func:`probe_batches`) once every standard error is at
        most ``atol``; 0: run all ``probes``.

    Returns
    -------
    (logs, errors) : two float arrays, one entry per ``beta``
        The logarithms and their standard errors (0.0 when exact).

    Examples
    --------
    >>> import numpy as np
    >>> logs, err = log_trace_exp(np.array([0]), np.array([1]), np.array([1.0]), 2, [1.0], method="exact")
    >>> bool(abs(np.exp(logs[0]) - 2 * np.cosh(1.0)) < 1e-9)
    True
    """
    src = np.asarray(to_host(src), dtype=np.int64)
    dst = np.asarray(to_host(dst), dtype=np.int64)
    values = np.asarray(to_host(values), dtype=np.float64)
    betas = np.asarray(list(betas), dtype=np.float64)
    if n == 0:
        return np.full(betas.size, -np.inf), np.zeros(betas.size)
    if method == "exact" or n <= deflation + 2:
        lam = np.linalg.eigvalsh(_dense(src, dst, values, n))
        return np.array([_logsumexp(b * lam) for b in betas]), np.zeros(betas.size)
    slq = _Quadrature(src, dst, values, n, steps, deflation, seed, backend)
    for size in probe_batches(probes):
        slq.add(size)
        if atol > 0 and slq.probes < probes and np.all(slq.estimate(betas)[1] <= atol):
            break
    return slq.estimate(betas)


#: probes of the first batch of an adaptive run; later batches double the count
FIRST_PROBES = 16


def probe_batches(probes: int) -> list[int]:
    """Batch sizes adding up to ``probes``: :data:`FIRST_PROBES`, then doubling the total."""
    sizes = [min(probes, FIRST_PROBES)]
    while sum(sizes) < probes:
        sizes.append(min(sum(sizes), probes - sum(sizes)))
    return sizes


class _Quadrature:
    """Stochastic Lanczos quadrature of ``log tr exp(beta A)`` for one matrix, probes added
    in batches.

    The leading eigenpairs are found once; :meth:`add` runs Lanczos from the
    next ``k`` probes and keeps their Gauss nodes.  Probe ``j`` is the
    ``j``-th draw of one seeded stream (column ``j`` of ``rng.random((probes,
    n)) < 0.5``), however the probes are cut into batches, so an adaptive
    run that stops early used a prefix of the probes of a full run.
    """

    def __init__(self, src, dst, values, n: int, steps: int, deflation: int, seed: int, backend: str):
        self.n, self.steps, self.backend = n, steps, backend
        self.xp = array_module(backend)
        self.a = _sparse(src, dst, values, n, backend)
        self.lead, self.vecs = np.zeros(0), None
        if deflation > 0:
            self.lead, self.vecs = _leading_pairs(self.a, n, deflation, seed, backend)
        self.rng = np.random.default_rng([seed, 2])
        lead = self.lead
        # traces over the complement of the deflated vectors: tr(P) = n - k, tr(PA) = -sum(lead),
        # tr(PA^2) = 2 sum(values^2) - sum(lead^2)
        self.traces = (n - lead.size, -float(lead.sum()), 2.0 * float(values @ values) - float(lead @ lead))
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    @property
    def probes(self) -> int:
        """Probes run so far."""
        return sum(part[2].size for part in self.parts)

    def start(self, k: int):
        """The next ``k`` probes: a :func:`_lanczos_steps` generator and the probes' log squared norms."""
        xp, vecs = self.xp, self.vecs
        z = xp.asarray(np.ascontiguousarray(np.where(self.rng.random((k, self.n)) < 0.5, -1.0, 1.0).T))
        if vecs is not None:
            z -= vecs @ (vecs.T @ z)
        log_norm2 = np.log(np.maximum(to_host(xp.sum(z * z, axis=0)), 1e-300))
        return _lanczos_steps(self.a, z, vecs, xp), log_norm2

    @staticmethod
    def part(alpha, beta, log_norm2):
        """Gauss nodes of a batch from its Lanczos coefficients (``(steps, k)`` arrays)."""
        return (*_quadrature_nodes(np.asarray(alpha), np.asarray(beta)), log_norm2)

    def add(self, k: int) -> None:
        """Run the next ``k`` probes, ``steps`` Lanczos steps each."""
        it, log_norm2 = self.start(k)
        pairs = [next(it) for _ in range(self.steps)]
        self.parts.append(self.part([al for al, _ in pairs], [b for _, b in pairs], log_norm2))

    def estimate(self, betas, extra=None) -> tuple[np.ndarray, np.ndarray]:
        """``log tr exp(beta A)`` and its standard error for each ``beta``, from the probes so far
        (and the batch ``extra``, a :meth:`part` not kept)."""
        parts = self.parts + ([extra] if extra is not None else [])
        nodes, logw, log_norm2 = (np.concatenate(x, axis=-1) for x in zip(*parts))
        lead = self.lead
        tr0, tr1, tr2 = self.traces
        logs = np.empty(len(betas))
        errs = np.empty(len(betas))
        for b, bt in enumerate(betas):
            log_rest, rel = _rest_estimates(nodes, logw, log_norm2, bt, tr0 + bt * tr1 + bt * bt / 2 * tr2)
            logs[b] = _logsumexp(np.concatenate([bt * lead, [log_rest]]))
            # the eigensolver's tolerance bounds the leading terms' error from below
            errs[b] = max(rel * math.exp(log_rest - logs[b]),
                          EIGSH_TOL * bt * float(np.max(np.abs(lead), initial=0)))
        return logs, errs


def walk_log_ratio(src: Any, dst: Any, sign: Any, n: int, beta: float = 1.0, *,
                   unsigned: tuple[float, float] | None = None, **options: Any) -> tuple[float, float]:
    """``log`` of the walk balance of a graph given as arrays, and its standard error.

    Parameters
    ----------
    src, dst, sign : arrays
        Edges and their signs (as for :func:`log_trace_exp`).
    n : int
        Number of vertices.
    beta : float, default 1.0
        Inverse temperature.
    unsigned : (float, float), optional
        ``(log tr exp(beta |A|), its error)`` when already known: under a
        sign shuffle the topology, hence this trace, does not change, so a
        null model computes it once.
    **options
        ``method``, ``probes``, ``steps``, ``deflation``, ``seed``,
        ``backend`` of :func:`log_trace_exp`.

    Returns
    -------
    (float, float)
        ``log(tr exp(beta A) / tr exp(beta |A|))`` and its standard error.

    Examples
    --------
    >>> import numpy as np
    >>> src, dst = np.array([0, 0, 1]), np.array([1, 2, 2])
    >>> walk_log_ratio(src, dst, np.array([1, 1, 1]), 3, method="exact")[0]
    0.0
    """
    s_log, s_err = log_trace_exp(src, dst, np.asarray(to_host(sign), dtype=np.float64), n, [beta], **options)
    if unsigned is None:
        u_log, u_err = log_trace_exp(src, dst, np.ones(len(src)), n, [beta], **options)
        unsigned = (float(u_log[0]), float(u_err[0]))
    return float(s_log[0] - unsigned[0]), float(math.hypot(s_err[0], unsigned[1]))


# ---------------------------------------------------------------------------
# the public function
# ---------------------------------------------------------------------------

def walk_balance(graph: Any, beta: float = 1.0, *, method: str = "auto", seed: int = 0,
                 probes: int = 64, steps: int = 40, deflation: int = 16, rtol: float = DEFAULT_RTOL,
                 weighted: bool = False,
                 backend: str = "auto", source: Any = None, target: Any = None, sign: Any = None,
                 weight: Any = None) -> WalkBalance:
    """Walk-based balance: ``tr exp(beta A) / tr exp(beta |A|)`` (Estrada and Benzi), in log space.

    ``(A^k)_ii`` sums the signs of the closed walks of length ``k`` at
    ``i`` and ``(|A|^k)_ii`` counts them, so the ratio weighs the share of
    positive (balanced) closed walks of every length by ``beta^k / k!``.
    It is 1 exactly when the graph is balanced.

    Parameters
    ----------
    graph : SignedGraph or anything :func:`rapids_balance.graph.graph_from_any` accepts
        An undirected signed graph.
    beta : float, default 1.0
        Inverse temperature, a number > 0 (signnet's ``balance_score(g,
        method = "walk")`` is ``beta = 1``).  Small ``beta`` weighs short
        walks: as ``beta -> 0`` the score tends to 1 and ``1 - score``
        behaves like ``2 beta^3 U / n`` (``U`` unbalanced triangles, ``n``
        vertices), a local measure.  Large ``beta`` weighs long
        walks, and the score tends to ``exp(beta (lambda_1 - mu_1))``, set
        by the leading eigenvalues of ``A`` and ``|A|``: a global measure
        that goes to 0 on any unbalanced graph, fast on large ones (read
        ``log_score`` there).
    method : {"auto", "exact", "slq"}, default "auto"
        ``"exact"``: dense eigenvalues (at most :data:`EXACT_MAX_VERTICES`
        vertices); ``"slq"``: stochastic Lanczos quadrature with the
        leading eigenvalues summed exactly (sparse matrix-vector products
        only); ``"auto"``: exact up to :data:`AUTO_EXACT_VERTICES`
        vertices.
    seed : int, default 0
        Seed of the probes: an int in ``[0, 2**63 - 1]``.
    probes : int, default 64
        Rademacher probes (``slq``) at most, in ``[2, 2**20]``.
    steps : int, default 40
        Lanczos steps per probe (``slq``), in ``[2, 1000]``.
    deflation : int, default 16
        Leading eigenvalues summed exactly (``slq``), in ``[0, 1000]``.
    rtol : float, default 1e-3
        Adaptive stopping (``slq``), a number >= 0: probes are run in
        batches (16, then doubling the count, up to ``probes``) and no more
        are added once the standard error of ``log_score`` is at most
        ``rtol * |log_score|``; and the first batch takes no more Lanczos
        steps (up to ``steps``) once 8 more moved ``log_score`` by at most
        ``rtol / 10`` of it (later batches take as many).  0: always run
        ``probes`` and ``steps``.
    weighted : bool, default False
        Use ``sign * |weight|`` as the matrix entries when the graph has
        weights (signnet uses the signs alone).
    backend : {"auto", "cpu", "gpu"}, default "auto"
        SciPy on the CPU, CuPy on the GPU.
    source, target, sign, weight : str or int, optional
        Column roles when ``graph`` is a table or a file.

    Returns
    -------
    WalkBalance
        ``score``, ``log_score`` and its standard error, the two log-traces.

    Raises
    ------
    InvalidParameterError
        A parameter has a wrong type or value (checked before any work).
    GraphInputError
        The graph is directed, unsigned, or too large for ``method="exact"``.

    Notes
    -----
    Measured error of ``slq`` with the defaults against the exact value on
    Bitcoin Alpha (3,775 vertices, seeds 0 to 2): below 1e-12 at
    ``beta = 1``, where the deflated leading eigenvalues carry the traces
    (16 probes and 16 Lanczos steps were enough for the adaptive stop),
    and 4e-5 to 8e-5 at ``beta = 0.1`` (0.3 % to 0.7 % of ``log_score =
    -0.0116``, all 64 probes, 16 steps), within one reported standard error
    (about 1.3e-4).  Epinions (119,130 vertices), ``beta = 1`` and ``0.1``:
    16 probes and 16 steps.  Below
    the leading eigenvalues the trace is estimated either directly or as
    ``exp(x) - 1 - x - x^2/2`` plus that polynomial's exact trace (a control
    variate for small ``beta``), whichever has the smaller standard error.
    ``log_score`` is clipped at 0 (the signed trace never exceeds the
    unsigned one).  Epinions against a reference of more probes:
    ``benchmarks/bench_measures.py``.

    References
    ----------
    .. [1] E. Estrada, M. Benzi, "Walk-based measure of balance in signed
       networks: detecting lack of balance in social networks", Physical
       Review E 90 (2014).
    .. [2] S. Ubaru, J. Chen, Y. Saad, "Fast estimation of tr(f(A)) via
       stochastic Lanczos quadrature", SIAM J. Matrix Anal. Appl. 38 (2017).

    Examples
    --------
    >>> import rapids_balance as rb
    >>> w = rb.walk_balance(rb.load_example("highland"))
    >>> round(w.score, 7), w.method
    (0.3575761, 'exact')
    """
    owner = "walk_balance"
    beta = check_number(beta, "beta", owner, low=0.0, low_open=True)
    method = check_choice(method, "method", owner, WALK_METHODS)
    seed = check_seed(seed, owner)
    probes = check_count(probes, "probes", owner, low=2, high=2**20)
    rtol = check_number(rtol, "rtol", owner, low=0.0)
    steps = check_int(steps, "steps", owner, low=2, high=1000)
    deflation = check_int(deflation, "deflation", owner, low=0, high=1000)
    weighted = check_bool(weighted, "weighted", owner)
    check_backend(backend, owner)
    roles = check_roles(graph, owner, dict(source=source, target=target, sign=sign, weight=weight))
    g = signed_input(graph, owner, roles)
    if method == "exact" and g.n > EXACT_MAX_VERTICES:
        raise GraphInputError(f"walk_balance: method='exact' takes graphs of at most {EXACT_MAX_VERTICES:,} "
                              f"vertices (a dense matrix); this one has {g.n:,}: use method='slq' or 'auto'")
    if method == "auto":
        method = "exact" if g.n <= AUTO_EXACT_VERTICES else "slq"
    backend = resolve_backend(backend)
    return _walk(g, beta, method, dict(probes=probes, steps=steps, deflation=deflation, seed=seed,
                                       rtol=rtol), weighted, backend)


def _walk(g, beta: float, method: str, params: dict, weighted: bool, backend: str) -> WalkBalance:
    mag = np.ones(g.m) if not (weighted and g.weight is not None) else np.abs(np.asarray(g.weight, float))
    signed = mag * np.asarray(g.sign, dtype=np.float64)
    if method == "slq" and g.n > params["deflation"] + 2:
        (s_log, s_err), (u_log, u_err), used, steps = _adaptive_pair(g, signed, mag, beta, params, backend)
        params = {**params, "probes_used": used, "steps_used": steps}
    else:
        opts = {k: v for k, v in params.items() if k != "rtol"}
        s_log, s_err = log_trace_exp(g.edge_src, g.edge_dst, signed, g.n, [beta], method=method,
                                     backend=backend, **opts)
        u_log, u_err = log_trace_exp(g.edge_src, g.edge_dst, mag, g.n, [beta], method=method,
                                     backend=backend, **opts)
    log_score = min(float(s_log[0] - u_log[0]), 0.0)  # tr exp(bA) <= tr exp(b|A|): rounding only
    return WalkBalance(score=math.exp(log_score), log_score=log_score,
                       log_score_error=float(math.hypot(s_err[0], u_err[0])),
                       log_trace_signed=float(s_log[0]), log_trace_unsigned=float(u_log[0]),
                       log_trace_signed_error=float(s_err[0]), log_trace_unsigned_error=float(u_err[0]),
                       beta=beta, method=method, params=params if method == "slq" else {})


def _adaptive_pair(g, signed, mag, beta: float, params: dict, backend: str):
    """Both traces by SLQ, adaptively (:func:`walk_balance`, ``rtol``); returns both estimates
    and the probes and Lanczos steps used.

    The first batch of probes advances both matrices in lockstep and stops
    adding Lanczos steps once :data:`STEP_CHUNK` more steps moved the log
    score by at most ``rtol / 10`` of it (Gauss quadrature converges
    faster than geometrically, so the last chunk's change bounds the
    truncation error); later batches take as many steps.  Batches are
    added until the log score's standard error is at most ``rtol`` of it.
    """
    rtol = params["rtol"]
    opts = dict(steps=params["steps"], deflation=params["deflation"], seed=params["seed"], backend=backend)
    pair = [_Quadrature(g.edge_src, g.edge_dst, values, g.n, **opts) for values in (signed, mag)]
    steps = None
    for size in probe_batches(params["probes"]):
        runs = [slq.start(size) for slq in pair]
        coefs: list[tuple[list, list]] = [([], []) for _ in pair]
        last = None
        for j in range(1, (steps or params["steps"]) + 1):
            for (it, _), (al, be) in zip(runs, coefs):
                a_j, b_j = next(it)
                al.append(a_j)
                be.append(b_j)
            if steps is None and j % STEP_CHUNK == 0:
                est = _log_score(pair, runs, coefs, beta)
                if rtol > 0 and last is not None and abs(est - last) <= rtol / 10 * abs(est):
                    break
                last = est
        steps = steps or j
        for slq, (_, log_norm2), (al, be) in zip(pair, runs, coefs):
            slq.parts.append(slq.part(al, be, log_norm2))
        (s_log, s_err), (u_log, u_err) = (slq.estimate([beta]) for slq in pair)
        if math.hypot(s_err[0], u_err[0]) <= rtol * abs(s_log[0] - u_log[0]):
            break
    return (s_log, s_err), (u_log, u_err), pair[0].probes, steps


def _log_score(pair, runs, coefs, beta: float) -> float:
    """The log score with the running batch's steps so far."""
    s_log, u_log = (slq.estimate([beta], slq.part(al, be, ln2))[0][0]
                    for slq, (_, ln2), (al, be) in zip(pair, runs, coefs))
    return float(s_log - u_log)
