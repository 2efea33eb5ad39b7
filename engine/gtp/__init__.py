"""GTP served to a controller: the engine's only text protocol.

``server`` parses commands, dispatches them to an ``engine.player.Player``
and formats the replies.  GTP toward other engines (GNU Go as opponent,
referee or teacher) is ``tools.gtp_client``.
"""

VERSION = "0.1.0"
