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

# Black E1 links D2 and F2 under White's E2 (GNU Go: E1 21.9, G8 4.3).
# Played out: E1 B+2, G8 W+12.
loadsgf tests/data/tactics/game-selfplay-5.sgf 21
7 reg_genmove black
#? [E1]

# White F7 joins E7, F6 and F8 before Black cuts there (GNU Go: F7 16.1, B4 5.2).
# Played out: F7 leaves Black 3 points ahead on the board, B4 7; komi 5.5.
loadsgf tests/data/tactics/game-selfplay-5.sgf 34
komi 5.5
8 reg_genmove white
#? [F7]

# White E9 is in atari; E8 saves it and joins D8 and F8 (GNU Go: E8 19.8, C8 5.0).
# Played out: E8 leaves White 7 points ahead on the board, C8 1 behind; komi -3.
loadsgf tests/data/tactics/game-selfplay-5.sgf 60
komi -3
9 reg_genmove white
#? [E8]

# Black A8 and B9 are both in atari on A9: White A9 takes them (GNU Go: A9 43.5, no other move).
# Played out: A9 W+4, a pass B+40.
loadsgf tests/data/tactics/game-selfplay-6.sgf 62
10 reg_genmove white
#? [A9]

# Black's G8-G9-H9-J9-J8 has two liberties, F8 and F9: White F8 catches it (GNU Go: F8 12.6, H7 1.7).
# Both sides left this for twelve moves in the game. Played out: F8 leaves White 29 points
# ahead on the board, H7 15; komi -22.
loadsgf tests/data/tactics/game-selfplay-7.sgf 60
komi -22
11 reg_genmove white
#? [F8]
