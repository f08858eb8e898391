// Admin → SSO → SAML 2.0: the public URL prefilled from the install's sso.publicUrl, the IdP (its
// metadata XML, or its SSO URL, signing certificate and logout URL), the email and groups
// attributes, the SP keypair (generated here; the key never shown, kept when saving), and the
// SP's addresses and certificate to give the IdP. Saving needs Enterprise (402: the upgrade card); a refused
// metadata shows beside its field. docs/sso.md "SAML 2.0".
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { disableSaml, saveSaml, type SamlConfigInput, type SsoView } from '../api/queries/sso';
import { samlEndpoints } from '../api/sso-urls';
import { Field, FormError } from '../components/field-error';
import { ActionError } from '../components/states';
import { Time } from '../components/time';
import { initialPublicUrl } from './admin-sso-oidc';

const FIELDS = ['public_url', 'idp_metadata_xml', 'idp_sso_url', 'idp_cert_pem', 'idp_entity_id', 'idp_slo_url', 'email_attribute', 'groups_attribute', 'generate_sp_key', 'require_encrypted_assertions', 'trust_email'] as const;

export function SamlForm({ view }: { view: SsoView }) {
  const client = useQueryClient();
  const save = useMutation(saveSaml(client));
  const off = useMutation(disableSaml(client));
  const stored = view.saml;
  const [config, setConfig] = useState({
    public_url: initialPublicUrl(stored?.config.public_url, view.public_url),
    idp_metadata_xml: '',
    idp_sso_url: stored?.config.idp_sso_url ?? '',
    idp_cert_pem: stored?.config.idp_cert_pem ?? '',
    idp_entity_id: stored?.config.idp_entity_id ?? '',
    idp_slo_url: stored?.config.idp_slo_url ?? '',
    email_attribute: stored?.config.email_attribute ?? 'email',
    groups_attribute: stored?.config.groups_attribute ?? 'groups',
    generate_sp_key: false,
    require_encrypted_assertions: stored?.config.require_encrypted_assertions ?? true,
    trust_email: stored?.config.trust_email ?? false,
  });
  const set = (change: Partial<typeof config>) => setConfig((c) => ({ ...c, ...change }));
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    // The SP key is never sent: left out, the agent keeps the stored pair (or makes a new one).
    const attributes = {
      public_url: config.public_url,
      email_attribute: config.email_attribute,
      groups_attribute: config.groups_attribute,
      require_encrypted_assertions: config.require_encrypted_assertions,
      trust_email: config.trust_email,
      ...(config.generate_sp_key ? { generate_sp_key: true } : {}),
    };
    const optional = (key: 'idp_entity_id' | 'idp_slo_url') => (config[key].trim() !== '' ? { [key]: config[key] } : {});
    // Metadata, when pasted, says everything about the IdP; else the URLs and certificate (as stored, unless edited).
    const body: SamlConfigInput =
      config.idp_metadata_xml.trim() !== ''
        ? { ...attributes, idp_metadata_xml: config.idp_metadata_xml }
        : { ...attributes, idp_sso_url: config.idp_sso_url, idp_cert_pem: config.idp_cert_pem, ...optional('idp_entity_id'), ...optional('idp_slo_url') };
    save.mutate(body, { onSuccess: () => set({ idp_metadata_xml: '', generate_sp_key: false }) });
  };
  // The agent's own answer once saved for this URL; before that, the same derivation.
  const sp = stored && stored.config.public_url === config.public_url.trim().replace(/\/$/, '') ? stored : samlEndpoints(config.public_url);
  const prefill = stored ? null : view.public_url !== null ? 'from sso.publicUrl' : "this page's origin: sso.publicUrl is not set";
  return (
    <form className="stack card" onSubmit={submit} aria-labelledby="saml-title">
      <h2 id="saml-title">SAML 2.0 {stored ? (stored.enabled ? '(on)' : '(off)') : '(not configured)'}</h2>
      <Field
        id="saml-public-url"
        label="Public URL of this dashboard"
        field="public_url"
        error={save.error}
        hint={prefill ? <span className="muted">Prefilled: {prefill}</span> : null}
        input={(a) => <input {...a} required spellCheck={false} value={config.public_url} onChange={(e) => set({ public_url: e.target.value })} />}
      />
      <section aria-labelledby="saml-sp-title">
        <h3 id="saml-sp-title">Give the identity provider</h3>
        <dl>
          <dt>SP entity ID</dt>
          <dd><code>{sp.sp_entity_id}</code></dd>
          <dt>Assertion consumer service (HTTP-POST)</dt>
          <dd><code>{sp.acs_url}</code></dd>
          <dt>SP metadata</dt>
          <dd><code>{sp.metadata_url}</code></dd>
          <dt>Single logout service (HTTP-POST)</dt>
          <dd><code>{sp.slo_url}</code></dd>
        </dl>
        {stored?.config.sp_cert_pem ? (
          <details>
            <summary>SP certificate (the IdP verifies signed requests and encrypts assertions with it)</summary>
            <pre>{stored.config.sp_cert_pem}</pre>
          </details>
        ) : null}
        <p className="muted">Sign assertions with RSA-SHA256; SHA-1 is refused.</p>
      </section>
      <Field
        id="saml-metadata"
        label={stored ? 'IdP metadata XML (blank: keep the IdP below)' : 'IdP metadata XML'}
        field="idp_metadata_xml"
        error={save.error}
        input={(a) => <textarea {...a} rows={5} spellCheck={false} value={config.idp_metadata_xml} onChange={(e) => set({ idp_metadata_xml: e.target.value })} />}
      />
      <fieldset>
        <legend>Or the IdP by hand (used when no metadata is pasted)</legend>
        <Field id="saml-sso-url" label="IdP SSO URL (HTTP-Redirect binding)" field="idp_sso_url" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.idp_sso_url} onChange={(e) => set({ idp_sso_url: e.target.value })} />} />
        <Field id="saml-entity-id" label="IdP entity ID (optional: the assertion's Issuer must match)" field="idp_entity_id" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.idp_entity_id} onChange={(e) => set({ idp_entity_id: e.target.value })} />} />
        <Field id="saml-cert" label="IdP signing certificate (PEM)" field="idp_cert_pem" error={save.error} input={(a) => <textarea {...a} rows={3} spellCheck={false} value={config.idp_cert_pem} onChange={(e) => set({ idp_cert_pem: e.target.value })} />} />
        <Field id="saml-slo-url" label="IdP single logout URL (optional, HTTP-Redirect binding)" field="idp_slo_url" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.idp_slo_url} onChange={(e) => set({ idp_slo_url: e.target.value })} />} />
      </fieldset>
      <fieldset>
        <legend>SP keypair: {stored?.config.sp_cert_pem ? 'stored (the key is never shown; saving keeps it)' : 'none'}</legend>
        <Field
          id="saml-generate-key"
          label={stored?.config.sp_cert_pem ? ' Replace it with a new generated keypair' : ' Generate a keypair (signed requests, encrypted assertions, signed logout)'}
          field="generate_sp_key"
          error={save.error}
          input={(a) => <input {...a} type="checkbox" checked={config.generate_sp_key} onChange={(e) => set({ generate_sp_key: e.target.checked })} />}
        />
        <Field
          id="saml-require-encrypted"
          label=" With a keypair, refuse assertions that are not encrypted"
          field="require_encrypted_assertions"
          error={save.error}
          input={(a) => <input {...a} type="checkbox" checked={config.require_encrypted_assertions} onChange={(e) => set({ require_encrypted_assertions: e.target.checked })} />}
        />
      </fieldset>
      <Field id="saml-email" label="Email attribute" field="email_attribute" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.email_attribute} onChange={(e) => set({ email_attribute: e.target.value })} />} />
      <Field id="saml-groups" label="Groups attribute" field="groups_attribute" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.groups_attribute} onChange={(e) => set({ groups_attribute: e.target.value })} />} />
      <Field
        id="saml-trust-email"
        label=" Trust the IdP's email addresses for the admin emails (only if users cannot change their own there)"
        field="trust_email"
        error={save.error}
        input={(a) => <input {...a} type="checkbox" checked={config.trust_email} onChange={(e) => set({ trust_email: e.target.checked })} />}
      />
      <div>
        <button type="submit" disabled={save.isPending}>Save and turn SAML on</button>{' '}
        {stored?.enabled ? <button type="button" onClick={() => off.mutate()} disabled={off.isPending}>Turn SAML off</button> : null}
      </div>
      <FormError error={save.error} what="save the SAML configuration" fields={FIELDS} />
      <ActionError error={off.error} what="turn SAML off" />
      {stored ? <p>Last changed <Time at={stored.updated_at} /></p> : null}
    </form>
  );
}
