"""Where paged artifacts come from (memory, a directory, anything a reader reads) and where
paging budgets are kept between calls (a state file, or an in-memory table by id)."""

from __future__ import annotations

import codecs
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from cachetools import LRUCache

from ..errors import ArtifactNotFound, CtxLabError, FileTooLarge, InputFileError, UsageError
from ..files import (
    FileIdentity,
    confine,
    decode_text,
    entry_kind,
    identity,
    is_binary,
    normalize_newlines,
    read_bytes,
    write_atomic,
)
from ._budget import PagingBudget
from ._lines import LineIndex

if TYPE_CHECKING:
    from ..read import Reader

__all__ = [
    "BudgetTable",
    "ContentStore",
    "DirectoryStore",
    "MemoryStore",
    "ReaderStore",
    "load_budget",
    "save_budget",
]


@runtime_checkable
class ContentStore(Protocol):
    """Where artifacts come from: ``get_content(artifact_id) -> str``."""

    def get_content(self, artifact_id: str) -> str:
        """The artifact's text; raise :class:`ArtifactNotFound` when there is none."""
        ...


class MemoryStore:
    """Artifacts held in a mapping of id → text."""

    def __init__(self, artifacts: Mapping[str, str] | None = None) -> None:
        self.artifacts: dict[str, str] = dict(artifacts or {})

    def get_content(self, artifact_id: str) -> str:
        """The text stored under ``artifact_id``."""
        try:
            return self.artifacts[artifact_id]
        except KeyError:
            raise ArtifactNotFound(f"no artifact {artifact_id!r}") from None


# The line indexes of paged files (with their text or bytes), by file identity, bounded by size.
_TEXTS: LRUCache[FileIdentity, LineIndex] = LRUCache(
    maxsize=256 * 1024 * 1024, getsizeof=lambda entry: max(len(entry.text), 1)
)
_TEXTS_LOCK = threading.Lock()


