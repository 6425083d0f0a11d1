"""docs/architecture.md opens with a diagram of the services, and names only code that exists.

Checked against the checkout, without rendering anything:

- every path the page names (``arena/referee/match.py``, ``arena/replay/``), and every
  bare file name in backquotes (``memory.py``) somewhere in the project;
- every dotted module (``arena.replay.verify.verify_replay``), importable as far as it is
  a module and an attribute beyond; Celery task names (``arena.play_match``) are the
  workers' own;
- every ``Message.field`` or ``Service.Method`` of the protos, and every ``Class.attr``
  of the Python code;
- every symbol given beside a module (``arena/access.py`` (``Guard``), ``MatchRunner``
  (``arena/referee/match.py``), ``Launched`` in ``arena/hosting/pool.py``): defined there;
- the Mermaid diagram: first on the page, a ``flowchart`` with balanced brackets, a node
  for every service, edges between declared nodes only, steps numbered 1..N as the list
  after it, and each node's module named in the prose too.
"""

from __future__ import annotations

import re

from tests.support.doc_names import PATH_NAMED, ROOT, missing

DOC = ROOT / "docs" / "architecture.md"
SERVICES = (
    "CLI",
    "API",
    "Redis",
    "Celery workers",
    "scheduler",
    "play_match",
    "watchdog",
    "referee",
    "--processes",
    "remote bots",
    "hosted bots",
    "bubblewrap",
    "web site",
    "Prometheus",
)
"""What the diagram must show: each of these is in some node's or group's label."""

_MERMAID = re.compile(r"^```mermaid\n(.*?)^```", re.S | re.M)
_NODE = re.compile(r"^\s*(\w+)\s*(?:\[\(|\[\[|\(\[|\(\(|\[|\(|\{)\"([^\"]*)\"", re.M)
_GROUP = re.compile(r"^\s*subgraph\s+(\w+)\s*\[\"([^\"]*)\"\]", re.M)
_EDGE = re.compile(r"^\s*(\w+)\s*(?:-->|-\.->|==>)\s*(?:\|\"([^\"]*)\"\|)?\s*(\w+)\s*$", re.M)


def diagram_problems(text: str) -> list[str]:
    """What is wrong with the page's Mermaid diagram, as far as reading it tells."""
    found = _MERMAID.search(text)
    if found is None:
        return ["no ```mermaid block"]
    problems = []
    if text.index("```") != found.start() or "\n## " in text[: found.start()].split("## ", 2)[-1]:
        problems.append("the diagram is not the first thing in the page's first section")
    body = found[1]
    lines = [line for line in body.splitlines() if line.strip()]
    if not re.match(r"(flowchart|graph) (TB|TD|BT|LR|RL)$", lines[0].strip()):
        problems.append(f"starts with {lines[0].strip()!r}, not flowchart DIRECTION")
    unquoted = re.sub(r'"[^"\n]*"', "", body)
    if '"' in unquoted:
        problems.append("an unclosed quote")
    for opening, closing in ("()", "[]", "{}"):
        if unquoted.count(opening) != unquoted.count(closing):
            problems.append(f"unbalanced {opening}{closing}")
    groups = dict(_GROUP.findall(body))
    if len(groups) != len(re.findall(r"^\s*end\s*$", body, re.M)):
        problems.append("subgraph and end do not pair")
    nodes = dict(_NODE.findall(body))
    labels = " ".join([*nodes.values(), *groups.values()])
    problems += [f"no node for {s}" for s in SERVICES if s not in labels]
    edges = _EDGE.findall(body)
    declared = nodes.keys() | groups.keys()
    for source, _, target in edges:
        problems += [f"an edge to undeclared {n}" for n in (source, target) if n not in declared]
    linked = {n for source, _, target in edges for n in (source, target)}
    problems += [f"{n} has no edge" for n in nodes if n not in linked]
    steps = sorted({int(m) for _, label, _ in edges for m in re.findall(r"^(\d+) ", label)})
    if not steps or steps != list(range(1, len(steps) + 1)):
        problems.append(f"steps {steps} are not numbered 1..N")
    prose = text[found.end() :]
    listed = [int(n) for n in re.findall(r"^(\d+)\. \*\*", prose, re.M)]
    if listed[: len(steps)] != steps:
        problems.append(f"the diagram's steps {steps} are not the list's {listed}")
    for node, label in nodes.items():
        for path in PATH_NAMED.findall(label):
            if path not in prose:
                problems.append(f"{node}: {path} is not named in the prose")
    return problems


def test_every_module_the_page_names_exists() -> None:
    assert missing(DOC.read_text()) == []


def test_the_page_opens_with_a_diagram_of_the_services() -> None:
    assert diagram_problems(DOC.read_text()) == []


def test_a_name_that_no_longer_exists_is_reported() -> None:
    text = (
        "The umpire (`arena/referee/umpire.py`, `arena/umpires/`) reads `arena.store.gone` "
        "and `arena.store.leases.Nothing`, fills `PlayMatchRequest.umpire`, calls "
        "`BotRegistry.nothing` and `Nowhere.thing`, keeps `umpire.py`, and `Guard` "
        "(`arena/access.py`) beside `Umpire` (`arena/access.py`). "
        "Still there: `arena/referee/match.py`, `arena.store.leases`, `arena.play_match`, "
        "`PlayMatchRequest.hosted`, `BotRegistry.all`, `memory.py`."
    )
    assert missing(text) == [
        "arena/referee/umpire.py: no such file",
        "arena/umpires/: no such directory",
        "umpire.py: no such file anywhere in the project",
        "arena.store.gone: arena.store has no gone",
        "arena.store.leases.Nothing: arena.store.leases has no Nothing",
        "BotRegistry.nothing: arena.store.bots.BotRegistry has no nothing",
        "Nowhere.thing: no proto message or service, nor class, Nowhere",
        "PlayMatchRequest.umpire: no such field or method",
        "Umpire: not defined in arena/access.py",
    ]


def test_a_broken_or_incomplete_diagram_is_reported() -> None:
    page = DOC.read_text()
    diagram = _MERMAID.search(page)
    assert diagram is not None
    without = page.replace('    prometheus["Prometheus<br/>deploy/prometheus/"]\n', "")
    assert "no node for Prometheus" in diagram_problems(without)
    assert "unbalanced []" in diagram_problems(page.replace('api["Arena API', 'api[["Arena API'))
    assert diagram_problems(page.replace("flowchart TB", "flowchart")) == [
        "starts with 'flowchart', not flowchart DIRECTION"
    ]
    renumbered = page.replace('"13 ', '"14 ')
    assert any("are not numbered 1..N" in p for p in diagram_problems(renumbered))
    one_more = page.replace('"13 GetTournament', '"14 GetTournament')
    assert any("are not the list's" in p for p in diagram_problems(one_more))
    assert diagram_problems(page.replace(diagram[0], "")) == ["no ```mermaid block"]
