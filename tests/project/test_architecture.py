"""The architecture, checked: layers point one way (adapters → commands → engines → core), no two
concept packages import each other, and each shared mechanism has one home — found by walking
every module's AST, so a second copy fails here before it can drift from the first."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest
from paths import REPO

PACKAGE = REPO / "ctx_lab"

# The layers of ARCHITECTURE.md, by top-level module or package of ctx_lab.
CORE = {
    "choices",
    "clock",
    "collector",
    "_lazy",
    "_version",
    "display",
    "errors",
    "examples",
    "files",
    "instructions",
    "limits",
    "packed",  # gzip-packed inputs, read under the unpacked size limit
    "claims",  # how a figure was made: the labels and the walk that finds one missing
    "cassettes",  # recorded HTTP calls (VCR cassettes), for capture --fake and transcripts
    "otel_names",  # span attribute names: the GenAI conventions, OpenInference, ctx_lab's own
    "models",
    "plotting",
    "schemas",
    "severity",
    "token_budget",
    "tokens",
    "validate",
    "wire",
}
ENGINES = {
    "analysis",
    "anatomy",
    "builder",
    "check",
    "conversation",
    "doctor",
    "recordings",
    "packet",
    "paging",
    "read",
}
COMMANDS = {"commands"}
ADAPTERS = {
    "__init__",
    "__main__",
    "_cli_reference",  # renders the CLI's help pages into docs/cli.md
    "_doc_examples",  # runs the docs' console examples into docs/*.md
    "tools",  # agent tools in-process: the MCP tools over a Session
    "capture",
    "cli",
    "mcp_server",
    "notebook",
    "server",
    "labextension",
}
LAYER = {
    **dict.fromkeys(CORE, 0),
    **dict.fromkeys(ENGINES, 1),
    **dict.fromkeys(COMMANDS, 2),
    **dict.fromkeys(ADAPTERS, 3),
}
# Packages that hold one concept each; none may import another one that imports it back.
CONCEPTS = {
    "analysis",
    "anatomy",
    "builder",
    "check",
    "conversation",
    "models",
    "packet",
    "paging",
    "read",
    "recordings",
    "tokens",
    "tools",
}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "labextension" not in p.parts)


def top(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> set[str]:
    """Every ``ctx_lab`` module ``path`` imports, anywhere in the file (lazy imports count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("ctx_lab")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            if name.startswith("ctx_lab"):
                found.add(name)
                found |= {f"{name}.{a.name}" for a in node.names}
    return found


def top_of(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) < 2:
        return None
    return (
        parts[1] if (PACKAGE / parts[1]).exists() or (PACKAGE / f"{parts[1]}.py").exists() else None
    )


def test_every_module_has_a_layer() -> None:
    assert {top(p) for p in modules()} <= set(LAYER)


def test_layers_point_one_way() -> None:
    wrong = []
    for path in modules():
        here = top(path)
        for name in imported(path):
            there = top_of(name)
            if there is None or there == here:
                continue
            if LAYER[there] > LAYER[here]:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not wrong, "a lower layer imports a higher one:\n" + "\n".join(sorted(set(wrong)))


def concept_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {c: set() for c in CONCEPTS}
    for path in modules():
        here = top(path)
        if here not in CONCEPTS:
            continue
        for name in imported(path):
            there = top_of(name)
            if there in CONCEPTS and there != here:
                graph[here].add(there)
    return graph


def test_no_two_concept_packages_import_each_other() -> None:
    graph = concept_graph()
    cycles = [
        (a, b)
        for a, b in itertools.combinations(sorted(graph), 2)
        if b in graph[a] and a in graph[b]
    ]
    assert not cycles
    # and no longer cycles either: a topological order exists
    remaining = {k: set(v) for k, v in graph.items()}
    while remaining:
        free = [k for k, v in remaining.items() if not (v & set(remaining))]
        assert free, f"import cycle among {sorted(remaining)}"
        for k in free:
            remaining.pop(k)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``: names for the type checker, never imported."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            skip |= {id(n) for b in node.body for n in ast.walk(b)}
    return skip


def module_graph() -> dict[str, set[str]]:
    """Each module of ctx_lab → the modules of ctx_lab it imports when it runs (at its top or
    inside a function; ``TYPE_CHECKING`` imports aside)."""
    names = {module_name(p): p for p in modules()}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_nodes(tree)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join([*base, *([node.module] if node.module else [])])
                candidates = [module, *(f"{module}.{a.name}" for a in node.names)]
            else:
                continue
            found |= {c for c in candidates if c in names and c not in (name, "ctx_lab")}
        graph[name] = found
    return graph


def find_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one node (Tarjan's walk)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for there in sorted(graph[node]):
            if there not in order:
                visit(there)
                low[node] = min(low[node], low[there])
            elif there in stack:
                low[node] = min(low[node], order[there])
        if low[node] == order[node]:
            part = [stack.pop()]
            while part[-1] != node:
                part.append(stack.pop())
            if len(part) > 1:
                circles.append(sorted(part))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return circles


def test_no_import_circle_between_modules() -> None:
    """No module imports one that imports it back, however long the way round (a registry
    loads what registers in it by name — commands/_index.py, packet's ``PROFILE_CLASSES`` —
    never by an import of its own)."""
    circles = find_circles(module_graph())
    assert not circles, "import circles:\n" + "\n".join(" ↔ ".join(c) for c in circles)


def test_the_circle_check_bites() -> None:
    """A circle of three is found; the module graph counts an import inside a function and
    leaves out one under ``TYPE_CHECKING``."""
    graph = {"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}
    assert find_circles(graph) == []
    graph["c"].add("a")
    assert find_circles(graph) == [["a", "b", "c"]]
    modules_ = module_graph()
    assert "ctx_lab.packet._plots" in modules_["ctx_lab.packet._packet"]  # in a method
    typed = "ctx_lab.packet._packet"  # packet/__init__ names it for the type checker only
    assert typed not in modules_["ctx_lab.packet"]


def test_tools_paging_read_run_one_way() -> None:
    graph = concept_graph()
    assert "paging" in graph["tools"] and "read" in graph["paging"]
    assert "paging" not in graph["read"] and "tools" not in graph["read"]
    assert "tools" not in graph["paging"]


# -- one home per mechanism ----------------------------------------------------------------------

HOMES = {
    "confinement": "files.py",
    "binary": "files.py",
    "severity": "severity.py",
    "whole_number": "validate.py",
    "budget": "token_budget.py",
    "counting_cache": "tokens/_cache.py",
    "packet_layout": "packet/_layout.py",
    "ctx08_profile": "packet/_ctx08.py",
}


def rel(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def trees() -> list[tuple[Path, ast.AST]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in modules()]


def _is_dunder_file_path(node: ast.AST) -> bool:
    # Path(__file__).resolve(): where the package itself lives, not confinement
    return isinstance(node, ast.Call) and any(
        isinstance(a, ast.Name) and a.id == "__file__" for a in node.args
    )


def test_only_files_resolves_symlinks() -> None:
    found = []
    for path, tree in trees():
        if rel(path) == HOMES["confinement"]:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            receiver = node.func.value
            on_self = isinstance(receiver, ast.Name) and receiver.id == "self"
            if node.func.attr == "resolve" and not on_self and not _is_dunder_file_path(receiver):
                found.append(f"{rel(path)}:{node.lineno} .resolve()")
            if node.func.attr in ("realpath", "commonpath", "is_relative_to"):
                found.append(f"{rel(path)}:{node.lineno} {node.func.attr}()")
    assert not found, "symlinks resolved outside ctx_lab/files.py:\n" + "\n".join(found)


def _has_nul(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, bytes | str)
        and "\x00"
        in (node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value)
    )


def test_only_files_sniffs_for_binary() -> None:
    found = []
    for path, tree in trees():
        if rel(path) == HOMES["binary"]:
            continue
        for node in ast.walk(tree):
            sniffs = isinstance(node, ast.Compare) and any(
                isinstance(op, ast.In | ast.NotIn) for op in node.ops
            )
            if sniffs and _has_nul(node.left):
                found.append(f"{rel(path)}:{node.lineno}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("find", "count", "index")
                and node.args
                and _has_nul(node.args[0])
            ):
                found.append(f"{rel(path)}:{node.lineno}")
    assert not found, "binary sniffing outside ctx_lab/files.py:\n" + "\n".join(found)


THRESHOLDS = {0.7, 0.9, 70, 90}


def test_only_severity_compares_meter_thresholds() -> None:
    found = []
    for path, tree in trees():
        if rel(path) == HOMES["severity"]:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                for side in (node.left, *node.comparators):
                    if (
                        isinstance(side, ast.Constant)
                        and not isinstance(side.value, bool)
                        and isinstance(side.value, int | float)
                        and side.value in THRESHOLDS
                    ):
                        found.append(f"{rel(path)}:{node.lineno} compares with {side.value}")
    assert not found, "meter thresholds outside ctx_lab/severity.py:\n" + "\n".join(found)


def _strings(tree: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _joined_text(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string literal (f-strings by their constant parts), except the names listed in
    ``__all__`` and those a package's ``_WHERE`` maps to their modules (ctx_lab._lazy)."""
    exported = {
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in ("__all__", "_WHERE") for t in node.targets)
        and isinstance(node.value, ast.List | ast.Tuple | ast.Dict)
        for item in (node.value.keys if isinstance(node.value, ast.Dict) else node.value.elts)
    }
    out = []
    for node in ast.walk(tree):
        if id(node) in exported:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            out.append((node.lineno, text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.lineno, node.value))
    return out


def test_one_whole_number_validator() -> None:
    found = [
        f"{rel(path)}:{line}"
        for path, tree in trees()
        if rel(path) != HOMES["whole_number"]
        for line, text in _joined_text(tree)
        if "whole number" in text
    ]
    assert not found, "whole-number checks outside ctx_lab/validate.py:\n" + "\n".join(found)


def test_one_budget_resolution() -> None:
    found = [
        f"{rel(path)}:{line}"
        for path, tree in trees()
        if rel(path) != HOMES["budget"]
        for line, text in _joined_text(tree)
        if text in ("token_budget", "CTX_TOKEN_BUDGET", "ctx-lab.toml", ".ctxrc")
    ]
    assert not found, "budget configuration read outside ctx_lab/token_budget.py:\n" + "\n".join(
        found
    )


def test_one_counting_cache() -> None:
    """No module but the cache memoizes counts: ``x[text] = <counter>.count(...)``."""
    found = []
    for path, tree in trees():
        if rel(path) == HOMES["counting_cache"]:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign):
                continue
            value = node.value
            if not (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr in ("count", "count_many")
                and value.args
            ):
                continue
            counted = ast.dump(value.args[0])
            for target in node.targets:  # memo[text] = counter.count(text)
                if isinstance(target, ast.Subscript) and ast.dump(target.slice) == counted:
                    found.append(f"{rel(path)}:{node.lineno}")
    assert not found, "a second counting cache:\n" + "\n".join(found)


def test_one_packet_layout() -> None:
    """The design profile's layout lives in packet/_layout.py; the ctx-0.8 profile keeps
    ctx 0.8.1's own layout with everything else of that profile in packet/_ctx08.py."""
    from ctx_lab.packet._layout import SECTION_TITLES

    titles = set(SECTION_TITLES.values())
    found = []
    for path, tree in trees():
        if not rel(path).startswith("packet/") or rel(path) in (
            HOMES["packet_layout"],
            HOMES["ctx08_profile"],
        ):
            continue
        for line, text in _joined_text(tree):
            if text.lstrip("\n").startswith("## ") or text in titles:
                found.append(f"{rel(path)}:{line} {text!r}")
    assert not found, "packet layout strings outside ctx_lab/packet/_layout.py:\n" + "\n".join(
        found
    )


def _passes_on_all_but_native(handler: ast.ExceptHandler) -> bool:
    """``except BaseException as exc: if not native_failure(exc): raise …``: what native code
    escaped with (a Rust panic) becomes this request's error; everything else goes on up."""
    first = handler.body[0] if handler.body else None
    return (
        isinstance(first, ast.If)
        and "native_failure" in ast.unparse(first.test)
        and isinstance(first.body[0], ast.Raise)
    )


def test_the_server_catches_no_bare_exception() -> None:
    for path in (PACKAGE / "server").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler):
                kind = node.type
                assert kind is not None, f"{rel(path)}:{node.lineno} bare except"
                names = [kind] if not isinstance(kind, ast.Tuple) else list(kind.elts)
                for name in names:
                    if isinstance(name, ast.Name) and name.id == "BaseException":
                        assert _passes_on_all_but_native(node), f"{rel(path)}:{node.lineno}"
                        continue
                    assert not (isinstance(name, ast.Name) and name.id == "Exception"), (
                        f"{rel(path)}:{node.lineno} catches {name.id}"
                    )


def test_the_routes_call_the_command_functions() -> None:
    """No argv round trip and no engine calls: the server speaks to ctx_lab.commands."""
    source = (PACKAGE / "server" / "_handlers.py").read_text(encoding="utf-8")
    assert "invoke(" not in source and "front_door" not in source
    for engine in ("build_context", "assemble_packet", "Pager(", "DirectoryStore("):
        assert engine not in source


@pytest.mark.parametrize("name", sorted(HOMES))
def test_each_home_exists(name: str) -> None:
    assert (PACKAGE / HOMES[name]).is_file()


WALL_CLOCK_READS = {
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
    ("time", "time"),
    ("time", "time_ns"),
}
CLOCK_PARAMETERS = {"now", "clock"}


def _wall_clock_findings(tree: ast.AST, where: str) -> list[str]:
    """Wall-clock reads outside ``clock.py``, and ``utc_now()`` in a function that takes no
    injectable ``now``/``clock``."""
    findings: list[str] = []

    def visit(node: ast.AST, params: set[str]) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            params = names if not isinstance(node, ast.Lambda) else params | names
        if isinstance(node, ast.Attribute):
            value = node.value
            base = value.id if isinstance(value, ast.Name) else getattr(value, "attr", "")
            if (base, node.attr) in WALL_CLOCK_READS:
                findings.append(f"{where}:{node.lineno} reads the wall clock ({base}.{node.attr})")
        if isinstance(node, ast.Name) and node.id == "utc_now" and not (params & CLOCK_PARAMETERS):
            findings.append(f"{where}:{node.lineno} uses utc_now without a now/clock parameter")
        for child in ast.iter_child_nodes(node):
            visit(child, params)

    visit(tree, set())
    return sorted(set(findings))


def test_time_enters_through_an_injectable_clock() -> None:
    findings: list[str] = []
    for path in modules():
        if path.name == "clock.py" and path.parent == PACKAGE:
            continue
        findings += _wall_clock_findings(
            ast.parse(path.read_text()), str(path.relative_to(PACKAGE))
        )
    assert not findings, "\n".join(findings)


def test_the_clock_guard_bites() -> None:
    bad = """
from datetime import UTC, datetime
import time
from .clock import utc_now
def stamp():
    return datetime.now(UTC)
def age(entry):
    return time.time() - entry
def dated(x):
    return utc_now()
def fine(x, now=None):
    return now or utc_now()
class Journal:
    def __init__(self, clock=None):
        self.clock = clock or utc_now
"""
    findings = _wall_clock_findings(ast.parse(bad), "bad.py")
    assert [f.split(" ", 1)[0] for f in findings] == ["bad.py:10", "bad.py:6", "bad.py:8"]


def test_every_exception_class_lives_in_errors() -> None:
    found = []
    for path, tree in trees():
        if rel(path) == "errors.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                if any(
                    b.endswith(("Error", "Exception")) or b in ("CtxLabError", "ValueError")
                    for b in bases
                ):
                    found.append(f"{rel(path)}:{node.lineno} {node.name}")
    assert not found, "exception classes outside ctx_lab/errors.py:\n" + "\n".join(found)


def test_every_error_derives_from_ctxlaberror() -> None:
    import ctx_lab.errors as errors

    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            assert issubclass(value, errors.CtxLabError), name


def test_one_palette() -> None:
    """Colours live in plotting.py (severity's three in severity.py); elsewhere only CSS
    fallbacks of JupyterLab's theme variables (``var(--jp-…, #hex)``)."""
    import re

    hex_colour = re.compile(r"#[0-9a-fA-F]{6}\b")
    found = []
    for path in modules():
        if rel(path) in ("plotting.py", "severity.py"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            bare = re.sub(r"var\(--jp-[\w-]+,\s*#[0-9a-fA-F]{6}\)", "", line)
            if hex_colour.search(bare):
                found.append(f"{rel(path)}:{number}: {line.strip()[:80]}")
    assert not found, "colours outside ctx_lab/plotting.py:\n" + "\n".join(found)


# -- modules a newcomer can hold in their head -------------------------------------------------

LONG_MODULE = 420  # "~400 lines"


def test_no_module_over_400_lines_without_its_reason() -> None:
    """Every module of ctx_lab is about 400 lines at most, unless its docstring says why."""
    long = []
    for path in modules():
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines <= LONG_MODULE:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if "Why one module over ~400 lines:" not in doc:
            long.append(f"{path.relative_to(PACKAGE)}: {lines} lines")
    assert not long, "split these or say why in their docstring:\n" + "\n".join(long)


def test_import_ctx_lab_loads_only_what_it_touches() -> None:
    """``import ctx_lab`` (every CLI call and worker) loads no engine, no tokenizer and no entry
    points; the models and tokens APIs load on first use, and type checkers see them."""
    import subprocess
    import sys

    probe = (
        "import sys, ctx_lab\n"
        "heavy = ['importlib.metadata', 'ctx_lab.models', 'ctx_lab.tokens', 'tiktoken']\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "ctx_lab.count_tokens('x')\n"
        "print('ctx_lab.tokens' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (PACKAGE / rel).is_dir() or (PACKAGE / rel.with_suffix(".py")).is_file()


def test_no_import_of_another_packages_private_module() -> None:
    """A package's private modules (``_x.py``) are its own: others import what its
    ``__init__`` exports (lazy imports count)."""
    found = []
    for path in modules():
        here = module_name(path)
        own = here if path.name == "__init__.py" else here.rsplit(".", 1)[0]
        for name in imported(path):
            if not _is_module(name):
                continue  # a name, not a module
            parts = name.split(".")
            for depth, part in enumerate(parts[1:], start=1):
                owner = ".".join(parts[:depth])
                # the root's own private modules (``ctx_lab._version``) are everyone's, and a
                # subpackage belongs to its parent (``recordings.cache`` may use ``recordings._x``)
                inside = own == owner or own.startswith(f"{owner}.")
                if part.startswith("_") and owner != "ctx_lab" and not inside:
                    found.append(f"{here} imports {name}")
                    break
    assert not found, "\n".join(sorted(found))


MAX_FUNCTION_LINES = 80  # a function's body, its signature and docstring aside
LONG_REASON = "long because"  # what a docstring says to keep a longer body


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0  # type: ignore[operator]


def test_no_function_over_80_lines_without_its_reason() -> None:
    """Long parsers and pipelines are named stages: a function body over ~80 lines fails
    unless its docstring says why it is long."""
    found = []
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = _body_lines(node)
                reason = LONG_REASON in (ast.get_docstring(node) or "").lower()
                if size > MAX_FUNCTION_LINES and not reason:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}: {size}")
    assert not found, "split these into named stages, or say why in their docstring:\n" + (
        "\n".join(found)
    )


# the packages a test folder mirrors; the rest live in the folders named beside them
MIRRORED = {
    "analysis",
    "anatomy",
    "builder",
    "check",
    "commands",
    "conversation",
    "packet",
    "paging",
    "read",
    "recordings",
}
TEST_FOLDERS = {
    *MIRRORED,
    "core",  # tokens, models, files, display, wire, schemas, plugins
    "adapters",  # notebook, mcp, capture (server and browser keep their own folders)
    "server",
    "browser",
    "project",  # the architecture, the public surface, install, bench
    "clock",
    "fixtures",
}


def test_tests_mirror_the_packages() -> None:
    """Every test module sits in the folder of what it tests: none at the top of tests/, and
    each engine and the commands have a folder of their own."""
    tests = REPO / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py"))
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders <= TEST_FOLDERS, folders - TEST_FOLDERS
    for name in MIRRORED:
        assert (PACKAGE / name).is_dir() and list((tests / name).glob("test_*.py")), name
