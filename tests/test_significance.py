"""significance(): seeded null samples, calibrated p-values, null models that keep what they claim."""

from itertools import combinations

import numpy as np
import pytest

import rapids_balance as rb
from rapids_balance import GraphInputError, InvalidParameterError
from rapids_balance.graph import build_graph
from rapids_balance.null_models import null_histogram, significance
from rapids_balance.null_models._nulls import sample_seed, shuffled_signs, swapped_graph
from rapids_balance.measures import census_of_triangles, list_triangles


def random_graph(n, p, neg, seed):
    """G(n, p) plus a path (connected), signs independent with P(-) = neg."""
    rng = np.random.default_rng(seed)
    pairs = {(v, v + 1) for v in range(n - 1)}
    pairs |= {(u, v) for u, v in combinations(range(n), 2) if rng.random() < p}
    src, dst = np.array(sorted(pairs)).T
    return build_graph(src, dst, sign=np.where(rng.random(src.size) < neg, -1, 1))


def balanced_graph(n, p, seed):
    """Signs from a random bipartition: every cycle is balanced (frustration 0)."""
    g = random_graph(n, p, 0.0, seed)
    side = np.random.default_rng(seed + 1).integers(0, 2, g.n)
    sign = np.where(side[g.edge_src] == side[g.edge_dst], 1, -1)
    return build_graph(g.edge_src, g.edge_dst, sign=sign)


def values(res):
    return res.null_distribution["value"].to_numpy()


def test_public_name_is_the_function():
    assert rb.significance is significance and callable(rb.significance)


def test_triangle_census_matches_brute_force():
    g = random_graph(25, 0.3, 0.4, 0)
    sign = {(int(a), int(b)): int(s) for a, b, s in zip(g.edge_src, g.edge_dst, g.sign)}
    want = np.zeros(4, int)
    for a, b, c in combinations(range(g.n), 3):
        if (a, b) in sign and (b, c) in sign and (a, c) in sign:
            want[(sign[a, b] < 0) + (sign[b, c] < 0) + (sign[a, c] < 0)] += 1
    assert (census_of_triangles(list_triangles(g.edge_src, g.edge_dst, g.n), g.sign) == want).all()
    res = significance(g, "triangles", n_samples=5, progress=False)
    assert res.observed == pytest.approx((want[0] + want[2]) / want.sum())


@pytest.mark.parametrize("statistic,null", [("triangles", "shuffle"), ("triangles", "swap"),
                                            ("frustration", "shuffle"), ("frustration", "swap")])
def test_same_seed_same_samples_whatever_the_batches(statistic, null):
    g = random_graph(30, 0.25, 0.3, 1)
    runs = [significance(g, statistic, null, n_samples=12, seed=5, batch_size=b, progress=False)
            for b in (1, 5, 12)]
    for r in runs[1:]:
        assert np.array_equal(values(r), values(runs[0]))
        assert r.p_value == runs[0].p_value and r.observed == runs[0].observed
    other = significance(g, statistic, null, n_samples=12, seed=6, progress=False)
    assert not np.array_equal(values(other), values(runs[0]))


def test_dask_workers_give_the_same_samples():
    distributed = pytest.importorskip("distributed")
    g = random_graph(30, 0.25, 0.3, 2)
    local = significance(g, "triangles", "swap", n_samples=20, seed=3, progress=False)
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            res = significance(g, "triangles", "swap", n_samples=20, seed=3, batch_size=3,
                               client=client, progress=False)
            # every worker readied the statistic's kernels first, and said how long it took
            assert set(res.info["seconds_compile_workers"]) == set(
                client.scheduler_info()["workers"])
        assert np.array_equal(values(res), values(local))
        assert res.p_value == local.p_value


def test_shuffle_keeps_topology_and_sign_count():
    g = random_graph(40, 0.2, 0.35, 3)
    for i in range(5):
        s = shuffled_signs(g.sign, sample_seed(9, i))
        assert np.sort(s).tolist() == np.sort(g.sign).tolist()
    assert not np.array_equal(shuffled_signs(g.sign, sample_seed(9, 0)), g.sign)


