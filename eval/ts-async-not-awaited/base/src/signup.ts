import { User } from "./db";

export function signup(email: string): User {
  return { id: crypto.randomUUID(), email };
}
