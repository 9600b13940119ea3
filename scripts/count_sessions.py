"""Count the real-session corpus by hand, independently of ctx_lab (nothing of ctx_lab is
imported): every file of ``tests/fixtures/sessions/corpus.toml`` is read from its raw JSON, JSON
Lines or YAML, and its agent, version, models, provider, calls, usage sums and compactions are
written back into the manifest; ``--check`` exits 1 where they differ from what it says.

    python scripts/count_sessions.py            # rewrite the counts
    python scripts/count_sessions.py --check    # compare only

How each kind of file is counted is said in the manifest's header.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tomllib
import zlib
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "tests" / "fixtures" / "sessions" / "corpus.toml"
ROOTS = {
    "shared": REPO.parent / "shared" / "real-data" / "transcripts",
    "fixtures": REPO / "tests" / "fixtures" / "sessions",
    "examples": REPO / "ctx_lab" / "examples" / "recorded",
}
PROVENANCE = ("file", "root", "kind", "repository", "commit", "path", "licence")
ASSISTANT_ITEMS = ("reasoning", "function_call", "custom_tool_call", "local_shell_call",
                   "web_search_call")  # fmt: skip


NAMES = {"anthropic": "Anthropic", "openai": "OpenAI", "google": "Google"}


def provider_name(names: set[str]) -> str:
    """The providers, as their owners spell them."""
    return ", ".join(sorted(NAMES.get(n.lower(), n) for n in names if n))


def text_of(root: str, name: str) -> str:
    raw = (ROOTS[root] / name).read_bytes()
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8")


def lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def claude(text: str) -> dict[str, Any]:
    rows = lines(text)
    side = all(r.get("isSidechain") for r in rows if "isSidechain" in r)
    usage: dict[str, Any] = {}
    ids: set[str] = set()
    compactions, version = [], ""
    for r in rows:
        version = version or r.get("version", "")
        mine = side or not r.get("isSidechain")
        if r.get("type") == "system" and r.get("subtype") == "compact_boundary" and mine:
            trigger = (r.get("compactMetadata") or {}).get("trigger", "")
            compactions.append((len(usage), trigger))
        m = r.get("message") or {}
        if r.get("type") == "assistant" and isinstance(m, dict) and m.get("usage") and mine:
            usage[m.get("id")] = m["usage"]  # the last line: the response's final output count
            ids.add(str(m.get("id")))
    sized = [(u.get("input_tokens", 0) + (u.get("cache_creation_input_tokens") or 0)
              + (u.get("cache_read_input_tokens") or 0), u.get("cache_read_input_tokens") or 0)
             for u in usage.values()]  # fmt: skip
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
            "output_tokens")  # fmt: skip
    models = {(r.get("message") or {}).get("model") for r in rows if r.get("type") == "assistant"}
    # Bedrock: its message ids (msg_bdrk_…), or a Bedrock model id (``us.anthropic.claude-…``,
    # ``converse/jp.anthropic.claude-…``: a region's inference profile)
    bedrock = any(i.startswith("msg_bdrk_") for i in ids) or any(
        "anthropic.claude" in m for m in models if m
    )
    return {
        "agent": "Claude Code", "version": version,
        "models": sorted(m for m in models if m and m != "<synthetic>"),
        "provider": "Amazon Bedrock" if bedrock else "Anthropic",
        "calls": len(usage),
        "usage": [sum(u.get(k) or 0 for u in usage.values()) for k in keys],
        "compactions": compactions, "sized": sized,
    }  # fmt: skip


def codex(text: str) -> dict[str, Any]:
    rows = lines(text)
    meta = next((r["payload"] for r in rows if r.get("type") == "session_meta"), {})
    models = {r["payload"].get("model") for r in rows if r.get("type") == "turn_context"}
    calls, previous, last, sums, sized = 0, False, None, [0, 0, 0, 0], []
    for r in rows:
        p = r.get("payload") or {}
        if r.get("type") == "response_item":
            model_side = p.get("type") in ASSISTANT_ITEMS or (
                p.get("type") == "message" and p.get("role") == "assistant")  # fmt: skip
            calls += model_side and not previous
            previous = model_side
        if r.get("type") == "event_msg" and p.get("type") == "token_count" and p.get("info"):
            total = json.dumps(p["info"].get("total_token_usage"), sort_keys=True)
            if total != last:
                last, u = total, p["info"].get("last_token_usage") or {}
                cached = u.get("cached_input_tokens", 0)
                sized.append((u.get("input_tokens", 0), cached))
                sums[0] += u.get("input_tokens", 0) - cached
                sums[2] += cached
                sums[3] += u.get("output_tokens", 0)
    return {"agent": "Codex CLI", "version": meta.get("cli_version", ""),
            "models": sorted(m for m in models if m),
            "provider": provider_name({meta.get("model_provider") or "openai"}),
            "calls": calls, "usage": sums, "compactions": [], "sized": sized}  # fmt: skip


def gemini(text: str) -> dict[str, Any]:
    found = [m for m in json.loads(text)["messages"] if m.get("tokens")]
    t = [m["tokens"] for m in found]
    return {"agent": "Gemini CLI", "version": "",
            "models": sorted({m["model"] for m in found if m.get("model")}),
            "provider": "Google", "calls": len(found),
            "usage": [sum(x.get("input", 0) - x.get("cached", 0) for x in t), 0,
                      sum(x.get("cached", 0) for x in t),
                      sum(x.get("output", 0) + x.get("thoughts", 0) for x in t)],
            "compactions": [],
            "sized": [(x.get("input", 0), x.get("cached", 0)) for x in t]}  # fmt: skip


def pi(text: str) -> dict[str, Any]:
    rows = lines(text)
    calls, sums, compactions, models, providers = 0, [0, 0, 0, 0], [], set(), set()
    sized: list[tuple[int, int] | None] = []
    for r in rows:
        if r.get("type") == "compaction":
            compactions.append((calls, "pi"))
        m = r.get("message") or {}
        if r.get("type") == "message" and m.get("role") == "assistant":
            calls += 1
            u = m.get("usage") or {}
            models.add(m.get("model"))
            providers.add(m.get("provider"))
            for i, k in enumerate(("input", "cacheWrite", "cacheRead", "output")):
                sums[i] += u.get(k, 0)
            total = u.get("input", 0) + u.get("cacheWrite", 0) + u.get("cacheRead", 0)
            sized.append((total, u.get("cacheRead", 0)) if total else None)  # aborted: none
    return {"agent": "Pi", "version": str(rows[0].get("version", "")),
            "models": sorted(m for m in models if m),
            "provider": provider_name(providers),
            "calls": calls, "usage": sums, "compactions": compactions,
            "sized": sized}  # fmt: skip


def body(side: dict[str, Any]) -> Any:
    if "parsed_body" in side:
        return side["parsed_body"]
    b = side.get("body")
    if isinstance(b, dict) and "string" in b:
        b = b["string"]
    if isinstance(b, bytes) and b[:2] == b"\x1f\x8b":
        b = zlib.decompress(b, 31)
    if isinstance(b, (bytes, str)):
        try:
            return json.loads(b)
        except ValueError:
            return None
    return b


def add_usage(response: dict[str, Any], sums: list[int]) -> tuple[int, int]:
    """Adds the answer's usage to ``sums``; its (total input, cache read)."""
    u = response.get("usage") or {}
    if "prompt_tokens" in u:  # Chat Completions
        cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        sums[0] += u["prompt_tokens"] - cached
        sums[2] += cached
        sums[3] += u.get("completion_tokens", 0)
        return u["prompt_tokens"], cached
    if "input_tokens_details" in u:  # Responses
        cached = (u.get("input_tokens_details") or {}).get("cached_tokens") or 0
        sums[0] += u["input_tokens"] - cached
        sums[2] += cached
        sums[3] += u.get("output_tokens", 0)
        return u["input_tokens"], cached
    read, write = u.get("cache_read_input_tokens") or 0, u.get("cache_creation_input_tokens") or 0
    sums[0] += u.get("input_tokens", 0)  # Messages
    sums[1] += write
    sums[2] += read
    sums[3] += u.get("output_tokens", 0)
    return u.get("input_tokens", 0) + read + write, read


