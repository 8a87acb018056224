/**
 * Where the dispatcher finds a tenant's credential for a tool's `source.credential_key`. The credential
 * store supplies it; the value is handed to the executor through ToolContext and never stored elsewhere.
 */
export abstract class TenantCredentials {
  /** The decrypted value, or undefined when the tenant has none under that key. */
  abstract resolve(tenantId: string, key: string): Promise<string | undefined>;
}
