// What trivy v0.74.0 reports on the offline fixture image bookworm-before-fixes
// (tests/fixtures/trivy/image-bookworm-before-fixes.json, docs/trivy-offline.md), one row per
// CVE and package, as the tests that read it through the mapping or the agent compare it.
import type { VulnFinding } from '../../schema/security.ts';

export const vulnRow = (f: Pick<VulnFinding, 'cve' | 'pkg' | 'installed_ver' | 'fixed_ver' | 'severity' | 'cvss' | 'fix_available'>): string =>
  `${f.cve} ${f.pkg} ${f.installed_ver} -> ${f.fixed_ver ?? '-'} ${f.severity} ${f.cvss ?? '-'} ${f.fix_available}`;

/** Sorted, as `rows.map(vulnRow).sort()` gives them. */
export const FIXTURE_VULN_ROWS: readonly string[] = [
  'CVE-2019-9192 libc6 2.36-9+deb12u2 -> - LOW - false',
  'CVE-2022-27943 gcc-12-base 12.2.0-14 -> - LOW 5.5 false',
  'CVE-2022-27943 libgcc-s1 12.2.0-14 -> - LOW 5.5 false',
  'CVE-2022-27943 libstdc++6 12.2.0-14 -> - LOW 5.5 false',
  'CVE-2023-4039 gcc-12-base 12.2.0-14 -> 12.2.0-14+deb12u1 LOW 4.8 true',
  'CVE-2023-4039 libgcc-s1 12.2.0-14 -> 12.2.0-14+deb12u1 LOW 4.8 true',
  'CVE-2023-4039 libstdc++6 12.2.0-14 -> 12.2.0-14+deb12u1 LOW 4.8 true',
  'CVE-2023-4911 libc6 2.36-9+deb12u2 -> 2.36-9+deb12u3 HIGH 7.8 true',
  'CVE-2025-0395 libc6 2.36-9+deb12u2 -> 2.36-9+deb12u10 UNKNOWN - true',
];
