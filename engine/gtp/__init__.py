"""GTP: the only place in the project that parses text.

``server`` serves GTP to a controller; ``client`` drives another GTP engine
(GNU Go as opponent, referee or teacher).
"""
