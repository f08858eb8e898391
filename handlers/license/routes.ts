// Admin → License (spec §4 `/admin/license*`): admin sessions only, never an API key (403
// api_key_forbidden, the noApiKeys declaration), never behind a feature (a Free install must be
// able to install its key). docs/licensing.md.
import { getLicense, installLicense, removeLicense } from './license.ts';
import { NoInput } from '../../schema/common.ts';
import { InstallLicenseInput, LicenseView } from '../../schema/license.ts';
import { defineRoute, noApiKeys, type Route } from '../route.ts';

const admin = noApiKeys('admin');

export const licenseRoutes: readonly Route[] = [
  defineRoute({
    ...admin,
    method: 'GET',
    path: '/admin/license',
    summary: 'The license in force: tier, state (valid, expired, invalid, none) and why, licensee, expiry, features; the key itself masked',
    input: NoInput,
    output: LicenseView,
    audit: 'http',
    rateLimit: 'read',
    handler: getLicense,
  }),
  defineRoute({
    ...admin,
    method: 'PUT',
    path: '/admin/license',
    summary: 'Install a license key; in force at once. An invalid or expired key is refused (400 naming key) and changes nothing',
    input: InstallLicenseInput,
    output: LicenseView,
    audit: 'auth',
    rateLimit: 'write',
    handler: installLicense,
  }),
  defineRoute({
    ...admin,
    method: 'DELETE',
    path: '/admin/license',
    summary: "Remove the license key (an admin's or the install key): back to the Free tier at once",
    input: NoInput,
    output: LicenseView,
    audit: 'auth',
    rateLimit: 'write',
    handler: removeLicense,
  }),
];
