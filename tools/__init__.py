"""What stands on the engine: matches, self-play, paper experiments, rollout
profiles, match statistics, teacher data from GNU Go, and a GTP client for
other engines.  Tools drive ``engine.player.Player`` (or our engine over
GTP, as a match does) and never import ``engine.gtp``."""
