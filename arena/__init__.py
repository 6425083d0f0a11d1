"""Card Arena: a referee, bots and tournaments for five card games."""

__version__ = "0.1.0"
