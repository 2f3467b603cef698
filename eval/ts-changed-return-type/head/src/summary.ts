import { items } from "./cart";

export function firstSku(raw: string): string | undefined {
  return items(raw)[0]?.sku;
}
