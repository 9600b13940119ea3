"""Compression policies per language and format."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctx_lab.builder import (
    ContentBlock,
    apply_policy,
    data_skeleton,
    python_skeleton,
    reference,
    summarize,
    treesitter_skeleton,
)
from ctx_lab.errors import SkeletonError

PYTHON = '''"""Billing helpers.

Long description."""
from __future__ import annotations

import os
from decimal import Decimal as D, ROUND_HALF_UP

RATE = D("0.19")
TABLE = {
    "a": 1,
    "b": 2,
}


@dataclass(frozen=True)
@total_ordering
class Invoice:
    """An invoice."""

    number: str
    total: int = 0

    @property
    def gross(self) -> int:
        """Gross amount."""
        return int(self.total * (1 + RATE))

    class Line:
        """A line."""

        def cents(self) -> int:
            return 1


async def fetch(url: str, *, timeout: float = 3.0) -> bytes:
    async with session.get(url) as r:
        return await r.read()
'''


def test_python_skeleton() -> None:
    out = python_skeleton(PYTHON)
    for kept in [
        '"""Billing helpers."""',
        "from __future__ import annotations",
        "from decimal import Decimal as D, ROUND_HALF_UP",
        'RATE = D("0.19")',
        "TABLE = …",
        "@dataclass(frozen=True)",
        "@total_ordering",
        "class Invoice:",
        '    """An invoice."""',
        "    number: str",
        "    total: int = 0",
        "    @property",
        "    def gross(self) -> int:",
        '        """Gross amount."""',
        "    class Line:",
        "        def cents(self) -> int:",
        "async def fetch(url: str, *, timeout: float = 3.0) -> bytes:",
    ]:
        assert kept in out, kept
    for gone in ["return int(", "session.get", "Long description", "return 1"]:
        assert gone not in out
    assert out.count("...") >= 3


def test_python_syntax_error() -> None:
    with pytest.raises(SkeletonError):
        python_skeleton("def broken(:\n")


GO = """package billing

import (
\t"fmt"
\t"time"
)

type Invoice struct {
\tNumber string
\tTotal  int64
\tDue    time.Time
}

type Store interface {
\tSave(inv *Invoice) error
\tFind(number string) (*Invoice, error)
}

func (i *Invoice) Gross(rate float64) int64 {
\treturn int64(float64(i.Total) * (1 + rate))
}

func New(number string) *Invoice {
\tfmt.Println("new")
\treturn &Invoice{Number: number}
}
"""


def test_go_keeps_fields_and_interface_methods() -> None:
    out = treesitter_skeleton(GO, "go")
    for kept in [
        "package billing",
        '"fmt"',
        "Number string",
        "Due    time.Time",
        "Save(inv *Invoice) error",
        "Find(number string) (*Invoice, error)",
        "func (i *Invoice) Gross(rate float64) int64 { … }",
        "func New(number string) *Invoice { … }",
    ]:
        assert kept in out, kept
    assert "fmt.Println" not in out and "return int64" not in out


JS = """const path = require("path");
import { readFile } from "fs/promises";

function load(name) {
  return readFile(path.join(__dirname, name));
}

const total = (items) => {
  return items.reduce((a, b) => a + b, 0);
};

export class Cart extends Base {
  items = [];
  constructor(owner) {
    super();
    this.owner = owner;
  }
  add(item) {
    this.items.push(item);
  }
}

