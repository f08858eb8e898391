// The one source of the findings a caller may see, for every surface that shows them:
// GET /security/findings, its export, MCP `get_findings` and the cluster model's workload
// nodes. A new source of findings (a scanner's reports) joins here, so all of them show it.
import { visibleFindings } from '../../domain/security/visible.ts';
import type { MisconfigFinding, VulnFinding } from '../../schema/security.ts';
import type { HandlerContext } from '../context.ts';

export interface VisibleFindings {
  vulns: VulnFinding[];
  misconfigs: MisconfigFinding[];
}

/**
 * Every finding in the namespaces the caller may see, unfiltered: the misconfigurations (the
 * built-in checks' and trivy-operator's ConfigAuditReports', which the posture already holds)
 * in the default (severity) order, trivy-operator's vulnerabilities unsorted.
 */
export function visibleFindingsFor(ctx: HandlerContext): VisibleFindings {
  const inScope = (ns: string) => ctx.cluster.inScope(ns);
  const evaluation = ctx.posture.current();
  const reports = ctx.scannerReports.current();
  // Cut once per evaluation, reports and visible set (the tenant namespaces, as the posture
  // answer and the cluster model key theirs), not on every request: at scale-5000 that is
  // 8000 findings filtered before the route's own filters and page even start.
  return ctx.memo.derive(`security-findings:${ctx.settings.tenantNamespaces.join(',')}`, [evaluation, reports], 0, () => ({
    vulns: reports.vulns.filter((f) => inScope(f.namespace)),
    misconfigs: visibleFindings(evaluation, inScope),
  }));
}
