"""Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``), as Claude Code
1.0.x and 2.x write them.

Every record with a ``uuid`` is a node of a tree (``parentUuid``, or ``logicalParentUuid``
across a compaction boundary) — messages, but also ``progress`` (hooks, bash, sub-agents),
``system`` (``stop_hook_summary``, ``turn_duration``, ``local_command``, ``compact_boundary``)
and kinds yet to come. The main chain is the ancestors of the last message record. Claude Code
writes each content block of a response as its own line (one API ``message.id``), and each
parallel tool call and its result as a *sibling branch* of the chain; those branches are
gathered back into the response they belong to (an assistant line of a response already in the
chain, or a tool result for a tool call already seen). Other branches (an edited prompt, a
retry) are left out and counted. Lines that share a ``message.id`` are one call, even with tool
results between them. ``isSidechain`` lines are a sub-agent's and left out — unless every line
is, in which case the file is a sub-agent's own session. Thinking blocks are kept apart (a
summary of what the model thought; which earlier thinking a request sends again, and at what
size, is :func:`ctx_lab.models.keeps_earlier_thinking`'s rule); ``isApiErrorMessage`` and
``<synthetic>`` assistant lines were written by the client, not the model, and are not calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...conversation import Message
from ._blocks import anthropic_turn, images_in, text_of
from ._model import Call, Transcript, Usage
from ._read import Record, located, mapping, text_field

MESSAGE_KINDS = ("user", "assistant")
KNOWN_KINDS = (
    *MESSAGE_KINDS,
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
)
SYNTHETIC_MODEL = "<synthetic>"


def _parent(record: Mapping[str, Any]) -> str | None:
    parent = record.get("parentUuid") or record.get("logicalParentUuid")
    return parent if isinstance(parent, str) else None


def _message(record: Mapping[str, Any]) -> Mapping[str, Any]:
    return mapping(record.get("message"), "message")


def _tool_ids(record: Mapping[str, Any], kind: str, key: str) -> list[str]:
    content = _message(record).get("content")
    if not isinstance(content, list):
        return []
    return [
        str(b.get(key))
        for b in content
        if isinstance(b, Mapping) and b.get("type") == kind and b.get(key) is not None
    ]


def _only_tool_results(record: Mapping[str, Any]) -> bool:
    content = _message(record).get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)
    )


def _is_call(record: Mapping[str, Any]) -> bool:
    if record.get("type") != "assistant" or record.get("isApiErrorMessage"):
        return False
    return _message(record).get("model") != SYNTHETIC_MODEL


def _belongs(record: Mapping[str, Any], response_ids: set[str], tool_uses: set[str]) -> bool:
    """Whether a record on a side branch belongs to the conversation: a line of a response
    already seen (its tool calls join ``tool_uses``), a user line of nothing but results of
    tool calls already seen, or a record that is not a message (walked through)."""
    kind = record.get("type")
    if kind == "assistant":
        mid = _message(record).get("id")
        if isinstance(mid, str) and mid in response_ids:
            tool_uses.update(_tool_ids(record, "tool_use", "id"))
            return True
        return False
    if kind == "user":
        ids = _tool_ids(record, "tool_result", "tool_use_id")
        return _only_tool_results(record) and all(i in tool_uses for i in ids)
    return True


@dataclass
class _Reading:
    """What the stages of :func:`read_claude_code` share."""

    nodes: dict[str, tuple[int, Mapping[str, Any]]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # uuids in file order
    children: dict[str, list[str]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    unknown: int = 0
    sidechain: int = 0
    sidechain_only: bool = False
    warnings: list[str] = field(default_factory=list)
    # what the kept records make
    messages: list[Message] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    by_response: dict[str, int] = field(default_factory=dict)  # message.id → index into calls
    compactions: list[int] = field(default_factory=list)
    summaries: list[int] = field(default_factory=list)
    thinking: list[tuple[int, str]] = field(default_factory=list)
    images: int = 0

    def skip(self, kind: Any) -> None:
        self.skipped[str(kind) if isinstance(kind, str) else "unknown"] += 1


def _index_nodes(state: _Reading, rows: list[Record]) -> None:
    """Every record with a uuid, once, in file order, and each node's children; side-chain
    lines are left out unless every line is one (a sub-agent's own session)."""
    everything: list[tuple[int, Mapping[str, Any]]] = []
    for number, record in rows:
        if not isinstance(record, Mapping):
            state.unknown += 1
            continue
        everything.append((number, record))
    state.sidechain_only = bool(everything) and all(r.get("isSidechain") for _, r in everything)
    for number, record in everything:
        uuid = record.get("uuid")
        if record.get("isSidechain") and not state.sidechain_only:
            state.sidechain += 1
            continue
        if not isinstance(uuid, str):
            state.skip(record.get("type"))
            continue
        if uuid in state.nodes:  # a line written twice (a resumed session copies its history)
            state.skipped["duplicate"] += 1
            continue
        state.nodes[uuid] = (number, record)
        state.order.append(uuid)
    for uuid in state.order:
        parent = _parent(state.nodes[uuid][1])
        if parent is not None:
            state.children.setdefault(parent, []).append(uuid)


def _main_chain(state: _Reading) -> list[str]:
    """The ancestors of the last message record (bounded: each node once)."""
    nodes, order = state.nodes, state.order
    position = {uuid: i for i, uuid in enumerate(order)}
    current = next((u for u in reversed(order) if nodes[u][1].get("type") in MESSAGE_KINDS), None)
    chain: list[str] = []
    seen: set[str] = set()
    while current is not None and current not in seen:
        seen.add(current)
        chain.append(current)
        number, record = nodes[current]
        parent = _parent(record)
        if parent is not None and parent not in nodes:
            if record.get("subtype") == "compact_boundary" and position[current] > 0:
                # the boundary's logical parent was never written: the history before the
                # compaction ends with the record written just before the boundary
                parent = order[position[current] - 1]
            else:
                state.warnings.append(
                    f"line {number}: parent {parent[:12]}… is not in the file (a session "
                    "resumed from another file?): the transcript starts there"
                )
        current = parent if parent in nodes else None
    return chain


def _gather_branches(state: _Reading, chain: list[str]) -> set[str]:
    """The chain and the sibling branches of parallel tool calls, gathered back into their
    response (again while a branch's tool calls let another branch's results in)."""
    on_chain = set(chain)
    response_ids: set[str] = set()
    tool_uses: set[str] = set()
    for uuid in chain:
        record = state.nodes[uuid][1]
        if record.get("type") == "assistant":
            mid = _message(record).get("id")
            if isinstance(mid, str):
                response_ids.add(mid)
            tool_uses.update(_tool_ids(record, "tool_use", "id"))
    gathered: set[str] = set()
    for _ in range(4):
        before = len(gathered)
        rejected: set[str] = set()
        stack = [c for u in chain for c in state.children.get(u, ()) if c not in on_chain]
        while stack:
            uuid = stack.pop()
            if uuid in on_chain or uuid in rejected:
                continue
            if uuid not in gathered:
                number, record = state.nodes[uuid]
                with located(number):
                    keep = _belongs(record, response_ids, tool_uses)
                if not keep:
                    rejected.add(uuid)
                    continue
                gathered.add(uuid)
            stack.extend(c for c in state.children.get(uuid, ()) if c not in gathered)
        if len(gathered) == before:
            break
    return on_chain | gathered


def _count_left_out(state: _Reading, kept_ids: set[str]) -> int:
    """Records not kept: message lines on other branches (returned), other kinds skipped."""
    abandoned = 0
    for uuid in state.order:
        if uuid not in kept_ids:
            kind = state.nodes[uuid][1].get("type")
            if kind in MESSAGE_KINDS:
                abandoned += 1
            else:
                state.skip(kind)
    return abandoned


def _add_call(state: _Reading, record: Mapping[str, Any], before: int) -> int:
    """The call this assistant line belongs to (lines of one ``message.id`` are one call, its
    usage the last reported), made or extended; its index."""
    message = _message(record)
    usage_value = message.get("usage")
    usage = Usage.from_anthropic(usage_value) if isinstance(usage_value, Mapping) else None
    mid = message.get("id")
    index = state.by_response.get(mid) if isinstance(mid, str) else None
    if index is not None:
        previous = state.calls[index]
        state.calls[index] = Call(
            index=previous.index,
            context=len(state.messages),
            model=previous.model,
            timestamp=previous.timestamp,
            usage=usage or previous.usage,
            prompt=previous.prompt,
        )
        return index
    index = len(state.calls)
    if isinstance(mid, str):
        state.by_response[mid] = index
    state.calls.append(
        Call(
            index=index,
            context=len(state.messages),
            model=text_field(message.get("model"), "message.model") or None,
            timestamp=text_field(record.get("timestamp"), "timestamp") or None,
            usage=usage,
            prompt=before,
        )
    )
    return index


def _add_record(state: _Reading, record: Mapping[str, Any]) -> None:
    """One kept record: its messages, and the call it belongs to."""
    kind = record.get("type")
    if kind not in MESSAGE_KINDS:
        if kind == "system" and record.get("subtype") == "compact_boundary":
            state.compactions.append(len(state.messages))
        state.skip(kind)
        return
    if record.get("isApiErrorMessage"):
        state.skipped["api-error"] += 1
        return
    content = _message(record).get("content", "")
    state.images += images_in(content)
    if record.get("isCompactSummary"):  # the summary Claude Code wrote when it compacted
        state.summaries.append(len(state.messages))
        state.messages.append(Message.user(text_of(content)))
        return
    before = len(state.messages)
    turn, thoughts = anthropic_turn(str(kind), content)
    state.messages.extend(turn)
    if not _is_call(record):
        if kind == "assistant":
            state.skipped["synthetic"] += 1
        return
    index = _add_call(state, record, before)
    state.thinking.extend((index, t) for t in thoughts if t)


def _closing_warnings(state: _Reading, abandoned: int) -> None:
    if state.sidechain:
        state.warnings.append(
            f"{state.sidechain} side-chain (sub-agent) lines left out of the main chain"
        )
    if state.sidechain_only:
        state.warnings.append("every line is a side-chain: read as a sub-agent's own session")
    if abandoned:
        state.warnings.append(
            f"{abandoned} messages on branches that are not the main conversation (an edited "
            "prompt or a retry) left out"
        )
        state.skipped["other-branch"] += abandoned
    state.unknown += sum(
        n
        for kind, n in state.skipped.items()
        if kind not in KNOWN_KINDS
        and kind not in ("duplicate", "api-error", "synthetic", "other-branch")
    )
    if state.unknown:
        state.warnings.append(f"{state.unknown} lines of unknown kinds skipped")
    if state.thinking:
        state.warnings.append(
            f"{len(state.thinking)} thinking blocks kept apart: the file holds summaries, and a "
            "request that sends thinking back carries its full size"
        )


def read_claude_code(rows: list[Record]) -> Transcript:
    """A Claude Code session file as a :class:`Transcript` (see the module docstring)."""
    state = _Reading()
    _index_nodes(state, rows)
    chain = _main_chain(state)
    kept_ids = _gather_branches(state, chain)
    abandoned = _count_left_out(state, kept_ids)
    for number, record in sorted((state.nodes[u] for u in kept_ids), key=lambda pair: pair[0]):
        with located(number):
            _add_record(state, record)
    _closing_warnings(state, abandoned)
    return Transcript(
        "claude-code",
        tuple(state.messages),
        tuple(state.calls),
        compactions=tuple(state.compactions),
        recorded_summaries=tuple(state.summaries),
        sidechain_lines=state.sidechain,
        unknown_lines=state.unknown,
        images=state.images,
        warnings=tuple(state.warnings),
        skipped=tuple(sorted(state.skipped.items())),
        thinking=tuple(state.thinking),
        subagent=state.sidechain_only,
        agent_version=_version(rows),
    )


def _version(rows: list[Record]) -> str:
    """The Claude Code version the main session's records name (its ``version`` field; the
    newest when a session spans an update)."""
    found = ""
    for _, record in rows:
        version = record.get("version") if isinstance(record, dict) else None
        if isinstance(version, str) and len(version) <= 40 and not record.get("isSidechain"):
            found = version
    return found
