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
is, in which case the file is a sub-agent's own session. Thinking blocks are kept apart (the
API does not send earlier turns' thinking again); ``isApiErrorMessage`` and ``<synthetic>``
assistant lines were written by the client, not the model, and are not calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .._messages import Message
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


def read_claude_code(rows: list[Record]) -> Transcript:
    """A Claude Code session file as a :class:`Transcript` (see the module docstring)."""
    skipped: Counter[str] = Counter()
    unknown = 0
    nodes: dict[str, tuple[int, Mapping[str, Any]]] = {}
    order: list[str] = []
    everything: list[tuple[int, Mapping[str, Any]]] = []
    for number, record in rows:
        if not isinstance(record, Mapping):
            unknown += 1
            continue
        everything.append((number, record))
    sidechain_only = bool(everything) and all(r.get("isSidechain") for _, r in everything)
    sidechain = 0
    for number, record in everything:
        uuid = record.get("uuid")
        kind = record.get("type")
        if record.get("isSidechain") and not sidechain_only:
            sidechain += 1
            continue
        if not isinstance(uuid, str):
            skipped[str(kind) if isinstance(kind, str) else "unknown"] += 1
            continue
        if uuid in nodes:  # a line written twice (a resumed session copies its history)
            skipped["duplicate"] += 1
            continue
        nodes[uuid] = (number, record)
        order.append(uuid)
    position = {uuid: i for i, uuid in enumerate(order)}
    children: dict[str, list[str]] = {}
    for uuid in order:
        parent = _parent(nodes[uuid][1])
        if parent is not None:
            children.setdefault(parent, []).append(uuid)

    # the main chain: ancestors of the last message record (bounded: each node once)
    leaf = next((u for u in reversed(order) if nodes[u][1].get("type") in MESSAGE_KINDS), None)
    chain: list[str] = []
    seen: set[str] = set()
    warnings: list[str] = []
    current = leaf
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
                warnings.append(
                    f"line {number}: parent {parent[:12]}… is not in the file (a session "
                    "resumed from another file?): the transcript starts there"
                )
        current = parent if parent in nodes else None
    on_chain = set(chain)

    # sibling branches of parallel tool calls, gathered back into their response
    response_ids: set[str] = set()
    tool_uses: set[str] = set()
    for uuid in chain:
        record = nodes[uuid][1]
        if record.get("type") == "assistant":
            mid = _message(record).get("id")
            if isinstance(mid, str):
                response_ids.add(mid)
            tool_uses.update(_tool_ids(record, "tool_use", "id"))
    gathered: set[str] = set()
    rejected: set[str] = set()
    for _ in range(4):  # again while a branch's tool calls let another branch's results in
        before = len(gathered)
        rejected = set()
        stack = [c for u in chain for c in children.get(u, ()) if c not in on_chain]
        while stack:
            uuid = stack.pop()
            if uuid in on_chain or uuid in rejected:
                continue
            if uuid not in gathered:
                number, record = nodes[uuid]
                with located(number):
                    keep = _belongs(record, response_ids, tool_uses)
                if not keep:
                    rejected.add(uuid)
                    continue
                gathered.add(uuid)
            stack.extend(c for c in children.get(uuid, ()) if c not in gathered)
        if len(gathered) == before:
            break
    kept_ids = on_chain | gathered
    abandoned = 0
    for uuid in order:
        if uuid not in kept_ids:
            kind = nodes[uuid][1].get("type")
            if kind in MESSAGE_KINDS:
                abandoned += 1
            else:
                skipped[str(kind) if isinstance(kind, str) else "unknown"] += 1

    kept = sorted((nodes[u] for u in kept_ids), key=lambda pair: pair[0])
    messages: list[Message] = []
    calls: list[Call] = []
    by_response: dict[str, int] = {}  # message.id → index into calls
    compactions: list[int] = []
    summaries: list[int] = []
    thinking: list[tuple[int, str]] = []
    images = 0
    for number, record in kept:
        kind = record.get("type")
        with located(number):
            if kind not in MESSAGE_KINDS:
                if kind == "system" and record.get("subtype") == "compact_boundary":
                    compactions.append(len(messages))
                skipped[str(kind) if isinstance(kind, str) else "unknown"] += 1
                continue
            if record.get("isApiErrorMessage"):
                skipped["api-error"] += 1
                continue
            message = _message(record)
            content = message.get("content", "")
            images += images_in(content)
            if record.get("isCompactSummary"):  # the summary Claude Code wrote when it compacted
                summaries.append(len(messages))
                messages.append(Message.user(text_of(content)))
                continue
            before = len(messages)
            turn, thoughts = anthropic_turn(str(kind), content)
            messages.extend(turn)
            if not _is_call(record):
                if kind == "assistant":
                    skipped["synthetic"] += 1
                continue
            usage_value = message.get("usage")
            usage = Usage.from_anthropic(usage_value) if isinstance(usage_value, Mapping) else None
            mid = message.get("id")
            index = by_response.get(mid) if isinstance(mid, str) else None
            if index is not None:
                previous = calls[index]
                calls[index] = Call(
                    previous.index,
                    len(messages),
                    previous.model,
                    previous.timestamp,
                    usage or previous.usage,
                    previous.prompt,
                )
            else:
                index = len(calls)
                if isinstance(mid, str):
                    by_response[mid] = index
                calls.append(
                    Call(
                        index,
                        len(messages),
                        text_field(message.get("model"), "message.model") or None,
                        text_field(record.get("timestamp"), "timestamp") or None,
                        usage,
                        before,
                    )
                )
            thinking.extend((index, t) for t in thoughts if t)
    if sidechain:
        warnings.append(f"{sidechain} side-chain (sub-agent) lines left out of the main chain")
    if sidechain_only:
        warnings.append("every line is a side-chain: read as a sub-agent's own session")
    if abandoned:
        warnings.append(
            f"{abandoned} messages on branches that are not the main conversation (an edited "
            "prompt or a retry) left out"
        )
        skipped["other-branch"] += abandoned
    unknown += sum(
        n
        for kind, n in skipped.items()
        if kind not in KNOWN_KINDS
        and kind not in ("duplicate", "api-error", "synthetic", "other-branch")
    )
    if unknown:
        warnings.append(f"{unknown} lines of unknown kinds skipped")
    if thinking:
        warnings.append(
            f"{len(thinking)} thinking blocks kept apart: the API does not send earlier turns' "
            "thinking again"
        )
    return Transcript(
        "claude-code",
        tuple(messages),
        tuple(calls),
        compactions=tuple(compactions),
        recorded_summaries=tuple(summaries),
        sidechain_lines=sidechain,
        unknown_lines=unknown,
        images=images,
        warnings=tuple(warnings),
        skipped=tuple(sorted(skipped.items())),
        thinking=tuple(thinking),
        subagent=sidechain_only,
    )
