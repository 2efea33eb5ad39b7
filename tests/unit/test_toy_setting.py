"""A new setting by HACKING's recipe ("Adding a setting"): one field in its
table's dataclass in engine/config.py and nothing else.  The test makes
that one-line change to a copy of the module and checks that the key then
loads from a file and from --set, is range-checked and named when bad,
takes per-size values, goes over go-param's path (replace) and appears in
configs/default.toml's text, with no other file touched."""
import importlib.util
import os

import pytest

from tests.conftest import ROOT

ANCHOR = "class SearchConfig:\n"
TOY = '    toy: int = _f(3, 0, 10, doc="a toy setting, read by nothing")\n'


@pytest.fixture
def cfgmod(tmp_path):
    src = open(os.path.join(ROOT, "engine", "config.py"), encoding="utf-8").read()
    head, sep, rest = src.partition(ANCHOR)
    assert sep, "engine/config.py has no SearchConfig"
    line, nl, body = rest.partition("\n")          # the class's first field line
    path = tmp_path / "config_with_toy.py"
    path.write_text(head + sep + TOY + line + nl + body, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("config_with_toy", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_toy_setting_works_everywhere_from_its_one_field(cfgmod, tmp_path):
    C = cfgmod
    assert C.load().search.toy == 3
    assert C.load(None, ["search.toy=5"]).search.toy == 5
    (tmp_path / "t.toml").write_text("[search]\ntoy = 7\n[size.19.search]\ntoy = 9\n")
    c = C.load(str(tmp_path / "t.toml"))
    assert c.search.toy == 7 and C.at_size(c, 9).search.toy == 7 and C.at_size(c, 19).search.toy == 9
    assert C.replace(C.at_size(c, 19), **{"search.toy": "2"}).search.toy == 2     # go-param's path
    for bad, why in (("search.toy=11", "search.toy: 11 is above the maximum 10"),
                     ("search.toy=two", "search.toy"), ("size.13.search.toy=-1", "size.13.search.toy")):
        with pytest.raises(C.ConfigError, match=why):
            C.load(None, [bad])
    text = C.default_toml()
    assert "toy = 3" in text and "a toy setting, read by nothing (default 3; 0 .. 10)" in text
    assert ("search.toy", 3, "a toy setting, read by nothing") in C.describe(C.load())