start();
module.exports = { load, total, twice: function (x) { return 2 * x; } };
"""


def test_javascript_functions_arrows_classes_commonjs() -> None:
    out = treesitter_skeleton(JS, "javascript")
    for kept in [
        'const path = require("path");',
        'import { readFile } from "fs/promises";',
        "function load(name) { … }",
        "const total = (items) => { … };",
        "export class Cart extends Base {",
        "items = [];",
        "constructor(owner) { … }",
        "add(item) { … }",
        "module.exports = { load, total, twice: function (x) { … } };",
    ]:
        assert kept in out, kept
    assert "start();" not in out and "reduce" not in out and "push" not in out


TS = """import type { Item } from "./item";
export interface Repo<T> {
  get(id: string): Promise<T>;
  all(): T[];
}
export type Id = string | number;
export enum Status { Open = "open", Paid = "paid" }
export abstract class Base {
  abstract save(): void;
  protected log(msg: string): void { console.log(msg); }
}
export const sum = (a: number, b: number): number => { return a + b; };
"""


def test_typescript() -> None:
    out = treesitter_skeleton(TS, "typescript")
    for kept in [
        "get(id: string): Promise<T>;",
        "export type Id = string | number;",
        'export enum Status { Open = "open", Paid = "paid" }',
        "abstract save(): void;",
        "protected log(msg: string): void { … }",
        "export const sum = (a: number, b: number): number => { … };",
    ]:
        assert kept in out, kept
    tsx = treesitter_skeleton(
        "export function App(): JSX.Element { return <div>hi</div>; }\n", "tsx"
    )
    assert "export function App(): JSX.Element { … }" in tsx


RUST = """use std::collections::HashMap;

pub struct Ledger {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
}

pub trait Account {
    fn balance(&self) -> i64;
    fn describe(&self) -> String {
        format!("balance {}", self.balance())
    }
}

impl Account for Ledger {
    fn balance(&self) -> i64 {
        self.entries.iter().map(|e| e.amount).sum()
    }
}

