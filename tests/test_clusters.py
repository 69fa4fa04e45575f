"""Clustered inference: judgments sharing a question, for both shapes of data.

The cluster-robust covariances are checked against literal loops over battles and items, and
against exact properties: k copies of every battle inside its own cluster leave the clustered
covariance where one copy's cluster-robust covariance was, and make the design effect k times
larger; data whose clusters hold one judgment each keep today's numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from debias.data import EvalSample, JudgedPairs
from debias.stats.common.clusters import (
    FEW_CLUSTERS,
    cluster_codes,
    cluster_robust_covariance,
    cluster_sums,
    few_clusters,
)
from debias.stats.common.status import draw_next, question_status
from debias.stats.preferences.battles import FEW_CLUSTERED, Battles, human_counts
from debias.stats.preferences.bradley_terry import _bt_core, bradley_terry
from debias.stats.preferences.status import contrast_times, first_votes
from debias.stats.preferences.win_rate import win_rate_core, win_rates
from debias.stats.ratings import RatedSystem, ratings_estimates
from debias.stats.ratings.clustered import cluster_influence, clustered_interval
from debias.stats.ratings.estimate import estimate_mean


def question_world(seed=0, n_questions=40, n_systems=5, sigma=1.0, human_share=1.0, judge=False):
    """Every pair of systems on every question, a question-by-system effect of sd ``sigma``."""
    rng = np.random.default_rng(seed)
    beta = np.linspace(-1.0, 1.0, n_systems)
    first, second = np.triu_indices(n_systems, 1)
    names = np.array([f"s{i}" for i in range(n_systems)])
    u = rng.normal(0.0, sigma, (n_questions, n_systems))
    logit = beta[first] - beta[second] + u[:, first] - u[:, second]
    verdict = (rng.random(logit.shape) < expit(logit)).astype(float).ravel()
    verdict[rng.random(verdict.size) < 0.1] = 0.5
    items = np.repeat(np.arange(n_questions), first.size).astype(str)
    a, b = np.tile(names[first], n_questions), np.tile(names[second], n_questions)
    human = np.where(rng.random(verdict.size) < human_share, verdict, np.nan)
    judges = {"j": np.where(rng.random(verdict.size) < 0.8, verdict, 1.0 - verdict)} if judge else None
    return JudgedPairs.from_arrays(a, b, human, judges, items=items, systems=list(names))


def literal_win_rate_covariance(pairs):
    """Per-battle influences of people's win rates (ties half), summed per cluster by a loop."""
    a, b, v = pairs.system_a, pairs.system_b, pairs.human_mean
    codes = pairs.cluster_codes
    s, g = pairs.n_systems, int(codes.max()) + 1
    totals = np.zeros((g, s))
    for system in range(s):
        mine = np.flatnonzero((a == system) | (b == system))
        score = np.where(a[mine] == system, v[mine], 1.0 - v[mine])
        for battle, value in zip(mine, score):
            totals[codes[battle], system] += (value - score.mean()) / mine.size
    return g / (g - 1.0) * totals.T @ totals


def test_cluster_sums_and_codes_match_a_loop():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(3, 7, 2))
    codes = np.array([2, 0, 1, 0, 2, 2, 1])
    out = cluster_sums(values, codes, 3)
    for r in range(3):
        for c in range(3):
            np.testing.assert_allclose(out[r, c], values[r, codes == c].sum(axis=0))
    (x, y), n = cluster_codes(["q2", "q1"], ["q1", "q3"])
    assert n == 3 and x.tolist() == [0, 1] and y.tolist() == [1, 2]
    with pytest.raises(ValueError, match="values for"):
        cluster_sums(values, codes[:5], 3)


def test_clustered_win_rates_match_a_literal_loop():
    pairs = question_world(sigma=1.0)
    assert pairs.clustered and pairs.n_clusters == 40
    groups, forms = Battles.of(pairs).labelled("half")
    clustered = win_rate_core(groups, forms[0], [])[4]
    np.testing.assert_allclose(clustered.covariance, literal_win_rate_covariance(pairs), rtol=1e-10, atol=1e-14)


