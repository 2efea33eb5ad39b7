# connect: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/connect-capture.sgf
1 reg_genmove black
#? [E7]
2 reg_genmove white
#? [E7]

loadsgf tests/data/tactics/connect-capture-turned.sgf
3 reg_genmove white
#? [C5]
4 reg_genmove black
#? [C5]
