export interface Preview {
  title: string;
}

export function parseTitle(html: string): Preview {
  const match = /<title>(.*?)<\/title>/i.exec(html);
  return { title: match ? match[1] : "" };
}
