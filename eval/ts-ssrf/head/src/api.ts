import { preview } from "./preview";

export async function handle(query: URLSearchParams): Promise<string> {
  return JSON.stringify(await preview(query.get("url") ?? ""));
}
