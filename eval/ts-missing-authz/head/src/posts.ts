export interface Post {
  id: string;
  author: string;
  body: string;
}

const store = new Map<string, Post>();

export const posts = {
  get: (id: string) => store.get(id),
  update: (id: string, body: Partial<Post>) => {
    const p = store.get(id);
    if (p) store.set(id, { ...p, ...body });
  },
  remove: (id: string) => store.delete(id),
};
