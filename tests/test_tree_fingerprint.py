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
