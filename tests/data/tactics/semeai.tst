# semeai: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/semeai-3v3.sgf
1 reg_genmove black
#? [C1|C2|C3]
2 reg_genmove white
#? [F1|G2|G3]

loadsgf tests/data/tactics/semeai-3v3-turned.sgf
3 reg_genmove white
#? [A7|B7|C7]
4 reg_genmove black
#? [A4|B3|C3]
