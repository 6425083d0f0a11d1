"""Bid Euchre as an OpenSpiel game (``arena.openspiel``): its dense action ids, as the
environments' (``layout.NUM_ACTIONS``). Its worlds for ISMCTS are the ``worlds`` part."""
