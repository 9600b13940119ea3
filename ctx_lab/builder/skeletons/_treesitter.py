"""The tree-sitter walker: top-level declarations a language's :class:`Rules` keep, with
function bodies and long values elided; parts that do not parse are left out and named."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...errors import SkeletonError
from ._common import (
    ELIDED_BLOCK,
    ELIDED_VALUE,
    LONG_VALUE_LINES,
    Rules,
    Skeleton,
    apply_spans,
    line_of,
    parser,
)

__all__ = ["GENERIC_BODIES", "walk"]

GENERIC_BODIES = frozenset(
    {
        "block",
        "compound_statement",
        "statement_block",
        "function_body",
        "body_statement",
        "constructor_body",
        "body",
    }
)


def _elisions(node: Any, rules: Rules, spans: list[tuple[int, int, str]]) -> None:
    """Collect (start, end, replacement) byte spans below ``node``."""
    for child in node.named_children:
        if child.type in rules.functions:
            body = child.child_by_field_name("body")
            if body is not None and body.type in rules.bodies:
                _elisions_outside(child, body, rules, spans)
                spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
                continue
        if child.type in rules.values:
            value = child.child_by_field_name("value")
            if (
                value is not None
                and value.type not in rules.functions
                and value.end_point[0] - value.start_point[0] >= LONG_VALUE_LINES
            ):
                spans.append((value.start_byte, value.end_byte, ELIDED_VALUE))
                continue
        _elisions(child, rules, spans)


def _elisions_outside(
    node: Any, body: Any, rules: Rules, spans: list[tuple[int, int, str]]
) -> None:
    for child in node.named_children:
        if child.id != body.id:
            _elisions(child, rules, spans)


def _function_like(kind: str) -> bool:
    return "function" in kind or "method" in kind or "constructor" in kind


def _generic_node(node: Any, spans: list[tuple[int, int, str]]) -> None:
    """A top-level node under the generic rules: a function-like node's own body goes (C's
    and PHP's functions are top-level nodes themselves), else what is inside it."""
    if _function_like(node.type) and node.named_children:
        body = node.child_by_field_name("body")
        if body is not None and body.type in GENERIC_BODIES:
            _generic_outside(node, body, spans)
            spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
            return
    _generic_elisions(node, spans)


def _generic_outside(node: Any, body: Any, spans: list[tuple[int, int, str]]) -> None:
    for child in node.named_children:
        if child.id != body.id:
            _generic_elisions(child, spans)


def _generic_elisions(node: Any, spans: list[tuple[int, int, str]]) -> None:
    for child in node.named_children:
        kind = child.type
        if _function_like(kind) and child.named_children:
            body = child.child_by_field_name("body")
            if body is not None and body.type in GENERIC_BODIES:
                spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
                continue
        _generic_elisions(child, spans)


def walk(source: str, rules: Rules, name: str) -> Skeleton:
    """The skeleton of ``source`` under ``rules``: when tree-sitter reports errors, every
    well-formed top-level part is still kept and the skeleton is ``partial``; only a file with
    no well-formed part at all raises :class:`SkeletonError`."""
    data = source.encode("utf-8", "surrogatepass")
    tree = parser(rules.module, rules.function).parse(data)
    pieces: list[str] = []
    broken: list[str] = []
    comments: list[Any] = []  # the run of comments right above the next node
    attributes: list[Any] = []  # Rust outer attributes waiting for their item

    def skeleton_of(node: Any) -> str:
        spans: list[tuple[int, int, str]] = []
        if rules.generic:
            _generic_node(node, spans)
        elif node.type in rules.functions:
            body = node.child_by_field_name("body")
            if body is not None and body.type in rules.bodies:
                _elisions_outside(node, body, rules, spans)
                spans.append((body.start_byte, body.end_byte, ELIDED_BLOCK))
        else:
            _elisions(node, rules, spans)
        return apply_spans(data, node.start_byte, node.end_byte, spans)

    def visit(children: Iterable[Any]) -> None:
        nonlocal comments, attributes
        for node in children:
            if node.type == "ERROR":
                comments, attributes = [], []
                broken.append(line_of(data, node))
                visit(node.named_children)  # well-formed declarations inside still count
                continue
            if "comment" in node.type:
                text = data[node.start_byte : node.end_byte]
                if rules.always_kept_comment(text):
                    pieces.append(text.decode("utf-8", "replace").rstrip())
                    comments = []
                    continue
                adjacent = comments and comments[-1].end_point[0] + 1 >= node.start_point[0]
                comments = [*comments, node] if adjacent else [node]
                continue
            if node.type == "attribute_item":  # Rust #[...]: belongs to the next item
                attributes.append(node)
                continue
            # the comment run right above (no blank line between) is the item's doc
            attached = comments and comments[-1].end_point[0] + 1 >= node.start_point[0]
            docs = comments if attached else []
            if node.has_error:
                broken.append(line_of(data, node))
            elif node.type == "inner_attribute_item":
                pieces.append(apply_spans(data, node.start_byte, node.end_byte, []))
            elif rules.keeps(node, data):
                pieces.extend(rules.docs(node, docs, data))
                pieces.extend(apply_spans(data, a.start_byte, a.end_byte, []) for a in attributes)
                pieces.append(skeleton_of(node))
            comments, attributes = [], []

    visit(tree.root_node.named_children)
    if broken and not pieces:
        raise SkeletonError(f"{name} parse errors (tree-sitter), nothing well-formed")
    text = "\n".join(pieces) + "\n" if pieces else ""
    if not broken:
        return Skeleton(text)
    shown = ", ".join(repr(b[:40]) for b in broken[:3]) + (" …" if len(broken) > 3 else "")
    return Skeleton(
        text,
        True,
        f"partial: {len(broken)} part(s) with parse errors left out ({shown})",
    )
