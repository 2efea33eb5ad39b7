# gomill ringmaster control file: a playoff of gomcts against GNU Go on 9x9.
#
#   ringmaster configs/ringmaster-vs-gnugo.ctl            # run (Ctrl-C stops; rerun resumes)
#   ringmaster configs/ringmaster-vs-gnugo.ctl show       # results so far
#   ringmaster configs/ringmaster-vs-gnugo.ctl run -j 2   # two games at a time
#
# ringmaster writes its files next to this file
# (configs/ringmaster-vs-gnugo.{hist,log,report,status} and .games/, all
# ignored by git). It sends no time commands, so strength comes from the
# config. Settings go on the command line (--set table.key=value), not in
# startup_gtp_commands: gomill asks gomill-describe_engine before it sends
# those, so the records would show the settings from before them.
# Relative paths: the executable is relative to this file's folder, the
# arguments to cwd (the repository root).

competition_type = 'playoff'
description = """gomcts (configs/9x9.toml, 2000 playouts) vs GNU Go 3.8 level 10, 9x9, komi 7."""

record_games = True          # SGF of every game under configs/ringmaster-vs-gnugo.games/
stderr_to_log = True         # engines' stderr goes to the ringmaster log

board_size = 9
komi = 7.0

players = {
    'gomcts': Player(
        '../.venv/bin/python gtp_main.py --config configs/9x9.toml --set search.playouts=2000',
        cwd='..',
        # our final_score is a playout estimate: let GNU Go score
        is_reliable_scorer=False,
    ),
    'gnugo-l10': Player(
        '/usr/games/gnugo --mode gtp --chinese-rules --level 10',
        is_reliable_scorer=True,
    ),
}

matchups = [
    Matchup('gomcts', 'gnugo-l10',
            alternating=True,       # colours alternate game by game
            scorer='players',       # final_score of the reliable scorer (GNU Go)
            number_of_games=100,
            move_limit=400),
]
