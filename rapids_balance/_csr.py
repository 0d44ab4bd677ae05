"""The CSR layout of a graph's edges, built in the edges' array namespace.

:class:`~rapids_balance.graph.Graph` builds its adjacency with
:func:`csr_arrays` (numpy for host edges, the device namespace for a graph
kept on the device); :func:`~rapids_balance.graph.build_graph` hands it the
cleaned, numbered edges.
"""

from __future__ import annotations

from types import ModuleType

from . import _xp

__all__ = ["csr_arrays", "edge_slots_from_csr"]

#: from this many host edges on, sorted undirected edges take the compiled builder
#: (:func:`rapids_balance._host_sort.undirected_csr`; smaller graphs do not pay for numba's import
#: nor for compiling it, which costs more than numpy's sort below this size)
_COMPILED_MIN_EDGES = 1 << 18


def csr_arrays(xp: ModuleType, edge_src, edge_dst, n: int, directed: bool, *,
               edge_slots: bool = True) -> dict:
    """The CSR arrays of the edges ``(edge_src[e], edge_dst[e])`` over ``n`` vertices.

    Returns ``indptr`` (int64, n+1), ``indices`` (int32), ``slot_edge``
    (int32) and, with ``edge_slots``, ``edge_slots`` (int64, m x 2
    undirected / m x 1 directed), in the namespace ``xp``: rows hold
    neighbours in increasing order, an undirected edge fills one slot in each
    endpoint's row.  A host graph leaves ``edge_slots`` out (16 bytes per
    edge that no search reads) and derives it on first use
    (:func:`edge_slots_from_csr`).

    The slots are those of a stable sort of all slots by (row, neighbour).
    Edges as :func:`build_graph` leaves them (sorted by ``(src, dst)``,
    ``src < dst`` when undirected) have them in closed form: directed, the
    edge order itself; undirected, row ``r`` holds first the edges whose
    ``dst`` is ``r`` (in edge order, so by increasing ``src``), then those
    whose ``src`` is ``r``, which needs one stable sort of ``dst`` instead
    of a sort of all 2m slots on a 64-bit key.
    """
    m = int(edge_src.shape[0])
    if _xp.is_numpy(xp) and m >= _COMPILED_MIN_EDGES and not directed:
        from ._host_sort import pairs_sorted, undirected_csr

        if pairs_sorted(edge_src, edge_dst, directed):  # the graph build's edges: one compiled pass
            out = undirected_csr(edge_src, edge_dst, n)
            if edge_slots:
                out["edge_slots"] = edge_slots_from_csr(xp, out["indices"], out["slot_edge"], edge_dst, directed)
            return out
    if not (m and _sorted_edges(xp, edge_src, edge_dst, directed)):
        out = _csr_general(xp, edge_src, edge_dst, n, directed)
    elif directed:
        out = _csr_directed_sorted(xp, edge_src, edge_dst, n)
    else:
        out = _csr_undirected_sorted(xp, edge_src, edge_dst, n)
    if not edge_slots:
        out.pop("edge_slots", None)
    elif "edge_slots" not in out:  # the undirected builder skips the (m, 2) array unless asked
        out["edge_slots"] = edge_slots_from_csr(xp, out["indices"], out["slot_edge"], edge_dst, directed)
    return out


def _sorted_edges(xp: ModuleType, src, dst, directed: bool) -> bool:
    """Edges sorted by (src, dst), repeats allowed; undirected also src < dst."""
    s0, s1, d0, d1 = src[:-1], src[1:], dst[:-1], dst[1:]
    if not bool(xp.all((s1 > s0) | ((s1 == s0) & (d1 >= d0)))):
        return False
    return directed or bool(xp.all(src < dst))


def _indptr(xp: ModuleType, counts):
    return xp.concat([xp.zeros(1, dtype=xp.int64), xp.cumulative_sum(xp.astype(counts, xp.int64))])


def _csr_directed_sorted(xp: ModuleType, src, dst, n: int) -> dict:
    m = src.shape[0]
    slots = xp.arange(m, dtype=xp.int64)
    return {"indptr": _indptr(xp, _xp.bincount(src, minlength=n)), "indices": xp.astype(dst, xp.int32),
            "slot_edge": xp.astype(slots, xp.int32), "edge_slots": xp.reshape(slots, (m, 1))}


