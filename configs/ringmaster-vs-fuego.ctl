# gomill ringmaster control file: a playoff of gomcts against Fuego 1.1 on
# 9x9, 30 s sudden death each, one thread a side.
#
#   make ringmaster                                       # installs .venv/bin/ringmaster
#   FUEGO=/path/to/fuegomain/fuego .venv/bin/ringmaster configs/ringmaster-vs-fuego.ctl
#   .venv/bin/ringmaster configs/ringmaster-vs-fuego.ctl show
#
# Fuego 1.1 has no package: build it from its source (docs/GTP.md, "Fuego
# 1.1"); it reads its opening book from book.dat beside the binary.  FUEGO
# names the binary (default: `fuego` on PATH).  Both engines get
# `time_settings 30 0 0` before the first game and keep their own clocks
# (ringmaster sends no time_left); configs/fuego_1thread.gtp gives Fuego one
# thread and no pondering.  Our engine serves the shipped 9x9 config
# (configs/9x9.toml, chosen by gtp_main.py for the board size) with
# search.threads=1.  Relative paths as in ringmaster-vs-gnugo.ctl.
# competition_type must be the first line that is not a comment (ringmaster
# reads it before the rest).
competition_type = 'playoff'

import os
description = """gomcts (shipped 9x9 config, one thread) vs Fuego 1.1 (one thread), 9x9, komi 7, 30 s sudden death each."""

record_games = True
stderr_to_log = True

board_size = 9
komi = 7.0

players = {
    'gomcts': Player(
        '../.venv/bin/python gtp_main.py --set search.threads=1',
        cwd='..',
        startup_gtp_commands=['time_settings 30 0 0'],
        is_reliable_scorer=False,
    ),
    'fuego': Player(
        os.environ.get('FUEGO', 'fuego') + ' --quiet --config configs/fuego_1thread.gtp',
        cwd='..',
        environ={'LC_ALL': 'C'},
        startup_gtp_commands=['time_settings 30 0 0'],
        is_reliable_scorer=True,
    ),
}

matchups = [
    Matchup('gomcts', 'fuego',
            alternating=True,
            scorer='players',      # Fuego's final_score (Chinese area scoring)
            number_of_games=200,
            move_limit=400),
]
