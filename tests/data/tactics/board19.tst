# board19: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/19-nakade-straight3.sgf
1 reg_genmove black
#? [B2]
2 reg_genmove white
#? [B2]

loadsgf tests/data/tactics/19-end-pass.sgf
3 reg_genmove black
#? [PASS]

loadsgf tests/data/tactics/19-cut.sgf
4 reg_genmove black
#? [K10]
5 reg_genmove white
#? [K10]
