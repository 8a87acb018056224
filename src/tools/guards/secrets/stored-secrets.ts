import { Injectable } from '@nestjs/common';
import { ChangeEvents } from '../../../database/change-events';
import { CREDENTIALS_CHANGED, CredentialsService } from '../../catalog/credentials/credentials.service';
import { SecretResolver } from '../../catalog/credentials/secret-resolver';
import { StoredSecretIndex } from './stored-secret-index';

/** Tenants whose index is kept; past this the cache starts over (each index is rebuilt on its next call). */
const MAX_TENANTS = 10_000;

/**
 * Per tenant, an index of every secret Toolgate holds that the tenant's calls could leak: its own credentials
 * and the source-level secrets of configured MCP servers. Built on a tenant's first call (one query, the
 * values decrypted, hashed and dropped) and kept until a credential of the tenant changes, here or on another
 * replica. Toolgate's own API keys are recognised by their format (`tg_`), see secret-formats.ts.
 */
@Injectable()
export class StoredSecrets {
  private readonly byTenant = new Map<string, Promise<StoredSecretIndex>>();

  constructor(
    private readonly credentials: CredentialsService,
    private readonly secrets: SecretResolver,
    events: ChangeEvents,
  ) {
    events.subscribe(CREDENTIALS_CHANGED, (tenantId) => this.byTenant.delete(String(tenantId)));
    events.onReset(() => this.byTenant.clear());
  }

  indexOf(tenantId: string): Promise<StoredSecretIndex> {
    let index = this.byTenant.get(tenantId);
    if (!index) {
      if (this.byTenant.size >= MAX_TENANTS) this.byTenant.clear();
      index = this.build(tenantId);
      this.byTenant.set(tenantId, index);
      // A failed build is not kept: the next call tries again.
      index.catch(() => this.byTenant.delete(tenantId));
    }
    return index;
  }

  private async build(tenantId: string): Promise<StoredSecretIndex> {
    const index = new StoredSecretIndex('stored_credential');
    for (const { key, value } of await this.credentials.valuesOf(tenantId))
      index.add({ name: `credential:${key}`, value });
    for (const ref of this.secrets.requiredRefs()) {
      const value = this.secrets.resolve(ref);
      if (value !== undefined) index.add({ name: `source_secret:${ref}`, value });
    }
    return index;
  }
}
