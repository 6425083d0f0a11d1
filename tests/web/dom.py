"""Read tables and <pre> blocks out of HTML with the standard library's parser."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Row:
    attrs: dict[str, str]
    cells: list[str] = field(default_factory=list)
    cell_attrs: list[dict[str, str]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


class Document(HTMLParser):
    """``tables``: table id -> its <tbody> rows; ``pres``: <pre> id -> its text;
    ``tags``: every start tag seen, in order."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[Row]] = {}
        self.pres: dict[str, str] = {}
        self.tags: list[str] = []
        self._table: str | None = None
        self._in_body = False
        self._row: Row | None = None
        self._cell: list[str] | None = None
        self._pre: str | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.tags.append(tag)
        if tag == "table":
            self._table = values.get("id", "")
            self.tables[self._table] = []
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._table is not None and self._in_body:
            self._row = Row(values)
        elif tag == "td" and self._row is not None:
            self._cell = []
            self._row.cell_attrs.append(values)
        elif tag == "a" and self._row is not None:
            self._row.links.append(values.get("href", ""))
        elif tag == "pre":
            self._pre = values.get("id", "")
            self.pres[self._pre] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row.cells.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._table = None
        elif tag == "pre":
            self._pre = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._pre is not None:
            self.pres[self._pre] += data
