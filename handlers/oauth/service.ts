import type * as v from 'valibot';
import type { OAuthClientList, OAuthGrant as OAuthGrantSchema } from '../../schema/oauth.ts';
import type { Result } from '../result.ts';

export interface OAuthClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  created_at: string;
}

export type OAuthGrant = v.InferOutput<typeof OAuthGrantSchema>;

/** MCP over OAuth: registered clients, authorization codes (PKCE), access tokens bound to one resource. */
export interface OAuthService {
  /** Refused with registration_full while the registry holds its most clients (docs/mcp.md). */
  registerClient(name: string, redirectUris: readonly string[]): Promise<Result<OAuthClient>>;
  /** A client that can take part in a flow: registered, not deleted, not expired unused. */
  client(clientId: string): Promise<OAuthClient | null>;
  /** A single-use code for ten minutes, remembering what the token must be bound to. */
  issueCode(grant: { clientId: string; userId: number; redirectUri: string; codeChallenge: string; resource: string }): Promise<string>;
  /** The access token for a code, once; null when the code, client, redirect URI, verifier or resource does not match. */
  exchangeCode(request: { code: string; clientId: string; redirectUri: string; codeVerifier: string; resource: string | null }): Promise<{ token: string; expiresInSecs: number; resource: string } | { error: string }>;
  /** A user's live tokens (Account → Connected apps). */
  grants(userId: number): Promise<OAuthGrant[]>;
  revoke(userId: number, grantId: string): Promise<boolean>;
  /** Admin → Access control → OAuth clients: every usable client, newest first. */
  listClients(): Promise<v.InferOutput<typeof OAuthClientList>>;
  /** Deletes a client and revokes its live tokens; null when there is no such client. */
  deleteClient(clientId: string): Promise<{ tokensRevoked: number } | null>;
}
