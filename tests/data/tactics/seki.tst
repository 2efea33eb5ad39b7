# seki: tactics suite (see docs/results/tactics.md)

loadsgf tests/data/tactics/seki-edge-b.sgf
1 reg_genmove black
#? [!A1|F1]

loadsgf tests/data/tactics/seki-edge-w.sgf
2 reg_genmove white
#? [!A1|F1]

loadsgf tests/data/tactics/end-seki-pass.sgf
3 reg_genmove black
#? [PASS]

loadsgf tests/data/tactics/seki-edge-turned.sgf
4 reg_genmove white
#? [!J9|D9]