impl Ledger {
    pub fn new() -> Self {
        Self { entries: vec![], index: HashMap::new() }
    }
}
"""


def test_rust_impls_and_traits() -> None:
    out = treesitter_skeleton(RUST, "rust")
    for kept in [
        "use std::collections::HashMap;",
        "entries: Vec<Entry>,",
        "fn balance(&self) -> i64;",
        "fn describe(&self) -> String { … }",
        "impl Account for Ledger {",
        "fn balance(&self) -> i64 { … }",
        "pub fn new() -> Self { … }",
    ]:
        assert kept in out, kept
    assert "format!" not in out and ".sum()" not in out


def test_treesitter_parse_failure() -> None:
    with pytest.raises(SkeletonError):
        treesitter_skeleton("func (( {", "go")


def test_data_skeletons() -> None:
    out = data_skeleton(
        '{"name": "svc", "tags": [1, 2, 3, 4, 5, 6], "doc": "' + "x" * 90 + '"}', "json"
    )
    assert '"name": "svc"' in out and "… 3 more items" in out and "(90 chars)" in out
    yaml_out = data_skeleton("service:\n  name: svc\n  ports: [1, 2, 3, 4, 5]\n", "yaml")
    assert "service:" in yaml_out and "name: svc" in yaml_out and "2 more items" in yaml_out
    toml_out = data_skeleton('[project]\nname = "x"\n[project.urls]\nhome = "h"\n', "toml")
    assert "[project]" in toml_out and "[project.urls]" in toml_out and 'home = "h"' in toml_out
    ini_out = data_skeleton("[db]\nhost = h\n", "ini")
    assert "[db]" in ini_out and "host = h" in ini_out
    with pytest.raises(SkeletonError):
        data_skeleton("{not json", "json")


def test_markdown_with_and_without_headings() -> None:
    doc = "# Title\n\nIntro line.\nsecond.\n\nDetail para.\nYou must not skip this.\n\n## Part\n\nPart intro.\n\nplain\n"
    out = summarize(doc)
    assert out == "# Title\nIntro line.\nsecond.\nYou must not skip this.\n## Part\nPart intro.\n"
    plain = summarize("First paragraph here.\n\nOther stuff.\nNOTE: keep me.\n")
    assert plain == "First paragraph here.\nNOTE: keep me.\n"
    rst = summarize("Title\n=====\n\nIntro.\n\nMore.\n")
    assert "Title\n=====" in rst and "Intro." in rst and "More." not in rst
    assert summarize("   \n\n") == ""
    assert summarize("```\ncode only\n```\n").strip()  # never empty for non-empty input


def test_reference_format() -> None:
    assert reference("docs/a.md", "\n\n  First line  \nsecond\n") == (
        "[ref: docs/a.md (24 bytes, 4 lines)] First line\n"
    )
    long = reference("x.txt", "y" * 300)
    assert long.endswith("…\n") and len(long.split("] ", 1)[1]) == 121
    assert "(binary)" in reference("img.png", "", 100, binary=True)


def test_apply_policy_falls_back_with_a_note() -> None:
    # what does parse is kept (partial); a file with nothing well-formed is summarized
    block = ContentBlock.for_file("bad.py", "def broken(:\n    pass\n\ndef good(x):\n    pass\n")
    result = apply_policy(block, "structural")
    assert result.policy == "structural" and result.partial and "def good(x):" in result.text
    assert "ast could not parse it" in result.note and "partial" in result.note
    hopeless = ContentBlock.for_file("worse.py", "def broken(:\n")
    result = apply_policy(hopeless, "structural")
    assert result.policy == "summarizable" and "structural failed" in result.note
    assert apply_policy(ContentBlock.for_file("a.md", "# T\n\nx\n"), "exact").text == "# T\n\nx\n"


@given(
    st.text(st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000xé")), max_size=40)
    | st.text(max_size=40)
)
def test_reference_names_the_first_line_with_text(text: str) -> None:
    """The reference's first line is the first line holding more than whitespace, stripped
    (whitespace as str.strip() sees it, Unicode spaces included)."""
    from ctx_lab.builder._summarize import reference

    first = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
    if len(first) > 120:
        first = first[:119] + "…"
    made = reference("f.txt", text)
    assert made.startswith("[ref: f.txt (")
    if first:
        assert made.split(" lines)] ", 1)[1] == first + "\n"
    else:
        assert made.endswith(" lines)]\n")


def test_parsing_leaves_the_collector_as_it_found_it() -> None:
    """Skeletons pause the cyclic collector while a tree lives and put it back as it was: on
    after a parse, a syntax error, too deep a nesting (a recursion error, or the parser's
    stack overflowing) and overlapping threads; off if it was."""
    import gc
    import threading

    from ctx_lab.builder.skeletons import python_code_skeleton
    from ctx_lab.builder.skeletons._common import collection_paused

    assert gc.isenabled()
    python_code_skeleton("def f(x):\n    return x\n")
    assert gc.isenabled()
    from ctx_lab.builder.skeletons import code_skeleton

    assert "fn main" in code_skeleton("fn main() {\n    let x = 1;\n}\n", "rust").text
    assert gc.isenabled()
    with pytest.raises(SkeletonError):
        python_code_skeleton("def f(:\n")
    assert gc.isenabled()
    with pytest.raises(RecursionError):
        python_code_skeleton("x = 1" + "+1" * 100_000 + "\n")
    assert gc.isenabled()
    # where the builder makes skeletons (the collector paused around every one)
    from ctx_lab.builder._compress import structural

    assert "def f" in structural("m.py", "def f(x):\n    return x\n").text
    assert gc.isenabled()
    with pytest.raises(SkeletonError, match="nested too deeply"):
        structural("m.py", "x = 1" + "+1" * 100_000 + "\n")
    assert gc.isenabled()
    # the parser's stack overflows (MemoryError): tree-sitter makes the skeleton instead
    made = python_code_skeleton("x = " + "-\\\n" * 100_000 + "1\n")
    assert "nested too deeply for Python's parser" in made.note and "tree-sitter" in made.note
    assert gc.isenabled()

    inside = threading.Barrier(2)

    def paused_for_a_while() -> None:
        with collection_paused():
            assert not gc.isenabled()
            inside.wait(timeout=10)
            inside.wait(timeout=10)

    other = threading.Thread(target=paused_for_a_while)
    other.start()
    with collection_paused():
        inside.wait(timeout=10)
    assert not gc.isenabled()  # the other thread is still parsing
    inside.wait(timeout=10)
    other.join(timeout=10)
    assert gc.isenabled()

    gc.disable()
    try:
        python_code_skeleton("class A:\n    pass\n")
        assert not gc.isenabled()
    finally:
        gc.enable()
