"""Plain-Python references shared by several test files (no library code).

Written from the rules in the issues: graphB+'s 32-bit hash and its BFS
parent rule.
"""

M32 = 0xFFFFFFFF


def ref_hash(x: int) -> int:
    """graphB+'s hash in unsigned 32-bit arithmetic."""
    x &= M32
    x = (((x >> 16) ^ x) * 0x45D9F3B) & M32
    x = (((x >> 16) ^ x) * 0x45D9F3B) & M32
    return ((x >> 16) ^ x) & M32


def ref_signed(x: int) -> int:
    """An unsigned 32-bit value read as signed."""
    return x - (1 << 32) if x >= (1 << 31) else x


def ref_bfs(adj, root, seed):
    """Level-by-level BFS; v's parent is the argmax of (signed hash, u) over level-L neighbours.

    Returns (parent, depth) dicts; the root's parent is -1.
    """
    s = seed & M32
    s2 = (s * s + s) & M32
    depth, parent, front, level = {root: 0}, {root: -1}, [root], 0
    while front:
        b = (level & 1) | 2
        cand = {}
        for u in front:
            for v in adj[u]:
                if v not in depth:
                    cand.setdefault(v, []).append(u)
        for v, us in cand.items():
            parent[v] = max(us, key=lambda u: (ref_signed(ref_hash(((u << 2) | b) ^ v ^ s2)), u))
            depth[v] = level + 1
        front = sorted(cand)
        level += 1
    return parent, depth
