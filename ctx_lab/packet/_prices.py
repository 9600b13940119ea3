"""What the parts of a packet cost under one counter: every count memoized (the same tasks,
entries and headings are priced at every budget), and the rendering whose stated token count
is the count of the text itself."""

from __future__ import annotations

from collections.abc import Callable

from ..tokens import CounterLike, CountingCache, TokenCounter, get_counter
from ._layout import entry_block, task_line, task_text
from ._markdown import Entry, Task

__all__ = ["Prices"]


class Prices:
    """Token counts of one context's texts under one counter."""

    def __init__(self, counter: CounterLike) -> None:
        self.counter: TokenCounter = get_counter(counter)
        self.counts = CountingCache(self.counter)
        self._entry_costs: dict[int, int] = {}  # by entry identity: the context's own entries
        self._task_texts: dict[int, str] = {}  # a task as the packet shows it
        self._task_costs: dict[int, int] = {}

    def caches(self) -> dict[str, object]:
        """Every cache this holds, by name (for the boundedness checks)."""
        return {
            "entry_costs": self._entry_costs,
            "task_texts": self._task_texts,
            "task_costs": self._task_costs,
        }

    def cost(self, text: str) -> int:
        """Tokens of ``text`` (memoized)."""
        return self.counts.count(text)

    def count_parts(self, parts: list[tuple[str, str]]) -> dict[str, int]:
        """Tokens per section of a rendered packet's ``(section, text)`` parts."""
        counts = self.counts.count_many([text for _, text in parts])
        used: dict[str, int] = {}
        for (section, _), tokens in zip(parts, counts, strict=True):
            used[section] = used.get(section, 0) + tokens
        return used

    def task_text(self, task: Task) -> str:
        """The task as the packet shows it."""
        found = self._task_texts.get(id(task))
        if found is None:
            found = self._task_texts[id(task)] = task_text(task)
        return found

    def task_cost(self, task: Task) -> int:
        """What the task's line costs."""
        found = self._task_costs.get(id(task))
        if found is None:
            found = self._task_costs[id(task)] = self.cost(task_line(self.task_text(task)))
        return found

    def entry_cost(self, entry: Entry) -> int:
        """What the entry costs in full."""
        found = self._entry_costs.get(id(entry))
        if found is None:
            # counted once per entry (kept here by identity), so not remembered by its text
            # as well: the text-keyed cache held 30 MB of entry blocks at 100k entries
            found = self._entry_costs[id(entry)] = self.counter.count(entry_block(entry.text))
        return found

    def finalize(
        self, build: Callable[[int | None], list[tuple[str, str]]]
    ) -> tuple[str, int, bool]:
        """Render so that the stated token count is the count of the text itself:
        ``(text, tokens, whether the text states them)``."""
        used = self.cost("".join(t for _, t in build(0)))
        seen: set[int] = set()
        while used not in seen:
            seen.add(used)
            text = "".join(t for _, t in build(used))
            count = self.cost(text)
            if count == used:
                return text, used, True
            used = count
        text = "".join(t for _, t in build(None))
        return text, self.cost(text), False