def api(pairs: list[tuple[Any, Any, str]], agent: str) -> dict[str, Any]:
    calls, sums, models, hosts, sized = 0, [0, 0, 0, 0], set(), set(), []
    for request, response, uri in pairs:
        if not isinstance(request, dict) or not isinstance(response, dict):
            continue
        if not ("messages" in request or "input" in request) or "count_tokens" in uri:
            continue
        calls += 1
        models.add(response.get("model") or request.get("model"))
        hosts.add(uri.split("/")[2] if uri.count("/") >= 2 else "")
        sized.append(add_usage(response, sums))
    providers = {"api.anthropic.com": "Anthropic", "api.openai.com": "OpenAI"}
    named = {providers.get(h, "Amazon Bedrock" if "bedrock" in h else h) for h in hosts}
    return {"agent": agent, "version": "", "models": sorted(m for m in models if m),
            "provider": ", ".join(sorted(n for n in named if n)), "calls": calls,
            "usage": sums, "compactions": [], "sized": sized}  # fmt: skip


def cassette(text: str) -> dict[str, Any]:
    found = yaml.safe_load(text)["interactions"]
    pairs = [(body(i["request"]), body(i["response"]), i["request"].get("uri", "")) for i in found]
    return api(pairs, "API (VCR cassette)")


