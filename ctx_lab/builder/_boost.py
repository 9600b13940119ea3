"""Which files a task is about: the packet's BM25 over each file's path and text, files the
task names (by file name, folder and name, or a symbol they define), and test files when the
task is not about tests — as priority added to (or taken from) each block."""

from __future__ import annotations

import re

from ..packet import DEFAULT_STOP_WORDS, Bm25, extract_keywords, term_counts, words
from ._blocks import ContentBlock
from ._held import replaced

__all__ = ["NAMED_BOOST", "TASK_BOOST", "TEST_PENALTY", "boost_blocks"]

TASK_BOOST = 15  # the most priority a block gains for matching the task's words
NAMED_BOOST = 25  # a file the task names, or that defines a symbol the task names
TEST_PENALTY = 10  # a test file, when the task is not about tests
_GENERIC_FOLDERS = {"src", "lib", "crates", "pkg", "internal", "source", "app", "packages", ""}
_TEST_WORDS = {"test", "tests", "testing", "spec", "specs", "fixture", "fixtures"}
# file stems too common to mean one file when a task says the word
_GENERIC_STEMS = frozenset(
    "index main utils util helpers helper common core config conf base types models model "
    "setup init test tests app server client errors error constants settings options data "
    "api lib mod module package default build cache".split()
)
MIN_NAMED_STEM = 5  # letters of a stem a task may name by the word alone (pager, reader …)
_TEST_PATH = re.compile(
    r"(?:^|/)(?:tests?|__tests__|specs?|testdata)/|(?:^|/)test_[^/]*\.py$|_test\.\w+$|"
    r"\.(?:test|spec)\.[jt]sx?$|(?:^|/)tests?\.rs$|Tests?\.(?:java|kt|cs)$"
)
_IDENTIFIER = re.compile(r"`[^`]+`|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")


def _distinctive(stem: str) -> bool:
    """Whether a file's stem is a word that names that file (``_pager`` → pager), not one
    shared by many projects' files (index, utils, config …)."""
    word = stem.lstrip("_")
    return len(word) >= MIN_NAMED_STEM and word.isalpha() and word not in _GENERIC_STEMS


def _is_test(path: str) -> bool:
    return _TEST_PATH.search(path) is not None


def _task_names(task: str) -> tuple[set[str], set[str]]:
    """What the task names: (code-like identifiers — dotted, backquoted, with ``_``, an inner
    capital or ``()`` — and file names with an extension)."""
    symbols: set[str] = set()
    files: set[str] = set()
    for token in _IDENTIFIER.findall(task):
        quoted = token.startswith("`")
        token = token.strip("`").removesuffix("()")
        for part in re.split(r"[^A-Za-z0-9_]+", token):
            code_like = quoted or "." in token or "_" in part or re.search(r"[a-z][A-Z]", part)
            if len(part) >= 3 and (code_like or re.fullmatch(r"[A-Z]{2,}\w*[a-z]\w*", part)):
                symbols.add(part)
    for found in re.findall(r"[\w./-]+\.[A-Za-z]{1,5}\b", task):
        files.add(found.rsplit("/", 1)[-1].lower())
    return symbols, files


def _definitions(symbols: set[str]) -> re.Pattern[str] | None:
    if not symbols:
        return None
    names = "|".join(sorted(map(re.escape, symbols)))
    return re.compile(
        r"\b(?:def|class|func|fn|function|type|struct|enum|trait|interface|impl|const|let|var|"
        rf"mod|module|object|record)\s+(?:\([^)]*\)\s*)?(?P<name>{names})\b"
    )


def boost_blocks(
    blocks: list[tuple[ContentBlock, int | None]],
) -> tuple[list[tuple[ContentBlock, int | None]], dict[str, tuple[int, tuple[str, ...], str]]]:
    """File and memory blocks ranked against the task: the packet's BM25 over their paths and
    text (the best match gains :data:`TASK_BOOST`, others in proportion); a file the task
    names — by file name, or by a symbol it defines — gains :data:`NAMED_BOOST` instead; a
    test file loses :data:`TEST_PENALTY` unless the task is about tests."""
    task = next((b.text for b, _ in blocks if b.source == "task"), "")
    query = extract_keywords([task])
    ranked = [
        (i, b) for i, (b, _) in enumerate(blocks) if b.source in ("file", "memory") and not b.binary
    ]
    if not ranked:
        return blocks, {}
    # one document's counts at a time: the model keeps the query's terms and each length (a
    # list of every file's counts held 160 MB while 40,000 files were boosted)
    documents = (term_counts(f"{b.path.replace('/', ' ')}\n{b.text}") for _, b in ranked)
    model = Bm25(documents, only=query)
    scores = model.scores(query) if query else [0.0] * len(ranked)
    top = max(scores, default=0.0)
    holding = {t: model.frequencies(t) for t in dict.fromkeys(query)}
    symbols, file_names = _task_names(task)
    defines = _definitions(symbols)
    lowered = {s.lower() for s in symbols}
    task_words = set(words(task)) - DEFAULT_STOP_WORDS
    about_tests = not _TEST_WORDS.isdisjoint(task_words)
    found: dict[str, tuple[int, tuple[str, ...], str]] = {}
    boosted = list(blocks)
    # a word names one file when few files hold it: "pager" here, not "context" in a project
    # whose every file speaks of contexts
    rare = max(3, len(ranked) // 10)
    for j, ((i, block), score) in enumerate(zip(ranked, scores, strict=True)):
        boost = round(TASK_BOOST * score / top) if top > 0 else 0
        matched = tuple(t for t, where in holding.items() if j in where)
        why = ""
        if block.source == "file":
            name = block.path.rsplit("/", 1)[-1]
            stem = name.rsplit(".", 1)[0].lower()
            defined = defines.search(block.text) if defines is not None else None
            folders = set(block.path.lower().split("/")[:-1]) - _GENERIC_FOLDERS
            if name.lower() in file_names or stem in lowered:
                boost, why = NAMED_BOOST, f"named by the task ({name})"
            elif stem in task_words and not folders.isdisjoint(task_words):
                boost, why = NAMED_BOOST, f"named by the task ({block.path}: its folder and name)"
            elif (
                _distinctive(stem)
                and stem.lstrip("_") in task_words
                and len(holding.get(stem.lstrip("_"), ())) <= rare
            ):
                boost, why = (
                    NAMED_BOOST,
                    f"named by the task ({name}: the word {stem.lstrip('_')!r})",
                )
            elif defined is not None:
                boost, why = NAMED_BOOST, f"defines {defined['name']}, which the task names"
            if _is_test(block.path) and not about_tests:
                boost -= TEST_PENALTY
                why = "; ".join(
                    filter(None, [why, f"test file −{TEST_PENALTY} (the task is not about tests)"])
                )
        if boost == 0:
            continue
        boosted[i] = (replaced(block, priority=block.priority + boost), blocks[i][1])
        found[block.id] = (boost, matched, why)
    return boosted, found
