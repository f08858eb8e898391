import * as v from 'valibot';
import { Scope } from './access.ts';
import { Timestamp } from './common.ts';

export const CreateApiKeyInput = v.object({
  name: v.pipe(v.string(), v.trim(), v.nonEmpty('name is required'), v.maxLength(100)),
  /** Nothing is preselected: the caller names every scope the key gets. */
  scopes: v.pipe(v.array(Scope), v.minLength(1, 'choose at least one scope'), v.maxLength(25)),
  expires_at: v.optional(v.nullable(Timestamp)),
});

export const ApiKey = v.object({
  id: v.number(),
  owner: v.string(),
  name: v.string(),
  prefix: v.string(),
  scopes: v.array(Scope),
  created_at: Timestamp,
  expires_at: v.nullable(Timestamp),
  revoked_at: v.nullable(Timestamp),
  last_used_at: v.nullable(Timestamp),
});

/** The only response that ever contains the key itself. */
export const CreatedApiKey = v.object({ api_key: ApiKey, key: v.pipe(v.string(), v.startsWith('capstan_')) });
export const ApiKeyList = v.object({ api_keys: v.array(ApiKey) });
export const ApiKeyIdInput = v.object({ id: v.pipe(v.string(), v.regex(/^\d+$/, 'id must be a number'), v.transform(Number)) });
export const Revoked = v.object({ status: v.literal('revoked') });
