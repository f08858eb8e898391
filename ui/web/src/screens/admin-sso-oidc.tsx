// Admin → SSO → OpenID Connect: the provider (issuer, client), the public URL prefilled from
// the install's sso.publicUrl, and the redirect URI to register at the provider. Saving checks
// the issuer's discovery document (a 400 on `issuer` shows beside it) and needs Enterprise (402:
// the upgrade card). docs/sso.md "OIDC".
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { disableOidc, saveOidc, type OidcConfig, type SsoView } from '../api/queries/sso';
import { oidcRedirectUri } from '../api/sso-urls';
import { Field, FormError } from '../components/field-error';
import { ActionError } from '../components/states';
import { Time } from '../components/time';

/** The agent shows a stored client secret as this and keeps the stored one when it is sent back (schema/sso.ts MASKED_SECRET). */
const MASKED_SECRET = '••••';
const FIELDS = ['issuer', 'client_id', 'client_secret', 'public_url', 'scopes', 'groups_claim'] as const;

/** The public URL to start from: the stored one, else the install's sso.publicUrl, else this page's origin. */
export function initialPublicUrl(stored: string | undefined, installed: string | null): string {
  return stored ?? installed ?? window.location.origin;
}

export function OidcForm({ view }: { view: SsoView }) {
  const client = useQueryClient();
  const save = useMutation(saveOidc(client));
  const off = useMutation(disableOidc(client));
  const stored = view.oidc;
  const [config, setConfig] = useState({
    issuer: stored?.config.issuer ?? '',
    client_id: stored?.config.client_id ?? '',
    // Never the stored secret (the agent only shows ••••): blank keeps it.
    client_secret: '',
    public_url: initialPublicUrl(stored?.config.public_url, view.public_url),
    scopes: (stored?.config.scopes ?? ['openid', 'email', 'profile', 'groups']).join(' '),
    groups_claim: stored?.config.groups_claim ?? 'groups',
  });
  const set = (change: Partial<typeof config>) => setConfig((c) => ({ ...c, ...change }));
  // The stored secret is only sent to the issuer it was entered for: a new issuer needs it typed again (else 400 on client_secret).
  const keepsSecret = stored !== null && config.issuer.trim() === stored.config.issuer;
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const body: OidcConfig = {
      issuer: config.issuer,
      client_id: config.client_id,
      client_secret: config.client_secret === '' && keepsSecret ? MASKED_SECRET : config.client_secret,
      public_url: config.public_url,
      scopes: config.scopes.split(/\s+/).filter((s) => s !== ''),
      groups_claim: config.groups_claim,
    };
    // Once stored, the secret field goes back to blank ("keep it").
    save.mutate(body, { onSuccess: () => set({ client_secret: '' }) });
  };
  const prefill = stored ? null : view.public_url !== null ? 'from sso.publicUrl' : "this page's origin: sso.publicUrl is not set";
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="oidc-title">
      <h2 id="oidc-title">OpenID Connect {stored ? (stored.enabled ? '(on)' : '(off)') : '(not configured)'}</h2>
      <Field id="oidc-issuer" label="Issuer URL" field="issuer" error={save.error} input={(a) => <input {...a} required spellCheck={false} placeholder="https://login.example.com" value={config.issuer} onChange={(e) => set({ issuer: e.target.value })} />} />
      <Field id="oidc-client-id" label="Client ID" field="client_id" error={save.error} input={(a) => <input {...a} required spellCheck={false} autoComplete="off" value={config.client_id} onChange={(e) => set({ client_id: e.target.value })} />} />
      <Field
        id="oidc-client-secret"
        label={keepsSecret ? 'Client secret (stored; leave blank to keep it)' : stored ? 'Client secret (the issuer changed: type it again)' : 'Client secret'}
        field="client_secret"
        error={save.error}
        input={(a) => <input {...a} type="password" required={!keepsSecret} autoComplete="new-password" placeholder={keepsSecret ? MASKED_SECRET : ''} value={config.client_secret} onChange={(e) => set({ client_secret: e.target.value })} />}
      />
      <Field
        id="oidc-public-url"
        label="Public URL of this dashboard"
        field="public_url"
        error={save.error}
        hint={prefill ? <span className="muted">Prefilled: {prefill}</span> : null}
        input={(a) => <input {...a} required spellCheck={false} value={config.public_url} onChange={(e) => set({ public_url: e.target.value })} />}
      />
      <p>
        Redirect URI to register at the provider: <code>{oidcRedirectUri(config.public_url)}</code>
      </p>
      <Field id="oidc-scopes" label="Scopes (space-separated, with openid)" field="scopes" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.scopes} onChange={(e) => set({ scopes: e.target.value })} />} />
      <Field id="oidc-groups-claim" label="Groups claim (groups; roles for Entra ID app roles)" field="groups_claim" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.groups_claim} onChange={(e) => set({ groups_claim: e.target.value })} />} />
      <div>
        <button type="submit" disabled={save.isPending}>Save and turn OIDC on</button>{' '}
        {stored?.enabled ? <button type="button" onClick={() => off.mutate()} disabled={off.isPending}>Turn OIDC off</button> : null}
      </div>
      <FormError error={save.error} what="save the OIDC configuration" fields={FIELDS} />
      <ActionError error={off.error} what="turn OIDC off" />
      {stored ? <p>Last changed <Time at={stored.updated_at} /></p> : null}
    </form>
  );
}