def test_singleton_clusters_give_the_independent_covariance_times_each_systems_g_over_g_minus_1():
    pairs = question_world(seed=3, human_share=0.4, judge=True)
    battles = pairs.n_battles
    for judges in ([], [1]):
        groups, forms = Battles.of(pairs).labelled("half")
        predictions = [forms[j] for j in judges]
        weights = np.full(len(judges), 0.6)
        independent = win_rate_core(groups, forms[0], predictions, weights=weights)[1]
        from debias.stats.preferences.battles import labelled_groups

        single, _ = labelled_groups(pairs, "half", pairs.labelled, clusters=np.arange(battles))
        clustered = win_rate_core(single, forms[0], predictions, weights=weights)[4]
        g = clustered.present.sum(axis=0)  # each system's clusters: its human battles, one each
        assert g.tolist() == human_counts(pairs).tolist()
        root = np.sqrt(g / (g - 1.0))
        np.testing.assert_allclose(clustered.covariance / np.outer(root, root), independent, rtol=1e-9)


def copies(pairs, k):
    """Every battle k times, each copy in its battle's own cluster."""
    index = np.repeat(np.arange(pairs.n_battles), k)
    out = pairs.take(index)
    return JudgedPairs(
        out.systems, out.system_a, out.system_b, out.human, out.human_counts, items=out.items,
        clusters=np.repeat(np.arange(pairs.n_battles), k).astype(str),
    )  # fmt: skip


@pytest.mark.parametrize("estimand", ["win_rate", "strength"])
def test_copies_inside_a_cluster_change_the_design_effect_not_the_clustered_variance(estimand):
    pairs = question_world(seed=5, n_questions=30)
    plain = JudgedPairs(pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts)
    doubled = copies(plain, 3)
    fit = win_rates if estimand == "win_rate" else bradley_terry
    one, three = fit(plain, level=0.9), fit(doubled, level=0.9)
    assert one.n_clusters is None and three.n_clusters is not None
    np.testing.assert_allclose(three.estimate, one.estimate, atol=1e-9)
    g = plain.n_battles
    # 3 copies of independent battles: 3 times the variance of independence (CR1's g/(g-1) on
    # top; the strengths' independent sandwich has its own ddof, a difference of O(1/g))
    np.testing.assert_allclose(three.design_effect, 3.0 * g / (g - 1.0), rtol=0.02)


def test_items_shared_by_battles_are_the_default_clusters_and_distinct_items_keep_the_numbers():
    pairs = question_world(seed=2)
    result = win_rates(pairs, level=0.9)
    assert result.n_clusters.tolist() == [40] * 5
    assert np.all(result.design_effect > 1.0)
    distinct = JudgedPairs(
        pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts,
        items=np.arange(pairs.n_battles).astype(str),
    )  # fmt: skip
    bare = JudgedPairs(pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts)
    for fit in (win_rates, bradley_terry):
        x, y = fit(distinct, level=0.9), fit(bare, level=0.9)
        assert x.n_clusters is None and x.design_effect is None
        np.testing.assert_array_equal(x.covariance, y.covariance)
        np.testing.assert_array_equal(x.ci_low, y.ci_low)


