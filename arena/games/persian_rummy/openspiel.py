"""Persian Rummy as an OpenSpiel game (``arena.openspiel``): its actions are the
environments' indices into the legal list (``layout.MAX_LEGAL``), since its ids encode
melds and lay-offs in 25 bits."""
