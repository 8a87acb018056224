import type { CatalogSnapshot } from './catalog-state';
import { tenantAdmitted } from './tenant-access';
import type { ToolEntity } from './tool.entity';

export interface Caller {
  tenantId: string;
  agentProfile?: string;
}

export interface Denial {
  code: 'not_approved' | 'stale' | 'tenant_denied' | 'not_in_tenant_bundles' | 'not_in_agent_profile';
  reason: string;
}

/**
 * The effective tool set for (tenant T, agent profile P): approved and not stale -> tenant_access
 * admits T -> if bundles are assigned to T (no profile): only their tools -> if P is given: only the tools
 * of bundles assigned to (T, P). Each step only narrows. Answers why a tool is outside the set, or
 * undefined when the caller may use it.
 */
export function denialFor(snapshot: CatalogSnapshot, tool: ToolEntity, caller: Caller): Denial | undefined {
  if (tool.securityStatus !== 'approved') {
    return {
      code: 'not_approved',
      reason: `Tool '${tool.name}' is not approved for use (security_status: ${tool.securityStatus})`,
    };
  }
  if (tool.stale) {
    return { code: 'stale', reason: `Tool '${tool.name}' is stale: its source no longer offers it` };
  }
  if (!tenantAdmitted(tool.tenantAccess, caller.tenantId)) {
    return { code: 'tenant_denied', reason: `Tool '${tool.name}' is not available to tenant '${caller.tenantId}'` };
  }
  const tenantBundles = bundleTools(snapshot, caller.tenantId, '');
  if (tenantBundles && !tenantBundles.has(tool.id)) {
    return {
      code: 'not_in_tenant_bundles',
      reason: `Tool '${tool.name}' is not in the bundles assigned to tenant '${caller.tenantId}'`,
    };
  }
  if (caller.agentProfile !== undefined) {
    const profileBundles = bundleTools(snapshot, caller.tenantId, caller.agentProfile) ?? new Set<string>();
    if (!profileBundles.has(tool.id)) {
      return {
        code: 'not_in_agent_profile',
        reason: `Tool '${tool.name}' is not in the bundles of agent profile '${caller.agentProfile}'`,
      };
    }
  }
  return undefined;
}

/** The caller's effective tools, narrowed to `requested` names when given. */
export function effectiveEntries(snapshot: CatalogSnapshot, caller: Caller, requested?: string[]): ToolEntity[] {
  const wanted = requested && new Set(requested);
  return [...snapshot.toolsByName.values()]
    .filter((tool) => !wanted || wanted.has(tool.name))
    .filter((tool) => denialFor(snapshot, tool, caller) === undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Union of the tools of bundles assigned to (tenant, profile); undefined when none are assigned. */
function bundleTools(snapshot: CatalogSnapshot, tenantId: string, profile: string): Set<string> | undefined {
  const assigned = snapshot.assignments.filter((a) => a.tenantId === tenantId && a.agentProfile === profile);
  if (assigned.length === 0) return undefined;
  const ids = new Set<string>();
  for (const assignment of assigned) {
    for (const id of snapshot.bundles.get(assignment.bundleId)?.toolIds ?? []) ids.add(id);
  }
  return ids;
}