class DirectoryStore:
    """Files under ``root``; the id is the path relative to it.

    Ids that resolve outside ``root`` — through ``..``, an absolute path or a symlink — are
    refused (:class:`~ctx_lab.errors.PathOutsideRoot`); binary files are not paged.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def resolve(self, artifact_id: str) -> Path:
        """The file for ``artifact_id``, inside the root, or an error saying why not."""
        if not artifact_id:
            raise ArtifactNotFound("an empty artifact id names no file")
        candidate = confine(self.root, artifact_id, what="artifact id")
        if entry_kind(candidate) != "file":
            raise ArtifactNotFound(f"no file {artifact_id!r} under {self.root}")
        return candidate

    def _entry(self, artifact_id: str) -> LineIndex:
        path = self.resolve(artifact_id)
        try:
            version = identity(path)
        except OSError as exc:
            raise ArtifactNotFound(f"{artifact_id!r}: {exc.strerror}") from None
        with _TEXTS_LOCK:
            cached = _TEXTS.get(version)
        if cached is not None:
            return cached
        try:
            data = read_bytes(path, kind="page")
        except FileTooLarge:
            raise
        except InputFileError as exc:
            raise ArtifactNotFound(f"{artifact_id!r}: {exc}") from None
        if is_binary(data):
            raise ArtifactNotFound(f"{artifact_id!r} is a binary file; page text files only")
        index = _index(data, artifact_id, path.suffix.lower() == ".ipynb")
        del data  # the index holds the one copy it needs
        with _TEXTS_LOCK:
            if len(index.text) <= _TEXTS.maxsize:
                _TEXTS[version] = index
        return index

    def lines(self, artifact_id: str) -> LineIndex:
        """The file's line index (kept by file identity): the pager reads pages from it
        without the whole text ever being decoded."""
        return self._entry(artifact_id)

    def get_content(self, artifact_id: str) -> str:
        """The file's text (UTF-8, bad bytes replaced); binary files are refused. Files and
        their line indexes are kept by file identity (path, device, inode, size, mtime), so
        paging the same file again — a new pager per REST request included — reads nothing."""
        index = self._entry(artifact_id)
        text = index.text
        if isinstance(text, str):
            return text
        return text[index.starts[0] if index.starts else 0 :].decode("utf-8", errors="replace")


def _index(data: bytes, label: str, notebook: bool) -> LineIndex:
    """The line index of a file's bytes: UTF-8 text stays bytes (one copy; CR and CRLF made
    LF), anything else — UTF-16/32, a notebook's cells — is decoded first."""
    utf8_bom = data.startswith(codecs.BOM_UTF8)
    wide = data.startswith(
        (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
    )
    if notebook or (wide and not utf8_bom):
        text = normalize_newlines(decode_text(data, label, []))
        return LineIndex.build(notebook_text(text) if notebook else text)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return LineIndex.of_bytes(data, 3 if utf8_bom else 0)


class ReaderStore:
    """Anything a :class:`~ctx_lab.read.Reader` reads: files, web pages, PDFs (whole text)."""

    def __init__(self, reader: Reader | None = None) -> None:
        from ..read import Reader

        self.reader = reader or Reader()

    def get_content(self, artifact_id: str) -> str:
        """The extracted text of ``artifact_id`` (pages joined with their markers for PDFs)."""
        from ..errors import ReadError

        try:
            return self.reader.full_text(artifact_id)
        except FileNotFoundError:
            raise ArtifactNotFound(f"no artifact {artifact_id!r}") from None
        except ReadError as exc:
            raise ArtifactNotFound(f"{artifact_id!r}: {exc}") from exc


def load_budget(
    state: str | os.PathLike[str] | None,
    max_pages: int | None = None,
    max_tokens: int | None = None,
    warnings: list[str] | None = None,
) -> PagingBudget:
    """The budget saved in the state file ``state`` (which, once created, holds the limits:
    differing ``max_pages``/``max_tokens`` are reported in ``warnings``), else a new one."""
    notes = [] if warnings is None else warnings
    if state and Path(state).exists():
        try:
            budget = PagingBudget.from_dict(
                json.loads(decode_text(read_bytes(state), str(state), notes))
            )
        except (ValueError, CtxLabError) as exc:
            if isinstance(exc, InputFileError):
                raise
            raise CtxLabError(f"{state}: not a paging state file ({exc})") from None
        for flag, given, kept in (
            ("--max-pages", max_pages, budget.max_pages),
            ("--max-tokens", max_tokens, budget.max_tokens),
        ):
            if given is not None and given != kept:
                notes.append(f"{state} holds the limits: {flag} {given} ignored (it is {kept})")
        return budget
    return PagingBudget.create(max_pages, max_tokens)


def save_budget(state: str | os.PathLike[str] | None, budget: PagingBudget) -> None:
    """Write the budget to the state file atomically (nothing when there is none)."""
    if state:
        write_atomic(state, json.dumps(budget.to_dict(), indent=2) + "\n")


def notebook_text(raw: str) -> str:
    """A notebook as its cells' text (``# %% [markdown]`` / ``# %%`` markers between cells), so
    paging it shows what a reader reads, not its JSON. Text that is not a notebook is kept."""
    import json

    try:
        cells = json.loads(raw).get("cells")
    except (ValueError, AttributeError):
        return raw
    if not isinstance(cells, list):
        return raw
    parts = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        kind = cell.get("cell_type", "code")
        parts.append(("# %%" if kind == "code" else f"# %% [{kind}]") + "\n" + text.rstrip("\n"))
    return "\n\n".join(parts) + "\n"


class BudgetTable:
    """Paging budgets by id, kept by a server for every surface it serves.

    Where ``client_named`` is true a caller may name a new quota itself (the lab's pager names
    its own); otherwise only ids this table issued (:meth:`issue`) are accepted, so an agent
    cannot invent a fresh quota. New budgets take ``max_pages``/``max_tokens`` unless a call
    gives its own; the least recently used are dropped beyond ``limit``.
    """

    def __init__(
        self,
        limit: int = 256,
        *,
        client_named: bool = True,
        max_pages: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.limit = limit
        self.client_named = client_named
        self.max_pages = max_pages
        self.max_tokens = max_tokens
        self.budgets: OrderedDict[str, PagingBudget] = OrderedDict()
        self._issued: LRUCache[str, bool] = LRUCache(max(limit, 1) * 4)
        self._lock = threading.Lock()

    def issue(self) -> str:
        """A new quota id (its quota is made when it is first spent from)."""
        import uuid

        budget_id = uuid.uuid4().hex
        with self._lock:
            self._issued[budget_id] = True
        return budget_id

    def obtain(
        self, budget_id: str | None, max_pages: int | None = None, max_tokens: int | None = None
    ) -> tuple[str, PagingBudget]:
        """``(id, quota)``: the quota ``budget_id`` names (made on first use), or a new one with
        a new id when none is named. An id this table never issued is a usage error unless
        callers may name budgets."""
        budget_id = budget_id or self.issue()
        with self._lock:
            if budget_id in self.budgets:
                self.budgets.move_to_end(budget_id)
                return budget_id, self.budgets[budget_id]
            if not self.client_named and budget_id not in self._issued:
                raise UsageError(
                    "unknown budget_id: pass the budget_id of an earlier page result (or none, "
                    "for a quota of your own)"
                )
            budget = PagingBudget.create(
                self.max_pages if max_pages is None else max_pages,
                self.max_tokens if max_tokens is None else max_tokens,
            )
            budget.budget_id = budget_id
            self.budgets[budget_id] = budget
            while len(self.budgets) > self.limit:
                self.budgets.popitem(last=False)
            return budget_id, budget

    def get(
        self, budget_id: str, max_pages: int | None = None, max_tokens: int | None = None
    ) -> PagingBudget:
        """The quota called ``budget_id``, made with these limits when new."""
        return self.obtain(budget_id, max_pages, max_tokens)[1]

    def raise_limits(
        self, budget_id: str, max_pages: int | None = None, max_tokens: int | None = None
    ) -> PagingBudget:
        """Raise (never lower) the limits of budget ``budget_id``, keeping what was used."""
        budget = self.find(budget_id)
        with budget.lock:
            if max_pages is not None:
                budget.max_pages = max(budget.max_pages, max_pages)
            if max_tokens is not None:
                budget.max_tokens = max(budget.max_tokens, max_tokens)
        return budget

    def find(self, budget_id: str) -> PagingBudget:
        """The quota ``budget_id`` as it stands: an issued id not yet spent from reads as a
        fresh quota (asking never makes one); any other unknown id is
        :class:`~ctx_lab.errors.ArtifactNotFound` (:class:`UsageError` where ids are issued
        only)."""
        with self._lock:
            if budget_id in self.budgets:
                return self.budgets[budget_id]
            if budget_id in self._issued:
                fresh = PagingBudget.create(self.max_pages, self.max_tokens)
                fresh.budget_id = budget_id
                return fresh
        if not self.client_named:
            raise UsageError("unknown budget_id: pass the budget_id of an earlier page result")
        raise ArtifactNotFound(f"no paging budget {budget_id!r} here")
