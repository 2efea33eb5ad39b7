# nakade: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/nakade-straight3.sgf
1 reg_genmove black
#? [B2]
2 reg_genmove white
#? [B2]

loadsgf tests/data/tactics/nakade-bent3.sgf
3 reg_genmove black
#? [A1]
4 reg_genmove white
#? [A1]

loadsgf tests/data/tactics/nakade-pyramid4.sgf
5 reg_genmove black
#? [B1]
6 reg_genmove white
#? [B1]

loadsgf tests/data/tactics/nakade-bulky5.sgf
7 reg_genmove black
#? [B1]
8 reg_genmove white
#? [B1]

loadsgf tests/data/tactics/nakade-straight3-turned.sgf
9 reg_genmove white
#? [H8]
10 reg_genmove black
#? [H8]

loadsgf tests/data/tactics/nakade-bent3-turned.sgf
11 reg_genmove white
#? [A1]
12 reg_genmove black
#? [A1]

loadsgf tests/data/tactics/nakade-pyramid4-turned.sgf
13 reg_genmove white
#? [J2]
14 reg_genmove black
#? [J2]

loadsgf tests/data/tactics/nakade-bulky5-turned.sgf
15 reg_genmove white
#? [B9]
16 reg_genmove black
#? [B9]
