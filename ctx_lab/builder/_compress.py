"""Applying one compression policy to a block's text, and the degradation steps after it."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import PurePath

from cachetools import LRUCache

from ..errors import SkeletonError
from ..limits import LIMITS
from ._blocks import CODE_EXTENSIONS, DATA_EXTENSIONS, POLICIES, ContentBlock, file_kind
from ._code_summary import code_summary, summary_of_skeleton
from ._data_skeleton import data_skeleton
from ._held import held_by
from ._summarize import reference, summarize
from .skeletons import Skeleton, code_skeleton, collection_paused, python_code_skeleton

__all__ = ["Compressed", "apply_policy", "structural", "summary"]


@dataclass(frozen=True)
class Compressed:
    """A policy's output: the text, the policy that produced it, and a note (fallbacks)."""

    text: str
    policy: str
    note: str = ""
    partial: bool = False  # parts of the file did not parse and were left out


def structural(path: str, text: str) -> Skeleton:
    """The structural skeleton of a code or data file (with a note when parts of it did not
    parse); :class:`SkeletonError` if there is none (nesting deeper than the parsers and
    walkers can follow included: the file then falls to the next policy instead of failing
    the build)."""
    try:
        with collection_paused():  # a syntax tree's objects are freed before it runs again
            return _structural(path, text)
    except RecursionError:
        raise SkeletonError("nested too deeply for a skeleton") from None


def _structural(path: str, text: str) -> Skeleton:
    suffix = PurePath(path).suffix.lower()
    language = CODE_EXTENSIONS.get(suffix)
    if language == "python":
        return python_code_skeleton(text)
    if language is not None:
        return code_skeleton(text, language)
    fmt = DATA_EXTENSIONS.get(suffix)
    if fmt is not None:
        return Skeleton(data_skeleton(text, fmt))
    return code_skeleton(text, suffix)  # installed grammars of other languages


def summary(path: str, text: str) -> str:
    """The summarizable form: for code, its definitions and their docs' first lines
    (:func:`code_summary`); for everything else the extractive prose summary."""
    if file_kind(path) == "code":
        return code_summary(path, text)
    return summarize(text)


# weighed by the characters a cached entry holds: its key's text and its result's
_CACHE: LRUCache[tuple[str, str, str, bool, int | None], tuple[Compressed, int]] = LRUCache(
    maxsize=64 * 1024 * 1024, getsizeof=lambda entry: entry[1]
)
_CACHE_LOCK = threading.Lock()


def apply_policy(
    block: ContentBlock,
    policy: str,
    size: int | None = None,
    *,
    skeleton: Compressed | None = None,
) -> Compressed:
    """``policy`` applied to the block's original text. A structural form that cannot be made
    (parse failure, no grammar) falls to summarizable, and the note says why. ``skeleton``:
    the block's structural form, when the caller holds it (a summary of code is made from it,
    so it is not parsed again).

    Results are kept by (path, policy, text): building the same files again at another budget
    parses nothing twice. The exact text and a reference are made as they are asked for (no
    parse: keeping them cost a cache entry for every file of a 40,000-file build), and so
    are the forms of a block whose text a build holds as where to read it (not kept either:
    the cache would hold 64 MB of them)."""
    if policy in ("exact", "reference") or block.binary or held_by(block) is not None:
        return _apply_policy(block, policy, size, skeleton)
    key = (block.path or block.id, policy, block.text, block.binary, size)
    with _CACHE_LOCK:
        try:
            cached = _CACHE[key]
        except KeyError:
            cached = None
    if cached is not None:
        return cached[0]
    found = _apply_policy(block, policy, size, skeleton)
    weight = len(block.text) + len(found.text) + 1
    if weight <= _CACHE.maxsize:
        with _CACHE_LOCK:
            _CACHE[key] = (found, weight)
    return found


def _apply_policy(
    block: ContentBlock, policy: str, size: int | None = None, skeleton: Compressed | None = None
) -> Compressed:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    label = block.path or block.id
    if policy == "exact":
        return Compressed(block.text, "exact")
    if policy == "reference" or block.binary:
        return Compressed(reference(label, block.text, size, block.binary), "reference")
    rule = LIMITS["skeleton"]
    if len(block.text) > rule.value():
        return Compressed(
            reference(label, block.text, size),
            "reference",
            f"{len(block.text):,} characters is over {rule.describe()}: referenced",
        )
    if policy == "structural":
        try:
            found = structural(block.path, block.text)
            return Compressed(found.text, "structural", found.note, found.partial)
        except SkeletonError as exc:
            text = (
                summary_of_skeleton(block.path, block.text, None)
                if file_kind(block.path) == "code"
                else summarize(block.text)
            )
            return Compressed(text, "summarizable", f"structural failed ({exc}); summarized")
    if file_kind(block.path) != "code":
        return Compressed(summarize(block.text), "summarizable")
    # the skeleton a structural step made (or makes now, cached for it) is the one summarized
    made = skeleton if skeleton is not None else apply_policy(block, "structural", size)
    structure = made.text if made.policy == "structural" else None
    return Compressed(summary_of_skeleton(block.path, block.text, structure), "summarizable")
