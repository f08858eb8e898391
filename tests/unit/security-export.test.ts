// The findings export: the pure renderers cell by cell (CSV per RFC 4180 and safe from formula
// injection, Markdown and HTML escaped), then GET /security/findings/export through the real app
// and its policy chain over objects slimmed by the informers' own slimmers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterView, PodObject } from '../../domain/cluster/model.ts';
import { csvCell, csvLine } from '../../domain/export/csv.ts';
import { exportFilename, findingsCsv, findingsHtml, findingsMarkdown, htmlEscape, mdCell, MISCONFIG_COLUMNS, VULN_COLUMNS, type ExportMeta } from '../../domain/security/export.ts';
import { slimPod } from '../../runtime/kube/slim-pod.ts';
import { slimVulnerabilityReport } from '../../runtime/kube/slim-reports.ts';
import type { FindingsExport } from '../../schema/security-export.ts';
import type { FindingsAnswer, MisconfigFinding, VulnFinding } from '../../schema/security.ts';
import { testApp } from '../support/app.ts';
import { emptyCluster } from '../support/services.ts';

const HOSTILE = `=cmd|' /C calc'!A0 <script>alert("x")</script> a|b\nline2 & 'q'`;

const vuln: VulnFinding = {
  id: 'shop/Deployment/api#CVE-2024-0001:openssl:ghcr.io/acme/api:1.0',
  namespace: 'shop',
  workload: 'api',
  workload_kind: 'Deployment',
  image: 'ghcr.io/acme/api:1.0',
  cve: 'CVE-2024-0001',
  severity: 'CRITICAL',
  cvss: 9.8,
  pkg: 'openssl',
  installed_ver: '3.0.1',
  fixed_ver: null,
  fix_available: false,
  source: 'trivy',
};
const misconfig: MisconfigFinding = {
  id: 'shop/Deployment/api#hygiene-secret-env-literal:api',
  namespace: 'shop',
  workload: 'api',
  workload_kind: 'Deployment',
  check_id: 'hygiene-secret-env-literal',
  severity: 'HIGH',
  message: HOSTILE,
  remediation: 'Move the value into a Secret.',
  resource: 'Deployment/api',
  container: 'api',
  source: 'capstan',
};
const both: FindingsExport = { vulns: [vuln], misconfigs: [misconfig] };
const meta: ExportMeta = { generatedAt: '2026-11-24T10:00:00.000Z', totalMatched: 2, exported: 2 };

