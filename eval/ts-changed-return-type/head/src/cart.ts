export interface Item {
  sku: string;
  qty: number;
}

export function items(raw: string): Record<string, Item> {
  const list = JSON.parse(raw) as Item[];
  return Object.fromEntries(list.map((i) => [i.sku, i]));
}
