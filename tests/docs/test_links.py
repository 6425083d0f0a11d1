"""The README and every page of docs/ hold together: each relative link (and image) leads
to a file of the checkout, and each anchor (``page.md#a-heading``, ``#a-heading``) to a
heading or an ``<a id>`` of that page, as GitHub names them; docs/README.md lists every
page; the README's first screen says what the project is, gives the two commands a
newcomer needs, shows a picture and says where to go next; and the pages that took over
the README's reference name only code that exists (as docs/architecture.md's test
checks it)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from arena.reference_docs import slug
from tests.support.doc_names import missing

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted([ROOT / "README.md", *DOCS.rglob("*.md")])
FIRST_SCREEN = 30
"""Lines of README.md a newcomer sees before scrolling."""

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
_ID = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)


def prose(text: str) -> str:
    """A page without its fenced blocks: links in code are not links."""
    return _FENCE.sub("", text)


def links(text: str) -> list[str]:
    """Every link and image target of a page's prose."""
    return _LINK.findall(_CODE.sub("", prose(text)))


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors GitHub gives a page: its headings' slugs (a repeated one gets -1,
    -2, ...) and its ``<a id>``s."""
    text = prose(page.read_text(encoding="utf-8"))
    found: set[str] = set(_ID.findall(text))
    counts: dict[str, int] = {}
    for _, heading in _HEADING.findall(text):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
        name = slug(plain)
        found.add(f"{name}-{counts[name]}" if name in counts else name)
        counts[name] = counts.get(name, 0) + 1
    return frozenset(found)


def problems(page: Path) -> list[str]:
    """Every link of ``page`` that leads nowhere."""
    out = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            out.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            out.append(f"{target}: no heading or <a id> {anchor!r} in {where.name}")
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_somewhere(page: Path) -> None:
    assert problems(page) == []


def test_a_broken_link_or_anchor_is_reported(tmp_path: Path) -> None:
    text = (
        "[fine](cli.md#output-conventions) [gone](gone.md) [bad](cli.md#nothing-here) "
        "[self](#a-heading) ![picture](images/live.png) [web](https://example.com/x)\n"
        "```sh\n[not a link](nowhere.md)\n```\n# A heading\n"
    )
    assert links(text) == [
        "cli.md#output-conventions",
        "gone.md",
        "cli.md#nothing-here",
        "#a-heading",
        "images/live.png",
        "https://example.com/x",
    ]
    written = tmp_path / "docs" / "example.md"
    written.parent.mkdir()
    (tmp_path / "docs" / "cli.md").write_text("## Output conventions\n")
    (tmp_path / "docs" / "images").mkdir()
    (tmp_path / "docs" / "images" / "live.png").write_bytes(b"")
    written.write_text(text)
    assert [p.split(":")[0] for p in problems(written)] == ["gone.md", "cli.md#nothing-here"]


def test_anchors_are_githubs() -> None:
    assert slug("Access, TLS and limits") == "access-tls-and-limits"
    assert slug("Is A better than B?") == "is-a-better-than-b"
    assert slug("Observation: `SeepObservation`") == "observation-seepobservation"
    assert slug("1. Watch the demo") == "1-watch-the-demo"


def test_the_index_lists_every_page() -> None:
    index = DOCS / "README.md"
    listed = {(index.parent / t.partition("#")[0]).resolve() for t in links(index.read_text())}
    missing = [p.relative_to(ROOT) for p in PAGES if p.is_relative_to(DOCS) and p not in listed]
    assert missing == [index.relative_to(ROOT)], f"docs/README.md does not list {missing}"


def test_the_readme_opens_with_what_a_newcomer_needs() -> None:
    first = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN])
    assert first.startswith("# Card Arena\n")
    for command in ("make demo", "make test"):
        assert re.search(rf"^{command}\s+#", first, re.M), f"{command} is not on the first screen"
    assert re.search(r"!\[[^\]]+\]\(docs/images/\w[\w-]*\.png\)", first), "no picture"
    assert "(docs/README.md)" in first and "(docs/getting-started.md)" in first


@pytest.mark.parametrize(
    "name",
    [
        "README.md",
        "docs/layout.md",
        "docs/operations.md",
        "docs/security.md",
        "docs/tournaments.md",
    ],
)
def test_the_page_names_only_code_that_exists(name: str) -> None:
    assert missing((ROOT / name).read_text(encoding="utf-8")) == []
