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
    info = site / "ctx_lab_words_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: ctx-lab-words-plugin\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(
        f"[ctx_lab.counters]\n{PLUGIN_COUNTER} = ctx_lab_words_plugin:make\n"
    )
    (info / "top_level.txt").write_text("ctx_lab_words_plugin\n")
    return site
