export interface Item {
  sku: string;
  qty: number;
}

export function items(raw: string): Item[] {
  return JSON.parse(raw) as Item[];
}