def _csr_undirected_sorted(xp: ModuleType, src, dst, n: int) -> dict:
    m = int(src.shape[0])
    it = xp.int32 if 2 * m < 2**31 else xp.int64  # slot numbers: int32 temporaries where they fit
    n_as_dst, n_as_src = _xp.bincount(dst, minlength=n), _xp.bincount(src, minlength=n)
    indptr = _indptr(xp, n_as_dst + n_as_src)
    by_dst = xp.astype(_xp.stable_argsort(dst), it)
    # slot of the k-th edge in dst order: row start + its rank among the row's dst edges
    #   = indptr[r] + k - (dst edges of rows < r) = k + (src edges of rows < r)
    src_before = xp.astype(xp.cumulative_sum(n_as_src) - n_as_src, it)
    dst_slot = xp.arange(m, dtype=it) + xp.take(src_before, xp.take(dst, by_dst))
    del src_before
    # slot of edge e in its src row s: after the row's dst edges, e - (edges with src < s) into the rest
    #   = indptr[s] + n_as_dst[s] + e - (src edges of rows < s) = e + (dst edges of rows <= s)
    src_slot = xp.arange(m, dtype=it) + xp.take(xp.astype(xp.cumulative_sum(n_as_dst), it), src)
    # each temporary is dropped as soon as it is used up: the peak is the outputs plus 12 bytes an edge
    slot_edge = _xp.scatter(xp.empty(2 * m, dtype=xp.int32), src_slot, xp.arange(m, dtype=xp.int32))
    slot_edge = _xp.scatter(slot_edge, dst_slot, xp.astype(by_dst, xp.int32, copy=False))
    indices = _xp.scatter(xp.empty(2 * m, dtype=xp.int32), src_slot, xp.astype(dst, xp.int32, copy=False))
    del src_slot
    indices = _xp.scatter(indices, dst_slot, xp.astype(xp.take(src, by_dst), xp.int32, copy=False))
    return {"indptr": indptr, "indices": indices, "slot_edge": slot_edge}


def edge_slots_from_csr(xp: ModuleType, indices, slot_edge, edge_dst, directed: bool):
    """The CSR slot(s) of each edge (int64, m x 2 undirected / m x 1 directed), from the CSR.

    Undirected, column 0 is the slot in ``edge_src``'s row, the one whose
    neighbour is ``edge_dst`` (an edge is never a self loop).
    """
    m = int(edge_dst.shape[0])
    width = 1 if directed else 2
    slots = xp.arange(width * m, dtype=xp.int64)
    if directed:
        column = slot_edge
    else:  # flat position 2e (src's row) or 2e + 1 (dst's row)
        column = xp.astype(slot_edge, xp.int64) * 2 + xp.astype(
            xp.take(edge_dst, slot_edge) != indices, xp.int64)
    return xp.reshape(_xp.scatter(xp.empty(width * m, dtype=xp.int64), column, slots), (m, width))


def _csr_general(xp: ModuleType, src, dst, n: int, directed: bool) -> dict:
    """Any edge list: one stable sort of every slot on the key (row, neighbour)."""
    m = int(src.shape[0])
    eid = xp.arange(m, dtype=xp.int64)
    if directed:
        rows, cols, slot_eid = src, dst, eid
    else:
        rows, cols, slot_eid = xp.concat([src, dst]), xp.concat([dst, src]), xp.concat([eid, eid])
    order = _xp.stable_argsort(xp.astype(rows, xp.int64) * max(n, 1) + xp.astype(cols, xp.int64))
    counts = _xp.bincount(rows, minlength=n) if m else xp.zeros(n, dtype=xp.int64)
    slot_of = _xp.scatter(xp.empty(order.shape[0], dtype=xp.int64), order,
                          xp.arange(order.shape[0], dtype=xp.int64))
    edge_slots = xp.reshape(slot_of, (m, 1)) if directed else xp.stack([slot_of[:m], slot_of[m:]], axis=1)
    return {"indptr": _indptr(xp, counts), "indices": xp.astype(xp.take(cols, order), xp.int32),
            "slot_edge": xp.astype(xp.take(slot_eid, order), xp.int32), "edge_slots": edge_slots}
