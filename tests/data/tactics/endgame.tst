# endgame: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/end-pass-b.sgf
1 reg_genmove black
#? [PASS]

loadsgf tests/data/tactics/end-pass-w.sgf
2 reg_genmove white
#? [PASS]

loadsgf tests/data/tactics/end-dame.sgf
3 reg_genmove black
#? [E7|E5|E3]
