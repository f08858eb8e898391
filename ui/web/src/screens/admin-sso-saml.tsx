// Admin → SSO → SAML 2.0: the public URL prefilled from the install's sso.publicUrl, the IdP (its
// metadata XML, or its SSO URL and signing certificate), the email and groups attributes, and the
// SP's addresses to give the IdP. Saving needs Enterprise (402: the upgrade card); a refused
// metadata shows beside its field. docs/sso.md "SAML 2.0".
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { disableSaml, saveSaml, type SamlConfigInput, type SsoView } from '../api/queries/sso';
import { samlEndpoints } from '../api/sso-urls';
import { Field, FormError } from '../components/field-error';
import { ActionError } from '../components/states';
import { Time } from '../components/time';
import { initialPublicUrl } from './admin-sso-oidc';

const FIELDS = ['public_url', 'idp_metadata_xml', 'idp_sso_url', 'idp_cert_pem', 'idp_entity_id', 'email_attribute', 'groups_attribute'] as const;

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
    email_attribute: stored?.config.email_attribute ?? 'email',
    groups_attribute: stored?.config.groups_attribute ?? 'groups',
  });
  const set = (change: Partial<typeof config>) => setConfig((c) => ({ ...c, ...change }));
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const attributes = { public_url: config.public_url, email_attribute: config.email_attribute, groups_attribute: config.groups_attribute };
    // Metadata, when pasted, says everything about the IdP; else the URL and certificate (as stored, unless edited).
    const body: SamlConfigInput =
      config.idp_metadata_xml.trim() !== ''
        ? { ...attributes, idp_metadata_xml: config.idp_metadata_xml }
        : { ...attributes, idp_sso_url: config.idp_sso_url, idp_cert_pem: config.idp_cert_pem, ...(config.idp_entity_id.trim() !== '' ? { idp_entity_id: config.idp_entity_id } : {}) };
    save.mutate(body, { onSuccess: () => set({ idp_metadata_xml: '' }) });
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
        </dl>
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
      </fieldset>
      <Field id="saml-email" label="Email attribute" field="email_attribute" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.email_attribute} onChange={(e) => set({ email_attribute: e.target.value })} />} />
      <Field id="saml-groups" label="Groups attribute" field="groups_attribute" error={save.error} input={(a) => <input {...a} spellCheck={false} value={config.groups_attribute} onChange={(e) => set({ groups_attribute: e.target.value })} />} />
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
