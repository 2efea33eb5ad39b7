# ladder: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/ladder-dead-nakade.sgf
1 reg_genmove white
#? [B2]
2 reg_genmove black
#? [B2]

loadsgf tests/data/tactics/ladder-capture-cut.sgf
3 reg_genmove black
#? [E7]

loadsgf tests/data/tactics/ladder-cut-white.sgf
4 reg_genmove white
#? [E7]

loadsgf tests/data/tactics/ladder-breaker.sgf
5 reg_genmove black
#? [D6]