describe('csvCell and csvLine (RFC 4180, OWASP CSV injection)', () => {
  const cases: [string, string, string][] = [
    ['plain', 'api', 'api'],
    ['empty', '', ''],
    ['comma is quoted', 'a,b', '"a,b"'],
    ['quote is doubled and quoted', 'say "hi"', '"say ""hi"""'],
    ['LF is quoted', 'a\nb', '"a\nb"'],
    ['CRLF is quoted', 'a\r\nb', '"a\r\nb"'],
    ['= formula', '=SUM(A1:A2)', "'=SUM(A1:A2)"],
    ['+ formula', '+1+1', "'+1+1"],
    ['- formula', '-2+3', "'-2+3"],
    ['@ formula', '@SUM(1)', "'@SUM(1)"],
    ['tab first', '\tx', "'\tx"],
    ['CR first: guarded, then quoted', '\rx', `"'\rx"`],
    ['formula with comma and quote: guarded and quoted', '=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['a sign later in the cell is harmless', 'a=b', 'a=b'],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.equal(csvCell(input), want));
  it('ends a record with CRLF', () => assert.equal(csvLine(['a', 'b,c']), 'a,"b,c"\r\n'));
});

describe('findingsCsv', () => {
  it('writes one kind, spec §2 columns in order, null as empty and booleans as text', () => {
    assert.equal(findingsCsv('vuln', both, meta), 'namespace,workload,image,cve,severity,cvss,pkg,installed_ver,fixed_ver,fix_available,source\r\nshop,api,ghcr.io/acme/api:1.0,CVE-2024-0001,CRITICAL,9.8,openssl,3.0.1,,false,trivy\r\n');
    const csv = findingsCsv('misconfig', both, meta);
    const [header, ...rest] = csv.split('\r\n');
    assert.equal(header, MISCONFIG_COLUMNS.join(','));
    assert.equal(rest.join('\r\n'), `shop,api,hygiene-secret-env-literal,HIGH,"'${HOSTILE.replace(/"/g, '""')}",Deployment/api,capstan\r\n`);
  });

  it('writes the header alone when nothing matched, and a banner first when capped', () => {
    assert.equal(findingsCsv('vuln', { vulns: [], misconfigs: [] }, { ...meta, totalMatched: 0, exported: 0 }), `${VULN_COLUMNS.join(',')}\r\n`);
    const capped = findingsCsv('vuln', both, { ...meta, totalMatched: 50_000, exported: 1 });
    assert.match(capped.split('\r\n')[0] ?? '', /^"TRUNCATED: 1 of 50000 matching findings; narrow the filters \(namespace, severity, kind\) to export the rest"$/);
    assert.equal(capped.split('\r\n')[1], VULN_COLUMNS.join(','));
  });
});

describe('mdCell and findingsMarkdown', () => {
  const cases: [string, string, string][] = [
    ['plain', 'api', 'api'],
    ['pipe cannot end the cell', 'a|b', 'a\\|b'],
    ['LF becomes <br>', 'a\nb', 'a<br>b'],
    ['CRLF becomes one <br>', 'a\r\nb', 'a<br>b'],
    ['raw HTML cannot open', '<script>', '\\<script\\>'],
    ['a backslash cannot escape our escape', 'a\\|b', 'a\\\\\\|b'],
    ['links and emphasis stay text', '[x](y) *z* _w_ `c`', '\\[x\\]\\(y\\) \\*z\\* \\_w\\_ \\`c\\`'],
  ];
  for (const [name, input, want] of cases) it(name, () => assert.equal(mdCell(input), want));

  it('keeps every finding on one table row with exactly its columns', () => {
    const md = findingsMarkdown(both, meta);
    const rows = md.split('\n').filter((l) => l.startsWith('| shop'));
    assert.equal(rows.length, 2);
    const cells = (line: string) => line.split(/(?<!\\)\|/).length - 2;
    assert.deepEqual(rows.map(cells), [VULN_COLUMNS.length, MISCONFIG_COLUMNS.length]);
    assert.ok(md.includes(`| ${VULN_COLUMNS.join(' | ')} |`) && md.includes(`| ${MISCONFIG_COLUMNS.join(' | ')} |`));
    assert.ok(!md.includes('<script>'), 'no raw HTML from a value');
    assert.match(md, /^# Capstan security findings\n\nGenerated 2026-11-24T10:00:00.000Z: 1 vulnerabilities, 1 misconfigurations\./);
  });

  it('says None. for an empty kind and carries the banner when capped', () => {
    const md = findingsMarkdown({ vulns: [], misconfigs: [misconfig] }, { ...meta, totalMatched: 9, exported: 1 });
    assert.match(md, /## Vulnerabilities \(0\)\n\nNone\./);
    assert.match(md, /\*\*TRUNCATED: 1 of 9 matching findings/);
  });
});

describe('htmlEscape and findingsHtml', () => {
  const cases: [string, string][] = [
    ['a & b', 'a &amp; b'],
    ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
    [`"double" 'single'`, '&quot;double&quot; &#39;single&#39;'],
    ['&lt; already', '&amp;lt; already'],
  ];
  for (const [input, want] of cases) it(`escapes ${JSON.stringify(input)}`, () => assert.equal(htmlEscape(input), want));

  it('is a complete document in which no value is markup', () => {
    const html = findingsHtml(both, meta);
    assert.match(html, /^<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
    assert.match(html, /<\/body>\n<\/html>\n$/);
    assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
    assert.ok(!html.includes('<script'), 'the hostile message never becomes a tag');
    assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(html.includes('&#39;q&#39;') && html.includes(' &amp; '));
    assert.equal((html.match(/<tr>/g) ?? []).length, 4, 'a header row and a row per finding in each table');
    for (const c of [...VULN_COLUMNS, ...MISCONFIG_COLUMNS]) assert.ok(html.includes(`<th>${c}</th>`), c);
  });
});

describe('exportFilename', () => {
  for (const format of ['json', 'csv', 'md', 'html'] as const) {
    it(format, () => assert.equal(exportFilename(format, '2026-11-24T23:59:59.000Z'), `capstan-findings-2026-11-24.${format}`));
  }
});

describe('GET /security/findings/export', () => {
  // A bare pod (judged on its own spec) whose env name carries markup: Kubernetes' relaxed env
  // name rules allow any printable character but `=`.
  const hostileEnv = `<img src=x onerror="alert('x')">_PASSWORD`;
  const pods: PodObject[] = [
    slimPod({ metadata: { namespace: 'blog', name: 'debug' }, spec: { hostNetwork: true, containers: [{ name: 'web', image: 'alpine:latest', securityContext: { privileged: true }, env: [{ name: hostileEnv, value: 'x' }] }] } }),
    slimPod({ metadata: { namespace: 'kube-system', name: 'hidden-zz9' }, spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] } }),
  ].filter((p): p is PodObject => p !== null);
  const cluster: ClusterView = {
    ...emptyCluster,
    namespaces: () => ['blog', 'kube-system'].map((name) => ({ name, phase: 'Active', createdAt: null, labels: {} })),
    pods: () => pods,
  };

  async function reader() {
    const h = await testApp({ cluster });
    const cookie = await h.signIn('viewer');
    return { h, get: (query: string) => h.call('GET', `/api/agent/security/findings/export${query}`, { cookie }), findings: async (query: string) => (await h.call('GET', `/api/agent/security/findings${query}`, { cookie })).body as unknown as FindingsAnswer };
  }

  it('answers json by default: the findings route\'s {vulns, misconfigs}, as a dated attachment', async () => {
    const { h, get, findings } = await reader();
    const res = await get('');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const date = h.clock.now().toISOString().slice(0, 10);
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="capstan-findings-${date}.json"`);
    const same = async (query: string) => {
      const { vulns, misconfigs } = await findings(query);
      return { vulns, misconfigs };
    };
    assert.deepEqual(res.body, await same(''));
    const total = (res.body.misconfigs as unknown[]).length;
    assert.ok(total > 5);
    assert.deepEqual([res.headers.get('x-total-matched'), res.headers.get('x-truncated'), res.headers.get('x-generated-at')], [String(total), 'false', h.clock.now().toISOString()]);
    assert.ok(!res.text.includes('zz9'), 'a hidden namespace is never exported');
    const filtered = await get('?severity=CRITICAL&sort=workload');
    assert.deepEqual(filtered.body, await same('?severity=CRITICAL&sort=workload'));
  });

  it('answers csv of one kind, vulnerabilities unless kind says otherwise', async () => {
    const { get } = await reader();
    const vulns = await get('?format=csv');
    assert.equal(vulns.status, 200, vulns.text);
    assert.equal(vulns.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(vulns.headers.get('content-disposition') ?? '', /^attachment; filename="capstan-findings-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.equal(vulns.text, `${VULN_COLUMNS.join(',')}\r\n`, 'no scanner reports are read yet: the header alone');
    assert.equal(vulns.headers.get('x-total-matched'), '0');
    const misconfigs = await get('?format=csv&kind=misconfig&severity=HIGH');
    const lines = misconfigs.text.split('\r\n');
    assert.equal(lines[0], MISCONFIG_COLUMNS.join(','));
    assert.ok(lines.slice(1, -1).length > 0 && lines.slice(1, -1).every((l) => l.startsWith('blog,debug,') && l.includes(',HIGH,')));
    assert.ok(misconfigs.text.includes(`,"container ""web"" sets secret-looking env ""${hostileEnv.replace(/"/g, '""')}"" to a literal value",`), misconfigs.text);
  });

  it('answers md and html with the hostile env name escaped', async () => {
    const { get } = await reader();
    const md = await get('?format=md');
    assert.equal(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
    assert.match(md.headers.get('content-disposition') ?? '', /\.md"$/);
    assert.ok(md.text.includes(`env "\\<img src=x onerror="alert\\('x'\\)"\\>\\_PASSWORD" to`), 'the tag cannot open in Markdown');
    assert.ok(!/(?<!\\)<img/.test(md.text), 'every < is escaped');
    const html = await get('?format=html&namespace=blog');
    assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(html.headers.get('content-disposition') ?? '', /\.html"$/);
    assert.ok(!html.text.includes('<img'), 'never markup');
    assert.ok(html.text.includes('&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;_PASSWORD'));
  });

  it('exports trivy-operator\'s vulnerabilities as csv rows, a package name that reads as a formula quoted', async () => {
    const report = slimVulnerabilityReport({
      metadata: { name: 'pod-debug-web', namespace: 'blog', labels: { 'trivy-operator.resource.kind': 'Pod', 'trivy-operator.resource.name': 'debug', 'trivy-operator.container.name': 'web' } },
      report: {
        registry: { server: 'index.docker.io' },
        artifact: { repository: 'library/alpine', tag: 'latest' },
        vulnerabilities: [
          { vulnerabilityID: 'CVE-2023-4911', resource: 'libc6', installedVersion: '2.36-9+deb12u2', fixedVersion: '2.36-9+deb12u3', severity: 'HIGH', score: 7.8 },
          { vulnerabilityID: 'CVE-2024-0001', resource: '=HYPERLINK("http://evil","x")', installedVersion: '1.0', severity: 'CRITICAL' },
        ],
      },
    });
    assert.ok(report);
    const h = await testApp({ cluster: { ...cluster, vulnerabilityReports: () => [report] } });
    const cookie = await h.signIn('viewer');
    const res = await h.call('GET', '/api/agent/security/findings/export?format=csv', { cookie });
    assert.equal(res.status, 200, res.text);
    assert.equal(
      res.text,
      [
        VULN_COLUMNS.join(','),
        `blog,debug,index.docker.io/library/alpine:latest,CVE-2024-0001,CRITICAL,,"'=HYPERLINK(""http://evil"",""x"")",1.0,,false,trivy`,
        'blog,debug,index.docker.io/library/alpine:latest,CVE-2023-4911,HIGH,7.8,libc6,2.36-9+deb12u2,2.36-9+deb12u3,true,trivy',
        '',
      ].join('\r\n'),
    );
    assert.equal(res.headers.get('x-total-matched'), '2');
  });

  it('refuses a bad format naming the field, a hidden namespace, and a key without scanning:read', async () => {
    const { h, get } = await reader();
    const bad = await get('?format=xlsx');
    assert.deepEqual([bad.status, bad.body.field], [400, 'format']);
    assert.equal((await get('?namespace=kube-system')).status, 403);
    const admin = await h.signIn('admin');
    const mint = async (scope: string) => String((await h.call('POST', '/me/api-keys', { cookie: admin, body: { name: scope, scopes: [scope] } })).body.key);
    const refused = await h.call('GET', '/security/findings/export', { key: await mint('workloads:read') });
    assert.deepEqual([refused.status, refused.body.scope], [403, 'scanning:read']);
    assert.equal((await h.call('GET', '/security/findings/export?format=csv', { key: await mint('scanning:read') })).status, 200);
  });
});
