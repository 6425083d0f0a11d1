"""Which bots the results connect. Ratings are differences, so two bots compare only if
a chain of games links them; a table that falls apart is ranked part by part."""

from __future__ import annotations

from collections.abc import Iterable

from arena.ratings.elo import Counts


def groups(players: Iterable[str], counts: Counts) -> list[list[str]]:
    """The connected groups of ``players`` by ``counts``' outcomes, largest first (ties:
    by name), each sorted by name. A player with no outcome is a group of its own."""
    import networkx as nx  # here: every process that reads a board imports this module

    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from(pairing for pairing, record in counts.items() if sum(record))
    parts = [sorted(part) for part in nx.connected_components(graph)]
    return sorted(parts, key=lambda part: (-len(part), part))