def bodies(text: str) -> dict[str, Any]:
    stripped = text.strip()
    rows = [json.loads(stripped)] if stripped.startswith("[") else lines(stripped)
    rows = rows[0] if len(rows) == 1 and isinstance(rows[0], list) else rows
    uri = "https://api.openai.com/v1/chat/completions"  # the pydantic-ai recording's own
    return api([(r.get("request"), r.get("response"), uri) for r in rows],
               "API (recorded bodies)")  # fmt: skip


# check's rules at their defaults (docs/commands.md, `ctx-lab check`): CTX107 cache-miss, a call
# that read more than 50,000 tokens less than the call before sent, a compaction between them
# aside; CTX102 cache-hit-rate, less than half the input of the calls from the sixth on read from
# the cache
MISS_TOKENS, HIT_RATE, HIT_AFTER = 50_000, 0.5, 5


def findings(counted: dict[str, Any]) -> dict[str, int]:
    """What check's cache rules find, from the usage alone."""
    sized = counted.pop("sized")
    after = {n for n, _ in counted["compactions"]}  # 0-based: the first call after one
    misses = sum(
        1
        for i in range(1, len(sized))
        if sized[i] and sized[i - 1] and i not in after
        and sized[i - 1][0] - sized[i][1] > MISS_TOKENS
    )  # fmt: skip
    late = [x for x in sized[HIT_AFTER:] if x]
    total = sum(t for t, _ in late)
    low = bool(total) and sum(r for _, r in late) / total < HIT_RATE
    return {"cache-miss": misses, "cache-hit-rate": int(low)}


KINDS = {"claude": claude, "codex": codex, "gemini": gemini, "pi": pi, "cassette": cassette,
         "bodies": bodies}  # fmt: skip


def toml_entry(given: dict[str, Any], counted: dict[str, Any]) -> str:
    out = ["[[file]]"]
    out += [f"{k} = {json.dumps(given[k], ensure_ascii=False)}" for k in PROVENANCE]
    for key in ("agent", "version", "provider"):
        out.append(f"{key} = {json.dumps(counted[key], ensure_ascii=False)}")
    out.append(f"models = {json.dumps(counted['models'])}")
    out.append(f"calls = {counted['calls']}")
    out.append(f"usage = {json.dumps(counted['usage'])}  # input, cache write, cache read, output")
    pairs = ", ".join(f'[{n}, "{t}"]' for n, t in counted["compactions"])
    out.append(f"compactions = [{pairs}]  # [calls before it, trigger]")
    found = ", ".join(f"{k} = {v}" for k, v in counted["findings"].items())
    out.append(f"findings = {{ {found} }}  # what check's cache rules find (defaults)")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = MANIFEST.read_text(encoding="utf-8")
    header = text[: text.index("[[file]]")]
    entries = tomllib.loads(text)["file"]
    written, differ = [], []
    for given in entries:
        if not (ROOTS[given["root"]] / given["file"]).is_file():
            print(f"absent: {given['root']}/{given['file']}", file=sys.stderr)
            return 2
        counted = KINDS[given["kind"]](text_of(given["root"], given["file"]))
        counted["compactions"] = [list(c) for c in counted["compactions"]]
        counted["findings"] = findings(counted)
        said = {k: given.get(k) for k in counted}
        if said != counted:
            differ.append(given["file"])
        written.append(toml_entry(given, counted))
    if args.check:
        for name in differ:
            print(f"counts differ: {name}", file=sys.stderr)
        return 1 if differ else 0
    MANIFEST.write_text(header + "\n".join(written), encoding="utf-8")
    print(f"counted {len(entries)} files into {MANIFEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