def test_explicit_clusters_override_the_items():
    pairs = question_world(seed=2, n_questions=20)
    grouped = JudgedPairs(
        pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts, items=pairs.items,
        clusters=np.array([str(int(i) // 2) for i in pairs.items], dtype=object),
    )  # fmt: skip
    assert grouped.n_clusters == 10 and pairs.n_clusters == 20
    result = win_rates(grouped, level=0.9)
    assert result.n_clusters.tolist() == [10] * 5
    assert all(few_clusters(10) in note for note in result.notes)
    with pytest.raises(ValueError, match="no cluster"):
        JudgedPairs.from_arrays(["x", "y"], ["y", "x"], [1, 0], clusters=["q1", ""])


def test_clustered_intervals_use_t_with_the_clusters_less_one():
    pairs = question_world(seed=4, n_questions=25)
    groups, forms = Battles.of(pairs).labelled("half")
    _, independent, _, _, clustered = win_rate_core(groups, forms[0], [])
    result = win_rates(pairs, level=0.9)
    from debias.stats.common.intervals import proportion_covariance, small_sample_scale

    observations = np.full(5, 4.0 * 25)
    widened = np.diag(proportion_covariance(result.estimate, clustered.covariance, observations, 0.9))
    expected = np.sqrt(widened) * small_sample_scale(np.full(5, 24.0), 0.9)
    np.testing.assert_allclose(result.se, expected, rtol=1e-9)


def test_a_system_in_one_cluster_has_no_interval():
    a, b = ["x", "x", "y", "z"] * 3, ["y", "z", "z", "x"] * 3
    items = ["q1"] * 4 + ["q2"] * 4 + ["q3"] * 4
    human = [1, 0, 1, 0.5] * 3
    pairs = JudgedPairs.from_arrays(a, b, human, items=items)
    lone = JudgedPairs.from_arrays(a + ["w"], b + ["x"], human + [1], items=items + ["q1"])
    result = win_rates(lone, level=0.9)
    w = lone.systems.index("w")
    assert result.notes[w] in (FEW_CLUSTERED, "one human battle: no interval")
    assert np.isnan(result.ci_low[w])
    assert np.isfinite(win_rates(pairs, level=0.9).ci_low).all()


def literal_bt_clustered(pairs, theta):
    """The clustered sandwich of people's Bradley-Terry strengths by a loop over battles."""
    a, b, v, codes = pairs.system_a, pairs.system_b, pairs.human_mean, pairs.cluster_codes
    s, n, g = pairs.n_systems, pairs.n_battles, pairs.n_clusters
    hessian, gradients = np.zeros((s, s)), np.zeros((n, s))
    for i in range(n):
        x = np.zeros(s)
        x[a[i]], x[b[i]] = 1.0, -1.0
        p = expit(theta[a[i]] - theta[b[i]])
        hessian += p * (1 - p) * np.outer(x, x) / n
        gradients[i] = (p - v[i]) * x
    gradients -= gradients.mean(axis=0)
    totals = np.zeros((g, s))
    for i in range(n):
        totals[codes[i]] += gradients[i] / n
    inverse = np.linalg.pinv(hessian)
    return inverse @ (g / (g - 1.0) * totals.T @ totals) @ inverse


def test_clustered_bradley_terry_matches_a_literal_loop():
    pairs = question_world(seed=6, n_questions=30)
    groups, forms = Battles.of(pairs).labelled("half")
    theta, _, _, _, clustered = _bt_core(groups, forms[0][0], [])
    np.testing.assert_allclose(clustered.covariance, literal_bt_clustered(pairs, theta), rtol=1e-6, atol=1e-12)


def test_ppi_weights_are_tuned_on_the_clustered_variance():
    pairs = question_world(seed=7, n_questions=60, human_share=0.3, judge=True)
    groups, forms = Battles.of(pairs).labelled("half")
    weights = win_rate_core(groups, forms[0], [forms[1]])[3]
    trace = {}
    for w in (weights[0], weights[0] - 0.15, weights[0] + 0.15):
        clustered = win_rate_core(groups, forms[0], [forms[1]], weights=np.array([w]))[4]
        trace[w] = np.trace(clustered.covariance)
    best = weights[0]
    assert 0.0 < best <= 1.0
    assert trace[best] <= min(trace.values()) * (1 + 1e-3)


def test_status_counts_clusters_and_first_votes_keeps_whole_clusters():
    pairs = question_world(seed=8, n_questions=40)
    times = contrast_times(pairs, "win_rate")
    assert times[0, 1] == 40.0
    early = first_votes(pairs, 10)
    kept = np.unique(early.cluster_codes[early.labelled])
    assert kept.size == 10
    assert early.labelled.sum() == 10 * 10  # each question holds the 10 pairs of 5 systems
    joint = win_rates(pairs, level=0.9)
    state = question_status(joint, "top:1", level=0.9)
    assert all(row.votes <= 40 for row in state.rows)


def test_draw_next_takes_whole_clusters_within_the_budget():
    pairs = question_world(seed=9)
    state = question_status(win_rates(pairs, level=0.9), "top:1", level=0.9)
    if state.resolved:
        pytest.skip("settled already")
    eligible = np.arange(40)
    clusters = eligible // 4
    chosen, note = draw_next(
        eligible, 10, np.random.default_rng(0), state, unit="battle", unjudged="new", among="all", remedy="",
        clusters=clusters,
    )  # fmt: skip
    assert chosen.size == 8 and np.unique(clusters[chosen]).size == 2  # never past the budget
    assert np.isin(clusters, clusters[chosen]).sum() == chosen.size  # each cluster taken whole
    assert "8 battles in 2 whole clusters (budget 10" in note


def document_world(seed=0, n_documents=40, items_per_document=3, judged_share=0.5):
    """Two systems answer every item of every document; a document effect and noise."""
    rng = np.random.default_rng(seed)
    documents = np.repeat(np.arange(n_documents), items_per_document).astype(str)
    items = np.array([f"{d}-{k}" for d, k in zip(documents, np.tile(np.arange(items_per_document), n_documents))])
    effect = np.repeat(rng.normal(0.0, 0.6, n_documents), items_per_document)
    systems = []
    for s, mu in enumerate((0.0, 0.3)):
        y = mu + effect + rng.normal(0.0, 0.5, items.size)
        g = y + rng.normal(0.0, 0.5, items.size)
        judged = rng.random(items.size) < judged_share
        sample = EvalSample.from_arrays(
            [[v] for v in y[judged]], g[judged, None], unjudged_scores=g[~judged, None], metrics=["m"],
            clusters=documents[judged], unjudged_clusters=documents[~judged],
        )  # fmt: skip
        outputs = np.concatenate([items[judged], items[~judged]])
        systems.append(RatedSystem(f"s{s}", sample, items[judged], outputs))
    return systems


def literal_cv_variance(sample):
    """The control variate's clustered variance by a loop: judged terms and every output's metric."""
    y, g = sample.judgments.item_means, sample.scores[:, 0]
    population = sample.population[:, 0]
    centre = population.mean()
    alpha = np.cov(y, g, ddof=0)[0, 1] / population.var()
    terms = y - alpha * (g - centre)
    n, big_n = y.size, population.size
    codes, g_count = cluster_codes(sample.clusters, sample.population_clusters)
    totals = np.zeros(g_count)
    for i in range(n):
        totals[codes[0][i]] += (terms[i] - terms.mean()) / n
    for o in range(big_n):
        totals[codes[1][o]] += alpha * (population[o] - centre) / big_n
    judged = np.unique(codes[0]).size  # the small-sample factor counts the judged clusters
    return judged / (judged - 1.0) * totals @ totals, terms.mean()


def test_clustered_control_variate_matches_a_literal_loop():
    sample = document_world(seed=1)[0].sample
    assert sample.clustered
    result = estimate_mean(sample, "cv:m", level=0.9)
    variance, estimate = literal_cv_variance(sample)
    assert result.estimate == pytest.approx(estimate)
    assert result.se**2 == pytest.approx(variance, rel=1e-6)
    judged_clusters = np.unique(sample.clusters).size
    assert result.df == judged_clusters - 1


def test_singleton_clusters_of_a_mean_give_the_plain_t_interval():
    rng = np.random.default_rng(2)
    y = rng.normal(size=25)
    sample = EvalSample.from_arrays([[v] for v in y], clusters=np.arange(25).astype(str))
    assert not sample.clustered  # one item per cluster: today's interval
    influence = cluster_influence(sample, y)
    clustered = clustered_interval(float(y.mean()), influence, level=0.9, n_outputs=25)
    assert clustered.se == pytest.approx(y.std(ddof=1) / 5.0)
    assert clustered.df == 24


def test_ratings_joint_estimates_carry_clusters_and_design_effects():
    joint, notes = ratings_estimates(document_world(seed=3), level=0.9)
    for name in ("mean", "cv:m", "ppi++:m"):
        result = joint[name]
        assert result.n_clusters is not None and np.all(result.n_clusters <= 40)
        assert np.all(result.design_effect > 1.0)
        np.testing.assert_allclose(np.sqrt(np.diag(result.covariance)), result.se, rtol=1e-9)
        assert result.covariance[0, 1] > 0  # the documents both systems answered move both


def test_samples_refuse_clusters_that_do_not_fit():
    with pytest.raises(ValueError, match="clusters for"):
        EvalSample.from_arrays([[1.0], [2.0]], clusters=["a"])
    with pytest.raises(ValueError, match="population_clusters"):
        EvalSample.from_arrays([[1.0], [2.0]], [0.1, 0.2], unjudged_scores=[0.3], metrics=["m"], clusters=["a", "a"])


def test_cluster_robust_covariance_and_notes():
    totals = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(cluster_robust_covariance(totals), 1.5 * totals.T @ totals)
    assert few_clusters(FEW_CLUSTERS) == "" and "5 clusters" in few_clusters(5)


def test_judge_bias_intervals_are_clustered_too():
    from debias.stats.preferences.agreement import judge_agreement

    pairs = question_world(seed=11, n_questions=40, judge=True)
    flat = JudgedPairs(
        pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts, pairs.judges,
        pairs.judge_verdicts,
    )  # fmt: skip
    (clustered,), (independent,) = judge_agreement(pairs, level=0.9), judge_agreement(flat, level=0.9)
    np.testing.assert_allclose(clustered.bias, independent.bias)
    assert np.all(clustered.bias_ci_high - clustered.bias_ci_low > 0)
    assert not np.allclose(
        clustered.bias_ci_high - clustered.bias_ci_low, independent.bias_ci_high - independent.bias_ci_low
    )


def test_paired_differences_are_clustered_when_items_share_documents():
    from debias.data import PairedSample
    from debias.stats.ratings.paired import paired_difference_ci

    first, second = document_world(seed=4, judged_share=1.0)
    a, b = first.sample, second.sample
    pair = PairedSample.from_samples(a, b)
    assert pair.clustered
    result = paired_difference_ci(pair, "mean", level=0.9)
    d = pair.differences
    codes, g = cluster_codes(pair.clusters)
    totals = np.bincount(codes[0], (d - d.mean()) / d.size, g)
    assert result.se**2 == pytest.approx(g / (g - 1.0) * totals @ totals)
    assert result.df == g - 1


def test_cluster_components_recover_a_known_world_and_the_plan_buys_clusters():
    from debias.stats.ratings import cluster_components, plan_clusters

    rng = np.random.default_rng(12)
    g, m = 400, 5
    clusters = np.repeat(np.arange(g), m).astype(str)
    values = np.repeat(rng.normal(0.0, 0.8, g), m) + rng.normal(0.0, 0.6, g * m)
    components = cluster_components(values, clusters)
    assert components.between == pytest.approx(0.64, rel=0.15)
    assert components.within == pytest.approx(0.36, rel=0.1)
    assert components.n_clusters == g and components.items_per_cluster == m
    plan = plan_clusters(components, 0.3, level=0.9, cost_per_cluster=1.0, cost_per_item=1.0)
    assert plan.clusters > 0 and plan.width <= 0.3
    variance = (components.between + components.within / plan.items_per_cluster) / plan.clusters
    from scipy.stats import t

    assert plan.width == pytest.approx(2 * t.ppf(0.95, plan.clusters - 1) * np.sqrt(variance))
    assert plan.design_effect == pytest.approx(1 + (plan.items_per_cluster - 1) * components.icc())
    # a strong cluster effect and cheap clusters: one item per cluster is cheapest
    assert plan_clusters(components, 0.3, level=0.9, cost_per_item=1.0).items_per_cluster == 1
    # clusters dear, items cheap: several items per cluster
    assert plan_clusters(components, 0.3, level=0.9, cost_per_cluster=20.0, cost_per_item=0.1).items_per_cluster > 1
    # a target no design meets
    assert plan_clusters(components, 1e-4, level=0.9).clusters == 0
    with pytest.raises(ValueError, match="two clusters"):
        cluster_components([1.0, 2.0], ["a", "b"])


def test_with_every_output_judged_the_control_variate_is_the_mean_interval_and_all():
    sample = document_world(seed=13, judged_share=1.0)[0].sample
    assert sample.n_judged == sample.n_outputs and sample.clustered
    mean, cv = estimate_mean(sample, "mean", level=0.9), estimate_mean(sample, "cv:m", level=0.9)
    assert cv.estimate == pytest.approx(mean.estimate)
    assert cv.se == pytest.approx(mean.se) and cv.ci_low == pytest.approx(mean.ci_low)


def test_a_plan_for_items_sharing_documents_is_in_clusters():
    import pandas as pd

    import debias

    rng = np.random.default_rng(14)
    rows = []
    for d in range(30):
        effect = rng.normal(0.0, 0.8)
        for k in range(4):
            value = 3.0 + effect + rng.normal(0.0, 0.5)
            for r in range(2):
                score = float(np.clip(np.round(value + rng.normal(0.0, 0.5)), 1, 5))
                rows.append({"seg": f"{d}-{k}", "doc": f"d{d}", "sys": "a", "score": score, "rater": f"r{r}"})
    frame = pd.DataFrame(rows)
    columns = {"item": "seg", "system": "sys", "judgment": "score", "rater": "rater"}
    # at level 0.8 the 30 documents the plan may draw suffice with one item each (at 0.95 they do not)
    target = {"target_widths": [0.6]}
    clustered = debias.plan(debias.read_ratings(frame, **columns, cluster="doc"), settings=target, level=0.8)
    plain = debias.plan(debias.read_ratings(frame, **columns), settings=target, level=0.8)
    assert "clusters" not in plain.columns
    row = clustered.iloc[0]
    assert row["n"] == row["clusters"] * row["items_per_cluster"] and row["design_effect"] >= 1
    assert row["planned_width"] <= 0.6
    assert row["items_per_cluster"] == 1  # clusters cost nothing more than items: one item each
    dear = debias.plan(
        debias.read_ratings(frame, **columns, cluster="doc"),
        settings={"target_widths": [0.6], "cost_per_cluster": 50},
        level=0.8,
    ).iloc[0]
    assert dear["items_per_cluster"] > 1 and dear["design_effect"] > 1


def test_ratings_in_one_cluster_have_no_interval_and_say_why():
    import pandas as pd

    import debias

    frame = pd.DataFrame(
        {"seg": ["a", "b", "c", "d"] * 2, "sys": ["s1"] * 4 + ["s2"] * 4, "score": [1, 2, 3, 4, 2, 3, 4, 5], "doc": "d"}
    )
    ratings = debias.read_ratings(frame, item="seg", system="sys", judgment="score", cluster="doc")
    table = debias.estimate(ratings)
    assert table["ci_low"].isna().all() and table["note"].str.contains("share one cluster").all()
    board = debias.leaderboard(ratings)
    assert board["estimate"].isna().all() and board["note"].str.contains("one cluster: no interval, not ranked").all()
    frame["doc"] = ["d1", "d1", "d2", "d2"] * 2
    table = debias.estimate(debias.read_ratings(frame, item="seg", system="sys", judgment="score", cluster="doc"))
    assert table["ci_low"].notna().all() and table["note"].str.contains("2 clusters").all()


def test_next_on_ratings_in_documents_draws_whole_documents():
    import pandas as pd

    import debias

    rng = np.random.default_rng(15)
    rows = []
    for d in range(40):
        for k in range(3):
            for s, mu in (("a", 3.0), ("b", 3.1), ("c", 3.2)):
                judged = d < 8
                score = float(np.clip(np.round(mu + rng.normal(0, 1)), 1, 5)) if judged else np.nan
                rows.append({"seg": f"{d}-{k}", "doc": f"d{d}", "sys": s, "score": score})
    ratings = debias.read_ratings(pd.DataFrame(rows), item="seg", system="sys", judgment="score", cluster="doc")
    chosen = debias.next_battles(ratings, "top:1", 10, seed=3)
    docs = {item.split("-")[0] for item in chosen.battles["item"]}
    per_doc = chosen.battles.assign(doc=chosen.battles["item"].str.split("-").str[0]).groupby("doc").size()
    assert 0 < len(chosen.battles) <= 10 and len(docs) == len(per_doc) and (per_doc % 3 == 0).all()


def test_pool_only_questions_do_not_count_among_the_clusters_behind_an_estimate():
    labelled = question_world(seed=16, n_questions=40, judge=True)
    pool = question_world(seed=17, n_questions=40, human_share=0.0, judge=True)
    pool_items = np.char.add("p", pool.items.astype(str))
    pairs = JudgedPairs(
        labelled.systems, np.concatenate([labelled.system_a, pool.system_a]),
        np.concatenate([labelled.system_b, pool.system_b]), labelled.human,
        np.concatenate([labelled.human_counts, pool.human_counts]), labelled.judges,
        np.concatenate([labelled.judge_verdicts, pool.judge_verdicts]),
        np.concatenate([labelled.items.astype(str), pool_items]),
    )  # fmt: skip
    assert pairs.n_clusters == 80
    result = win_rates(pairs, "ppi++:j", level=0.9)
    assert result.n_clusters.tolist() == [40] * 5  # the t and the G/(G - 1) count these


def test_a_judge_that_always_says_tie_has_a_design_effect_of_one():
    from debias.stats.common.clusters import design_effect

    assert design_effect([0.0, 2.0, 1.0], [0.0, 1.0, 0.0]).tolist()[:2] == [1.0, 2.0]
    pairs = question_world(seed=18, n_questions=30)
    ties = JudgedPairs(
        pairs.systems, pairs.system_a, pairs.system_b, pairs.human, pairs.human_counts, ("tie",),
        np.full((pairs.n_battles, 1), 0.5), pairs.items,
    )  # fmt: skip
    judge = win_rates(ties, "judge:tie", level=0.9)
    assert np.all(judge.design_effect == 1.0)
