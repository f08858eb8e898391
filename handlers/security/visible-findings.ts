// The one source of the findings a caller may see, for every surface that shows them:
// GET /security/findings, its export, MCP `get_findings` and the cluster model's workload
// nodes. A new source of findings (a scanner's reports) joins here, so all of them show it.
import type { MisconfigFinding, VulnFinding } from '../../schema/security.ts';
import type { HandlerContext } from '../context.ts';

export interface VisibleFindings {
  vulns: readonly VulnFinding[];
  misconfigs: readonly MisconfigFinding[];
}

/**
 * Every finding in the namespaces the caller may see, unfiltered: the misconfigurations (the
 * built-in checks' and trivy-operator's ConfigAuditReports', which the posture already holds)
 * in the default (severity) order, trivy-operator's vulnerabilities unsorted. Both come cut
 * to the visible namespaces, each once per evaluation or reports (domain/security/scoped.ts):
 * at scale-5000 that is 8000 findings filtered once, not before every request's filters.
 */
export function visibleFindingsFor(ctx: HandlerContext): VisibleFindings {
  return { vulns: ctx.scannerReports.vulns(), misconfigs: ctx.posture.findings() };
}
