# games: positions from the engine's own self-play (9x9, 500 simulations a move),
# where GNU Go level 10 sees one move far above the rest. Each answer was played
# out by GNU Go against the next-best move (or a pass where GNU Go lists no
# other move); where the game's komi did not split the two results, a komi line
# sets one that does, so the answer wins and the alternative loses.

# Black F5 cuts White's F column from G5 and puts F4 in atari (GNU Go: F5 48, H4 7.8).
# Played out: F5 B+2, H4 W+2.
loadsgf tests/data/tactics/game-selfplay-2.sgf 19
1 reg_genmove black
#? [F5]

# White A6 captures A5-B5, in atari, and joins White's groups (GNU Go: A6 58.7, no other move).
# Played out: A6 leaves Black 17 points ahead on the board, a pass 81; komi 21.
loadsgf tests/data/tactics/game-selfplay-2.sgf 84
komi 21
2 reg_genmove white
#? [A6]

# Black C2 ataris the cutting stone B2 (GNU Go: C2 22.1, G8 7.2). Played out: C2 B+4, G8 W+4.
loadsgf tests/data/tactics/game-selfplay-3.sgf 31
3 reg_genmove black
#? [C2]

# Black E5, the only move GNU Go lists (21.0). Played out: E5 leaves Black 1 point ahead
# on the board, a pass 21 behind; komi -3.
loadsgf tests/data/tactics/game-selfplay-3.sgf 73
komi -3
4 reg_genmove black
#? [E5]

# White E1 captures E2, in atari, and connects D1 to F1 (GNU Go: E1 22.4, no other move).
# Played out: E1 W+6, a pass B+10.
loadsgf tests/data/tactics/game-selfplay-3.sgf 94
5 reg_genmove white
#? [E1]

# Black D8 captures the cutting stone E8, in atari (GNU Go: D8 37.8, G6 12.6).
# Played out: D8 B+4, G6 W+8.
loadsgf tests/data/tactics/game-selfplay-4.sgf 25
6 reg_genmove black
#? [D8]
