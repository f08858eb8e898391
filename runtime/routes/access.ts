import type { Role } from '../../schema/access.ts';

/**
 * Identity, credentials, access control and the audit feed: never reachable with an API key
 * (spec §5 "API keys" item 4: 403 api_key_forbidden before any handler runs).
 */
export const noApiKeys = (role: Role) => ({ access: { auth: 'credential', role, scope: null }, feature: null }) as const;
