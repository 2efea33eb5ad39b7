# eyeshape: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/eye-crossed5.sgf
1 reg_genmove black
#? [E2]
2 reg_genmove white
#? [E2]

loadsgf tests/data/tactics/eye-crossed5-turned.sgf
3 reg_genmove white
#? [B5]
