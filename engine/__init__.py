"""The search and everything around it: game state, node pool, memory, GTP."""
