"""A counter plugin installed the way a real one is: a module and its ``.dist-info`` with a
``ctx_lab.counters`` entry point, in a directory put on the path."""

from __future__ import annotations

from pathlib import Path

PLUGIN_COUNTER = "words/test"

_MODULE = '''
"""A test plugin: counts whitespace-separated words."""


class WordCounter:
    name = "words"  # the registry shows it under its entry-point name
    exact = False

    def count(self, text):
        return len(text.split())

    def count_many(self, texts):
        return [self.count(t) for t in texts]


def make():
    return WordCounter()
'''


def install_counter_plugin(site: Path) -> Path:
    """Write the plugin into ``site`` (a directory for sys.path / PYTHONPATH); return it."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "ctx_lab_words_plugin.py").write_text(_MODULE)
    info = dist_info(
        site, "ctx-lab-words-plugin", "ctx_lab.counters",
        f"{PLUGIN_COUNTER} = ctx_lab_words_plugin:make",
    )  # fmt: skip
    (info / "top_level.txt").write_text("ctx_lab_words_plugin\n")
    return site


def dist_info(site: Path, name: str, group: str, entry: str) -> Path:
    """An installed distribution ``name`` 1.0 in ``site`` whose one entry point, in ``group``,
    is ``entry`` (``"name = module:object"``); returns its ``.dist-info`` directory."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry}\n")
    return info