def test_swap_keeps_signed_degrees_and_simplicity():
    g = random_graph(40, 0.2, 0.35, 4)

    def signed_degrees(h):
        out = np.zeros((2, h.n), int)
        for row, mask in enumerate((h.sign > 0, h.sign < 0)):
            np.add.at(out[row], h.edge_src[mask], 1)
            np.add.at(out[row], h.edge_dst[mask], 1)
        return out

    for i in range(5):
        h = swapped_graph(g, sample_seed(11, i), 10)
        assert h.m == g.m and (h.edge_src < h.edge_dst).all()
        key = h.edge_src.astype(np.int64) * h.n + h.edge_dst
        assert np.unique(key).size == h.m
        assert (signed_degrees(h) == signed_degrees(g)).all()
        old = set(zip(g.edge_src.tolist(), g.edge_dst.tolist()))
        assert len(old - set(zip(h.edge_src.tolist(), h.edge_dst.tolist()))) > g.m // 3


@pytest.mark.parametrize("null", ["shuffle", "swap"])
def test_balanced_graph_gets_the_smallest_p_value(null):
    g = balanced_graph(40, 0.15, 5)
    res = significance(g, "frustration", null, n_samples=19, seed=0, progress=False)
    assert res.observed == 0 and res.p_value == pytest.approx(1 / 20) and res.z_score < -3
    tri = significance(g, "triangles", null, n_samples=19, seed=0, progress=False)
    assert tri.observed == 1.0 and tri.p_value == pytest.approx(1 / 20)


@pytest.mark.parametrize("null", ["shuffle", "swap"])
def test_random_signs_give_roughly_uniform_p_values(null):
    # the observed graph is itself a draw of the null: P(p <= a) <= a, and p is not stuck
    ps = np.array([significance(random_graph(30, 0.3, 0.4, 100 + k), "triangles", null,
                                n_samples=39, seed=k, progress=False).p_value
                   for k in range(40)])
    assert 0.3 <= ps.mean() <= 0.7
    assert (ps <= 0.1).sum() <= 10      # 4 expected
    assert (ps <= 0.5).sum() >= 10      # 20 expected


def test_callable_statistic_and_alternatives():
    g = random_graph(30, 0.25, 0.3, 6)

    def negative_share(graph):
        return float((graph.sign < 0).mean())

    res = significance(g, negative_share, "swap", n_samples=10, progress=False)
    assert res.statistic == "negative_share" and res.alternative == "two-sided"
    assert (values(res) == res.observed).all() and res.p_value == 1.0  # swaps keep sign counts
    less = significance(g, "triangles", n_samples=30, alternative="less", progress=False)
    greater = significance(g, "triangles", n_samples=30, alternative="greater", progress=False)
    assert np.array_equal(values(less), values(greater))
    assert less.p_value + greater.p_value >= 1.0


def test_time_limit_keeps_a_prefix():
    g = random_graph(30, 0.25, 0.3, 7)
    full = significance(g, "triangles", n_samples=40, batch_size=4, progress=False)
    cut = significance(g, "triangles", n_samples=40, batch_size=4, time_limit=0, progress=False)
    assert cut.stopped == "time_limit" and cut.n_samples == 4
    assert np.array_equal(values(cut), values(full)[:4])


def test_histogram_picture():
    pytest.importorskip("matplotlib")
    res = significance(rb.load_example("highland"), "triangles", n_samples=30, progress=False)
    ax = null_histogram(res, bins=10)
    assert len(ax.patches) == 10 and len(ax.lines) == 1
    assert res.plot().get_xlabel().startswith("triangles")


def test_bad_input_is_refused_before_work():
    g = random_graph(20, 0.3, 0.3, 8)
    for kw, name in [(dict(statistic="cycles"), "statistic"), (dict(null="rewire"), "null"),
                     (dict(n_samples=0), "n_samples"), (dict(seed=-1), "seed"),
                     (dict(alternative="both"), "alternative"), (dict(swaps_per_edge=0), "swaps"),
                     (dict(batch_size=0), "batch_size"), (dict(backend="tpu"), "backend"),
                     (dict(time_limit=-1.0), "time_limit"), (dict(client="x"), "client")]:
        with pytest.raises(InvalidParameterError, match=name):
            significance(g, **{"progress": False, **kw})
    with pytest.raises(GraphInputError, match="signed"):
        significance(build_graph(np.array([0, 1]), np.array([1, 2])), progress=False)
    tree = build_graph(np.array([0, 1, 1]), np.array([1, 2, 3]), sign=[1, -1, 1])
    with pytest.raises(GraphInputError, match="no triangles"):
        significance(tree, "triangles", progress=False)


