import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, Matches, ValidateNested } from 'class-validator';

const RETENTION = /^[1-9][0-9]{0,4}d$/;
const RETENTION_RULE = 'a number of days such as "30d"';

export class AuditRetentionDto {
  @ApiPropertyOptional({ example: '90d', description: 'How long basic audit records are kept.' })
  @IsOptional()
  @Matches(RETENTION, { message: `basic_records must be ${RETENTION_RULE}` })
  basic_records?: string;

  @ApiPropertyOptional({ example: '30d', description: 'How long input and output of full audit records are kept.' })
  @IsOptional()
  @Matches(RETENTION, { message: `full_records must be ${RETENTION_RULE}` })
  full_records?: string;
}

export class UpdateTenantSettingsDto {
  @ApiPropertyOptional({ type: AuditRetentionDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AuditRetentionDto)
  audit_retention?: AuditRetentionDto;
}

export class TenantSettingsDto {
  @ApiProperty({ example: 'tenant.settings' })
  object: 'tenant.settings';

  @ApiProperty({ example: 'acme' })
  tenant_id: string;

  @ApiProperty({ type: AuditRetentionDto, example: { basic_records: '90d', full_records: '30d' } })
  audit_retention: Required<AuditRetentionDto>;

  @ApiProperty({
    nullable: true,
    type: String,
    example: '2026-02-22T10:00:00.000Z',
    description: 'null until first changed.',
  })
  updated_at: string | null;
}
