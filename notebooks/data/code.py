"""A small billing helper, used as sample code for token counting."""

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class LineItem:
    description: str
    quantity: int
    unit_price_cents: int

    def total_cents(self) -> int:
        return self.quantity * self.unit_price_cents


def invoice_total(items: list[LineItem], tax_rate: Decimal = Decimal("0.19")) -> int:
    """Return the invoice total in cents, tax included, rounded half up."""
    net = sum(item.total_cents() for item in items)
    gross = Decimal(net) * (1 + tax_rate)
    return int(gross.quantize(Decimal("1"), rounding="ROUND_HALF_UP"))


if __name__ == "__main__":
    items = [LineItem("Consulting", 3, 12_500), LineItem("Travel", 1, 4_990)]
    print(invoice_total(items))