def test_frustration_statistic_adds_up_over_components():
    from rapids_balance.frustration_index import frustration_index_exact
    from rapids_balance.null_models._statistics import resolve_statistic

    pytest.importorskip("highspy")
    a, b = random_graph(12, 0.4, 0.4, 20), random_graph(10, 0.4, 0.4, 21)
    src = np.concatenate([a.edge_src, b.edge_src + a.n, [a.n + b.n]])  # plus a lone edge
    dst = np.concatenate([a.edge_dst, b.edge_dst + a.n, [a.n + b.n + 1]])
    sign = np.concatenate([a.sign, b.sign, [-1]])
    both = rb.SignedGraph(edge_src=src, edge_dst=dst, n_vertices=a.n + b.n + 2,
                          labels=np.arange(a.n + b.n + 2), directed=False, sign=sign)
    value = resolve_statistic("frustration", "test").value(both, 0, "cpu")
    exact = frustration_index_exact(a).index + frustration_index_exact(b).index
    assert exact <= value <= exact + 1  # 16 trees and one round: optimal or nearly on 12 vertices


def test_walk_statistic_is_the_log_walk_score():
    from rapids_balance.measures import walk_balance

    g = random_graph(20, 0.3, 0.3, 8)
    a = significance(g, "walk", n_samples=6, seed=3, progress=False)
    b = significance(g, "walk", n_samples=6, seed=3, batch_size=2, progress=False)
    assert a.observed == pytest.approx(walk_balance(g).log_score, rel=1e-12)
    np.testing.assert_array_equal(a.null_distribution.to_numpy(), b.null_distribution.to_numpy())


@pytest.mark.simulator
def test_gpu_shuffles_are_the_cpu_shuffles(gpu_backend):
    from rapids_balance.backend import to_host
    from rapids_balance.null_models._gpu import shuffled_signs_gpu

    g = random_graph(12, 0.4, 0.3, 4)
    seeds = [sample_seed(9, i) for i in range(5)]
    got = to_host(shuffled_signs_gpu(g.sign, seeds))
    assert got.shape == (5, g.m)
    for row, s in zip(got, seeds):
        assert np.array_equal(row, shuffled_signs(g.sign, s))


@pytest.mark.simulator
def test_gpu_triangle_null_equals_cpu_whatever_the_batches(gpu_backend):
    from rapids_balance.backend import launch_counts

    g = random_graph(12, 0.4, 0.3, 4)
    cpu = significance(g, "triangles", n_samples=7, seed=2, backend="cpu", progress=False)
    launches = launch_counts["launches"]
    gpu = significance(g, "triangles", n_samples=7, seed=2, batch_size=4, backend=gpu_backend,
                       progress=False)
    assert launch_counts["launches"] - launches == 4  # shuffles and type counts, per batch
    assert np.array_equal(values(gpu), values(cpu))
    assert (gpu.observed, gpu.p_value, gpu.z_score) == (cpu.observed, cpu.p_value, cpu.z_score)


@pytest.mark.simulator
def test_gpu_frustration_null_equals_cpu(gpu_backend):
    # the frustration statistic takes the GPU frustration path on the graph and every sample
    g = random_graph(10, 0.35, 0.4, 3)
    cpu = significance(g, "frustration", n_samples=2, seed=1, backend="cpu", progress=False)
    gpu = significance(g, "frustration", n_samples=2, seed=1, backend=gpu_backend, progress=False)
    assert np.array_equal(values(gpu), values(cpu)) and gpu.observed == cpu.observed


def test_quiet_by_default_in_a_script_or_log(capsys):
    # stderr captured (not a terminal): the default draws nothing, as every other function
    g = rb.load_example("highland")
    significance(g, "triangles", "swap", n_samples=20, seed=0)
    assert capsys.readouterr().err == ""
    significance(g, "triangles", n_samples=20, seed=0, progress=True)
    assert "null samples" in capsys.readouterr().err
    with pytest.raises(InvalidParameterError, match="progress"):
        significance(g, "triangles", n_samples=2, progress=1)
