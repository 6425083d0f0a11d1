"""Markdown that users wrote (a competition's description), as HTML safe to put in a page.

The organiser's text is stored as given, so the site treats it as hostile: markdown-it-py's
CommonMark parser with raw HTML off (a tag in the text comes out as text), no images
(they would be fetched from wherever the text says, which the site's policy forbids
anyway), and links only to ``http``, ``https``, ``mailto`` or a place on this site (a
``javascript:`` or ``data:`` link stays text). Links get ``rel="nofollow ugc noopener"``.
Headings move down two levels, so that the text's ``#`` sits under the page's own
section heading rather than beside the page's title.
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
HEADING_SHIFT = 2
LINK_REL = "nofollow ugc noopener"
RENDERED = 32
"""Descriptions kept rendered: a page views its description again and again, and 20,000
characters of nested brackets take the parser most of a second."""
_SCHEME = re.compile(r"^[\x00-\x20]*([A-Za-z][A-Za-z0-9+.-]*):")
_DROPPED = re.compile(r"[\t\n\r]")
"""What a browser removes from a URL anywhere before reading it."""


def safe_link(url: str) -> bool:
    """Whether a link may be live: a relative one, or one of ``ALLOWED_SCHEMES``, its
    scheme read as a browser would (leading controls and spaces skipped, tabs and
    newlines dropped). markdown-it calls this with the destination decoded (entities,
    escapes) and normalized, so ``&#106;avascript:`` is seen as ``javascript:``."""
    scheme = _SCHEME.match(_DROPPED.sub("", url))
    return scheme is None or scheme[1].lower() in ALLOWED_SCHEMES


class _SafeMarkdown(MarkdownIt):
    """markdown-it's parser with its link check (``validateLink``, its name) replaced."""

    def validateLink(self, url: str) -> bool:
        return safe_link(url)


@functools.cache
def _parser() -> MarkdownIt:
    parser = _SafeMarkdown("commonmark", {"html": False, "linkify": False})
    parser.enable(["table", "strikethrough"])
    parser.disable("image")
    return parser


def _adjust(tokens: list[Token]) -> None:
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            level = min(6, int(token.tag[1:]) + HEADING_SHIFT)
            token.tag = f"h{level}"
        elif token.type == "link_open":
            token.attrSet("rel", LINK_REL)
        if token.children:
            _adjust(token.children)


@functools.lru_cache(maxsize=RENDERED)
def render(text: str) -> str:
    """``text`` (CommonMark, with tables and strikethrough) as HTML without raw HTML,
    images or links but those ``safe_link`` allows."""
    parser = _parser()
    tokens = parser.parse(text)
    _adjust(tokens)
    html: str = parser.renderer.render(tokens, parser.options, {})
    return html
