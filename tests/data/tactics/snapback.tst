# snapback: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/snapback-connect.sgf
1 reg_genmove black
#? [E1]
2 reg_genmove white
#? [E1]

loadsgf tests/data/tactics/snapback-connect-turned.sgf
3 reg_genmove white
#? [A5]
4 reg_genmove black
#? [A5]
