export interface Preview {
  title: string;
}

export function parseTitle(html: string): Preview {
  const match = /<title>(.*?)<\/title>/i.exec(html);
  return { title: match ? match[1] : "" };
}

export async function preview(url: string): Promise<Preview> {
  const response = await fetch(url);
  return parseTitle(await response.text());
}
