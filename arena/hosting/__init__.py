"""Hosted bots: packages the arena runs itself, in a sandbox, one fresh process per seat
and match, so that a bot can neither reach the network nor remember one match in the
next (``arena.hosting.sandbox``)."""
