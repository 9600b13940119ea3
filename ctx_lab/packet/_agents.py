"""Other agents' memory, for a project without ``.context/``: Kiro steering
(``.kiro/steering/*.md``), Cursor rules (``.cursor/rules/*.mdc``), a Cline memory bank
(``memory-bank/*.md``) and the instruction files agents read at the root (``AGENTS.md``,
``CLAUDE.md``, ``GEMINI.md``). Each file maps to the packet as its agent uses it, and the
packet's warnings open with the layout found and that mapping:

- Kiro steering files are steering. Their front matter's ``inclusion`` is ``always`` (Kiro's
  default), ``fileMatch`` (with ``fileMatchPattern``) or ``manual``. A ``fileMatch`` file applies
  when a matching file is open, which a packet does not know: it is included only when named.
- Cursor rules are steering. ``alwaysApply: true`` means always. A ``description`` alone is
  "agent requested": included when its words meet the packet's focus. ``globs`` alone
  ("auto attached", for matching files) means only when named, and the globs are said.
- A Cline memory bank's files are read whole at the start of every task, in Cline's documented
  order (projectbrief, productContext, systemPatterns, techContext, activeContext, progress,
  then the rest): they are the packet's Read These Files. So are the root instruction files.

The shapes come from the agents' documentation (Kiro "Steering", Cursor "Rules", Cline
"Memory Bank"), checked on real projects' files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..display import first_of
from ..files import confine, decode_text, entry_kind, normalize_newlines, read_bytes
from ._layout_map import LayoutFile, LayoutReport
from ._steering import DEFAULT_STEERING_PRIORITY, Steering, front_matter, matter_data

__all__ = [
    "AGENT_LAYOUTS",
    "agent_memory",
    "kiro_specs",
    "load_agent_memory",
    "memory_beside",
    "specs_warning",
]

KIRO = (".kiro", "steering")
CURSOR = (".cursor", "rules")
CLINE = "memory-bank"
# read whole by their agents on every task: the instruction files, Cursor's and Cline's legacy
# single rules files
ROOT_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".cursorrules", ".clinerules")
CLINE_ORDER = (
    "projectbrief.md",
    "productContext.md",
    "systemPatterns.md",
    "techContext.md",
    "activeContext.md",
    "progress.md",
)
AGENT_LAYOUTS = {
    "kiro": "Kiro steering (.kiro/steering/)",
    "cursor": "Cursor rules (.cursor/rules/)",
    "cline": "Cline memory bank (memory-bank/)",
    "root": "instruction and rules files",
}
MAX_AGENT_FILES = 200  # files read from one project's agent memory


def _project_of(start: Path) -> Path:
    """The project a memory folder belongs to (``start`` itself when it is none)."""
    if start.name == CLINE or start.name in (KIRO[0], CURSOR[0]):
        return start.parent
    if (start.parent.name, start.name) in (KIRO, CURSOR):
        return start.parent.parent
    return start


def _listing(folder: Path, suffixes: tuple[str, ...], nested: bool = False) -> list[Path]:
    """The files of ``folder`` with these suffixes (below it too, when ``nested``: Cursor
    reads rules in subfolders), by path, at most :data:`MAX_AGENT_FILES`."""
    if entry_kind(folder) != "dir":
        return []
    found: list[Path] = []
    try:
        for here, dirs, names in os.walk(folder):  # symlinked folders are not followed
            dirs.sort()
            found += [Path(here) / n for n in sorted(names) if Path(n).suffix.lower() in suffixes]
            if not nested or len(found) >= MAX_AGENT_FILES:
                break
    except OSError:
        return []
    files = [p for p in found[:MAX_AGENT_FILES] if entry_kind(p) == "file"]
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix().lower())


def agent_memory(start: Path) -> tuple[Path, list[tuple[str, Path]]] | None:
    """``(project, [(layout, file), …])`` for the agent memory at ``start`` (a project or one
    of its memory folders), or None when there is none."""
    project = _project_of(start)
    files: list[tuple[str, Path]] = []
    files += [("kiro", p) for p in _listing(project.joinpath(*KIRO), (".md",))]
    files += [("cursor", p) for p in _listing(project.joinpath(*CURSOR), (".mdc", ".md"), True)]
    bank = _listing(project / CLINE, (".md",), True)  # Cline reads its subfolders too
    rank = {name.lower(): i for i, name in enumerate(CLINE_ORDER)}
    bank.sort(key=lambda p: (p.parent != project / CLINE, rank.get(p.name.lower(), len(rank)), p))
    files += [("cline", p) for p in bank]
    files += [("root", project / n) for n in ROOT_FILES if entry_kind(project / n) == "file"]
    files += [("root", p) for p in _listing(project / ".clinerules", (".md",))]  # its folder form
    return (project, files[:MAX_AGENT_FILES]) if files else None


def _matter(text: str) -> tuple[dict[str, Any], str, int]:
    """Front matter (a mapping, empty when absent or not YAML), the body, its first line."""
    lines = text.split("\n")
    found = front_matter(lines)
    if found is None:
        return {}, text, 1
    matter, start = found
    data = matter_data(matter)[0] or {}
    return (data if isinstance(data, dict) else {}), "\n".join(lines[start:]), start + 1


def _kiro(label: str, stem: str, text: str) -> tuple[Steering, str]:
    data, body, line = _matter(text)
    inclusion = str(data.get("inclusion") or "always")
    if inclusion == "fileMatch":
        pattern = data.get("fileMatchPattern", "")
        how = f"manual (Kiro fileMatch {pattern!s}: no open files here, so only when named)"
        inclusion = "manual"
    elif inclusion == "manual":
        how = "manual (Kiro manual)"
    else:
        inclusion, how = "always", "always (Kiro always)"
    made = Steering(
        name=stem,
        description="",
        inclusion=inclusion,
        priority=DEFAULT_STEERING_PRIORITY,
        body=body.strip(),
        source=label,
        line=line,
    )
    return made, how


def _cursor(label: str, stem: str, text: str) -> tuple[Steering, str]:
    data, body, line = _matter(text)
    description = str(data.get("description") or "").strip()
    globs = data.get("globs")
    if data.get("alwaysApply") is True:
        inclusion, how = "always", "always (alwaysApply)"
    elif description:
        inclusion, how = "auto", "auto (agent requested: when the focus meets its description)"
    elif globs:
        inclusion, how = "manual", f"manual (auto attached to {globs!s}: only when named)"
    else:
        inclusion, how = "manual", "manual"
    made = Steering(
        name=stem,
        description=description,
        inclusion=inclusion,
        priority=DEFAULT_STEERING_PRIORITY,
        body=body.strip(),
        source=label,
        line=line,
    )
    return made, how


def load_agent_memory(
    project: Path, files: list[tuple[str, Path]], root: Path | None = None
) -> dict[str, Any]:
    """What the agent memory of ``project`` contributes to a :class:`ProjectContext`:
    ``steering``, ``read_order``, ``texts``, ``layout`` and ``warnings`` (the layout report
    first)."""
    warnings: list[str] = []
    steering: list[Steering] = []
    read_order: list[str] = []
    texts: dict[str, str] = {}
    mapping: list[tuple[str, str]] = []
    for layout, path in files:
        if root is not None:
            confine(root, path, what=path.name)
        label = path.relative_to(project).as_posix()
        text = normalize_newlines(decode_text(read_bytes(path), label, warnings))
        texts[label] = text
        if layout in ("kiro", "cursor"):
            made, how = (_kiro if layout == "kiro" else _cursor)(label, path.stem, text)
            if not made.body:
                mapping.append((label, "nothing (empty)"))
                continue
            steering.append(made)
            mapping.append((label, f"tier 3 steering, {how}"))
        else:
            read_order.append(label)
            mapping.append((label, "tier 1 Read These Files"))
    layouts = ", ".join(dict.fromkeys(AGENT_LAYOUTS[layout] for layout, _ in files))
    report = f"no .context/: read the agents' memory — {layouts}: " + "; ".join(
        f"{label} → {read_as}" for label, read_as in mapping
    )
    said = specs_warning(project)
    return {
        "layout": LayoutReport(layouts, tuple(LayoutFile(*pair) for pair in mapping)),
        "steering": tuple(steering),
        "read_order": tuple(read_order),
        "texts": texts,
        "warnings": (report, *([said] if said else []), *warnings),
    }


MAX_BESIDE_NAMED = 8  # other agents' files beside .context/ named one by one in the warning
# Kiro's specs: .kiro/specs/<feature>/ holding requirements.md (or bugfix.md), design.md and
# tasks.md — "a detailed implementation plan with discrete, trackable tasks" for one feature
# or bug fix (https://kiro.dev/docs/specs/, read 2026-12-07): a plan being worked through, not
# the project's standing memory, so named, not read
KIRO_SPECS = (".kiro", "specs")
KIRO_SPEC_FILES = ("requirements.md", "bugfix.md", "design.md", "tasks.md")
KIRO_SPECS_SOURCE = "https://kiro.dev/docs/specs/"
MAX_SPECS_NAMED = 8


def kiro_specs(project: Path) -> list[str]:
    """Each Kiro spec of ``project`` as ``.kiro/specs/<feature>/ (its files)``, by name; none
    without one (symlinked folders are not followed)."""
    folder = project.joinpath(*KIRO_SPECS)
    if entry_kind(folder) != "dir":
        return []
    found = []
    try:
        features = sorted(p for p in folder.iterdir() if entry_kind(p) == "dir")
    except OSError:
        return []
    for feature in features[:MAX_AGENT_FILES]:
        files = [n for n in KIRO_SPEC_FILES if entry_kind(feature / n) == "file"]
        if files:
            found.append(f"{'/'.join(KIRO_SPECS)}/{feature.name}/ ({', '.join(files)})")
    return found


def specs_warning(project: Path) -> str | None:
    """The warning that names the project's Kiro specs, or None without one."""
    specs = kiro_specs(project)
    if not specs:
        return None
    return (
        f"Kiro specs, not read into the packet: {first_of(specs, MAX_SPECS_NAMED)} — each is "
        f"one feature's requirements, design and tasks being worked through ({KIRO_SPECS_SOURCE});"
        " read one with `ctx-lab page FILE`"
    )


def memory_beside(project: Path, warnings: list[str]) -> dict[str, str]:
    """Other agents' memory beside ``.context/`` (``AGENTS.md``, ``.cursor/rules/`` …): not read
    into the packet, since ``.context/`` is the project's memory — named in one warning."""
    found = agent_memory(project)
    if found is None or found[0] != project:
        said = specs_warning(project)
        if said:
            warnings.append(said)
        return {}
    names = [path.relative_to(project).as_posix() for _, path in found[1]]
    warnings.append(
        "other agents' memory beside .context/, not read into the packet: "
        f"{first_of(names, MAX_BESIDE_NAMED)} (read only in a project without .context/)"
    )
    said = specs_warning(project)
    if said:
        warnings.append(said)
    why = "not read: another agent's memory; .context/ is this project's"
    return {name: why for name in names}
