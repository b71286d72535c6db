"""CHANGELOG.md as blocks a template shows: headings with ids, list items and paragraphs, each a
list of spans (text, code or an https link); no HTML from the file is ever passed through (pure)."""

import re
from dataclasses import dataclass, replace

PAGE = "changelog/index.html"
_INLINE = re.compile(r"`([^`]+)`|\[([^\]]+)\]\((https://[^)\s]+)\)")
Span = tuple[str, str, str]  # (kind: text, code or link; its text; the link's URL or "")


@dataclass(frozen=True)
class Block:
    kind: str  # h2, h3, h4, li or p
    spans: list[Span]
    id: str = ""  # a heading's anchor


def spans(text: str) -> list[Span]:
    """Inline `code` and [text](https://...) links; everything else text."""
    found, at = [], 0
    for match in _INLINE.finditer(text):
        if match.start() > at:
            found.append(("text", text[at : match.start()], ""))
        if match.group(1) is not None:
            found.append(("code", match.group(1), ""))
        else:
            found.append(("link", match.group(2), match.group(3)))
        at = match.end()
    if at < len(text):
        found.append(("text", text[at:], ""))
    return found


def anchor(text: str) -> str:
    """A heading's id: its words in lower case joined by hyphens (`## 2026-11-29` ->
    `2026-11-29`)."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-") or "section"


def blocks(text: str) -> list[Block]:
    """The file's headings (one level down: # is h2), list items and paragraphs, in order; ids
    made unique."""
    found: list[Block] = []
    seen: set[str] = set()
    para: list[str] = []

    def flush() -> None:
        if para:
            found.append(Block("p", spans(" ".join(para))))
            para.clear()

    for line in text.splitlines():
        stripped = line.strip()
        heading = re.match(r"(#{1,3})\s+(.*)", stripped)
        item = re.match(r"[-*]\s+(.*)", stripped)
        if heading or item or not stripped:
            flush()
        if heading:
            words = heading.group(2).strip().strip("#").strip()
            ident, n = anchor(words), 2
            while ident in seen:
                ident, n = f"{anchor(words)}-{n}", n + 1
            seen.add(ident)
            found.append(Block(f"h{len(heading.group(1)) + 1}", spans(words), ident))
        elif item:
            found.append(Block("li", spans(item.group(1))))
        elif stripped and found and found[-1].kind == "li" and line.startswith(" "):
            last = found.pop()  # a continued list item
            found.append(Block("li", last.spans + spans(" " + stripped)))
        elif stripped:
            para.append(stripped)
    flush()
    return found


def version_anchor(found: list[Block], version: str) -> str:
    """The id of the first heading that names the data version, or "" when none does."""
    return next(
        (b.id for b in found if b.kind.startswith("h") and any(version in s[1] for s in b.spans)),
        "",
    )


def body(found: list[Block]) -> list[Block]:
    """The blocks a page shows under its own h1: a first heading that only says "Changelog" left
    out, and the headings moved up so the highest is h2 (no heading level skipped)."""
    if (
        found
        and found[0].kind == "h2"
        and "".join(text for _, text, _ in found[0].spans).strip() == "Changelog"
    ):
        found = found[1:]
    levels = [int(b.kind[1]) for b in found if b.kind.startswith("h")]
    up = min(levels, default=2) - 2
    return [
        replace(b, kind=f"h{int(b.kind[1]) - up}") if b.kind.startswith("h") else b for b in found
    ]
