// API keys: your own (minted by a session, never by a key) and, for admins, everyone's.
import { createOwnApiKey, listAllApiKeys, listOwnApiKeys, revokeAnyApiKey, revokeOwnApiKey } from './keys.ts';
import { ApiKeyIdInput, ApiKeyList, CreateApiKeyInput, CreatedApiKey, Revoked } from '../../schema/api-keys.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

export const apiKeyRoutes: readonly Route[] = [
  defineRoute({
    ...noApiKeys('viewer'),
    method: 'POST',
    path: '/me/api-keys',
    summary: 'Mint an API key for yourself; the key is in this response only',
    input: CreateApiKeyInput,
    output: CreatedApiKey,
    audit: 'auth',
    rateLimit: 'write',
    handler: createOwnApiKey,
  }),
  defineRoute({
    ...noApiKeys('viewer'),
    method: 'GET',
    path: '/me/api-keys',
    summary: 'Your API keys (never the secrets)',
    input: NoInput,
    output: ApiKeyList,
    audit: 'http',
    rateLimit: 'read',
    handler: listOwnApiKeys,
  }),
  defineRoute({
    ...noApiKeys('viewer'),
    method: 'DELETE',
    path: '/me/api-keys/:id',
    summary: 'Revoke one of your API keys',
    input: ApiKeyIdInput,
    output: Revoked,
    audit: 'auth',
    rateLimit: 'write',
    handler: revokeOwnApiKey,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    method: 'GET',
    path: '/admin/api-keys',
    summary: "Every user's API keys (admin)",
    input: NoInput,
    output: ApiKeyList,
    audit: 'http',
    rateLimit: 'read',
    handler: listAllApiKeys,
  }),
  defineRoute({
    ...noApiKeys('admin'),
    method: 'DELETE',
    path: '/admin/api-keys/:id',
    summary: "Revoke anyone's API key (admin); admins cannot mint keys for others",
    input: ApiKeyIdInput,
    output: Revoked,
    audit: 'auth',
    rateLimit: 'write',
    handler: revokeAnyApiKey,
  }),
];
