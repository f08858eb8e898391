// Admin settings: security settings, IP access control and bans, the audit stream, Activity retention.
import { getAccessControl, liftBan, updateAccessControl } from './access-control.ts';
import { getActivityRetention, setActivityRetention } from './activity.ts';
import { getAuditStream, updateAuditStream } from './audit-stream.ts';
import { getSecuritySettings, updateSecuritySettings } from './security.ts';
import { AccessControlInput, AccessControlView, ActivityRetention, AuditStreamInput, AuditStreamView, IpInput, Lifted, SecuritySettingsInput, SecuritySettingsView } from '../../schema/admin-settings.ts';
import { NoInput } from '../../schema/common.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

const admin = noApiKeys('admin');

export const settingsRoutes: readonly Route[] = [
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/admin/settings/security',
    summary: 'Session idle timeout, password sign-in mode and the auth_flood ban policy',
    input: NoInput,
    output: SecuritySettingsView,
    audit: 'http',
    rateLimit: 'read',
    handler: getSecuritySettings,
  }),
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/admin/settings/security',
    summary: 'Change the idle timeout (applies to live sessions), password sign-in mode or ban policy',
    input: SecuritySettingsInput,
    output: SecuritySettingsView,
    audit: 'auth',
    rateLimit: 'write',
    handler: updateSecuritySettings,
  }),
  defineRoute({
    // Reading the policy is allowed under policy:read (spec §5); changing it or lifting a ban is an admin's session only.
    access: { auth: 'credential', role: 'admin', scope: 'policy:read' },
    feature: null,
    method: 'GET',
    path: '/admin/access-control',
    summary: 'IP allowlist, denylist and current bans (a key needs policy:read)',
    input: NoInput,
    output: AccessControlView,
    audit: 'http',
    rateLimit: 'read',
    handler: getAccessControl,
  }),
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/admin/access-control',
    summary: 'Replace the allowlist and/or denylist (CIDRs or addresses); refuses a change that locks you out',
    input: AccessControlInput,
    output: AccessControlView,
    audit: 'auth',
    rateLimit: 'write',
    handler: updateAccessControl,
  }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/admin/access-control/bans/:ip',
    summary: 'Lift a ban',
    input: IpInput,
    output: Lifted,
    audit: 'auth',
    rateLimit: 'write',
    handler: liftBan,
  }),
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/admin/settings/audit-stream',
    summary: 'Audit streaming to audit.webhookUrl: target (token masked) and delivery counters',
    input: NoInput,
    output: AuditStreamView,
    audit: 'http',
    rateLimit: 'read',
    handler: getAuditStream,
  }),
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/admin/settings/audit-stream',
    summary: 'Set or clear the audit webhook; a token of •••• keeps the stored one for the same URL (a new URL needs the token again)',
    input: AuditStreamInput,
    output: AuditStreamView,
    audit: 'auth',
    rateLimit: 'write',
    handler: updateAuditStream,
  }),
  defineRoute({
    method: 'GET',
    path: '/activity/retention',
    summary: 'How many days of cluster events the activity feed keeps',
    input: NoInput,
    output: ActivityRetention,
    access: { auth: 'credential', role: 'viewer', scope: 'activity:read' },
    audit: 'access',
    rateLimit: 'read',
    feature: null,
    handler: getActivityRetention,
  }),
  defineRoute({
    method: 'POST',
    path: '/activity/retention',
    summary: 'Store the activity retention window in days, overriding CLUSTER_EVENTS_RETENTION_DAYS (admin)',
    input: ActivityRetention,
    output: ActivityRetention,
    access: { auth: 'credential', role: 'admin', scope: 'activity:write' },
    audit: 'write',
    rateLimit: 'write',
    feature: null,
    handler: setActivityRetention,
  }),
];
