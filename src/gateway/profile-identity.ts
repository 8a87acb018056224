import { ApiError } from '../common/api-error';
import type { Identity } from '../tenancy/request-context';

/** The rule bundle assignments use for agent profile names (bundles.dto.ts). */
const AGENT_PROFILE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * The caller as /mcp/profiles/{agent_profile} serves it. Naming a profile only narrows the effective set
 * (tenant access, then the tenant's bundles, then the profile's), so a caller without a profile may take
 * any profile of its own tenant. A credential that already carries a profile (a JWT claim, or
 * X-Agent-Profile with an API key) is bound to it: another profile in the path could hold tools outside
 * the caller's set, so it is refused.
 */
export function profileIdentity(identity: Identity, agentProfile: string): Identity {
  if (!AGENT_PROFILE_PATTERN.test(agentProfile)) {
    throw ApiError.invalid(
      'agent_profile must be a profile name of letters, digits, "_", ".", ":" or "-" (at most 128)',
      'agent_profile',
    );
  }
  if (identity.agentProfile !== undefined && identity.agentProfile !== agentProfile) {
    throw ApiError.forbidden(
      `This credential is bound to agent profile '${identity.agentProfile}': use /mcp/profiles/${identity.agentProfile} or /mcp`,
      'agent_profile_mismatch',
    );
  }
  return { ...identity, agentProfile };
}
