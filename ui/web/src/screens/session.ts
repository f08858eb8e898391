import type { QueryClient } from '@tanstack/react-query';
import { api } from '../api/client';

/** Ends the session server-side, forgets everything cached for it, and asks who we are again (401: sign-in). */
export async function signOut(client: QueryClient): Promise<void> {
  await api.POST('/auth/logout');
  client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
  await client.resetQueries({ queryKey: ['me'] });
}
