import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { isoTime } from '../common/time';
import { TenantSettingsEntity } from './tenant-settings.entity';
import { TenantSettingsRepository } from './tenant-settings.repository';
import { TenantSettingsDto, UpdateTenantSettingsDto } from './tenant-settings.dto';

export const DEFAULT_AUDIT_RETENTION = { basic_records: '90d', full_records: '30d' };

interface StoredSettings {
  audit_retention?: { basic_records?: string; full_records?: string };
}

@Injectable()
export class TenantSettingsService {
  constructor(
    private readonly settings: TenantSettingsRepository,
    private readonly clock: Clock,
  ) {}

  async get(tenantId: string): Promise<TenantSettingsDto> {
    const row = await this.settings.byTenant(tenantId);
    return present(tenantId, row);
  }

  /** Each tenant's audit retention where it differs from the defaults (tenants absent here use them). */
  async auditRetentionOverrides(): Promise<{ tenantId: string; basic_records: string; full_records: string }[]> {
    return (await this.settings.auditRetentions()).map((row) => ({
      tenantId: row.tenantId,
      basic_records: row.basic ?? DEFAULT_AUDIT_RETENTION.basic_records,
      full_records: row.full ?? DEFAULT_AUDIT_RETENTION.full_records,
    }));
  }

  /** Merges the given sections into the stored ones; sections not mentioned keep their values. */
  async update(tenantId: string, input: UpdateTenantSettingsDto): Promise<TenantSettingsDto> {
    const row = await this.settings.update(
      tenantId,
      (current) => {
        const stored = (current?.settings ?? {}) as StoredSettings;
        const changes = input.audit_retention && definedFields(input.audit_retention);
        const next: StoredSettings = {
          ...stored,
          ...(changes && { audit_retention: { ...stored.audit_retention, ...changes } }),
        };
        return next as Record<string, unknown>;
      },
      this.clock.now(),
    );
    return present(tenantId, row);
  }
}

/**
 * DTO instances carry every declared field, unset ones as `undefined` (class fields are defined even
 * when not assigned); spreading those would erase the stored values the caller did not mention.
 */
function definedFields<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function present(tenantId: string, row: TenantSettingsEntity | null): TenantSettingsDto {
  const stored = (row?.settings ?? {}) as StoredSettings;
  return {
    object: 'tenant.settings',
    tenant_id: tenantId,
    audit_retention: { ...DEFAULT_AUDIT_RETENTION, ...stored.audit_retention },
    updated_at: isoTime(row?.updatedAt),
  };
}
