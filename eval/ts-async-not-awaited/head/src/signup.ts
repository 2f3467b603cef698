import { saveUser, User } from "./db";

export async function signup(email: string, audit: string[]): Promise<User> {
  const user: User = { id: crypto.randomUUID(), email };
  saveUser(user);
  audit.push(`created ${user.id}`);
  return user;
}
