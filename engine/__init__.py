"""The engine: game state, the Player, search, node pool, memory, scoring, GTP."""
