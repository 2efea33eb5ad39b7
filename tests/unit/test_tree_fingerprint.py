"""The trees for fixed seeds are the trees the engine made before its tree
was split into node store, walk and tree policies (tests/tree_fingerprint.py)."""
import json

import pytest

from tests import tree_fingerprint as tf

with open(tf.PATH) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("case", tf.CASES, ids=[c[0] for c in tf.CASES])
def test_same_tree_for_fixed_seed(case):
    got = tf.fingerprint(case)
    want = EXPECTED[case[0]]
    assert [list(r) for r in got["top"]] == want["top"]
    assert got["nodes"] == want["nodes"]
    assert got["sha"] == want["sha"]
    assert got["prior_sum"] == pytest.approx(want["prior_sum"], rel=1e-6, abs=1e-3)
    assert got["prior_moment"] == pytest.approx(want["prior_moment"], rel=1e-6, abs=1e-2)
    assert got["p_sum"] == pytest.approx(want["p_sum"], rel=1e-6, abs=1e-3)
    assert got["p_moment"] == pytest.approx(want["p_moment"], rel=1e-6, abs=1e-2)
