import { formatCents } from "./money";

export interface LineItem {
  sku: string;
  quantity: number;
  unitCents: number;
}

export type Discount = { kind: "percent"; value: number } | { kind: "fixed"; cents: number };

export class Cart {
  private items: LineItem[] = [];

  add(item: LineItem): void {
    const existing = this.items.find((i) => i.sku === item.sku);
    if (existing) {
      existing.quantity += item.quantity;
    } else {
      this.items.push({ ...item });
    }
  }

  total(discount?: Discount): number {
    const gross = this.items.reduce((sum, i) => sum + i.quantity * i.unitCents, 0);
    if (!discount) return gross;
    return discount.kind === "percent"
      ? Math.round(gross * (1 - discount.value / 100))
      : Math.max(gross - discount.cents, 0);
  }
}

export const describe = (cart: Cart): string => {
  return `cart total ${formatCents(cart.total())}`;
};
