import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDateString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { ListQueryDto, ListOf } from '../common/list.dto';
import { TENANT_ID_PATTERN, TENANT_ID_RULE } from '../tenancy/tenant-id';
import type { Role } from './api-key.entity';

/** 100 years: beyond some point the expiry is no longer a date JavaScript or PostgreSQL can hold. */
const MAX_EXPIRES_IN = 100 * 365 * 86_400;

export class CreateApiKeyDto {
  @ApiProperty({ example: 'ci-pipeline', description: 'A label for people; not unique.' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  name: string;

  @ApiProperty({ example: 'acme', description: `The tenant the key acts for: ${TENANT_ID_RULE}.` })
  @IsString()
  @Matches(TENANT_ID_PATTERN, { message: `tenant_id must be ${TENANT_ID_RULE}` })
  tenant_id: string;

  @ApiPropertyOptional({ enum: ['admin', 'member'], default: 'member' })
  @IsOptional()
  @IsIn(['admin', 'member'])
  role?: Role;

  @ApiPropertyOptional({ example: '2027-01-01T00:00:00Z', description: 'Expiry time (ISO 8601).' })
  @IsOptional()
  @IsDateString({ strict: true })
  expires_at?: string;

  @ApiPropertyOptional({
    example: 2592000,
    maximum: MAX_EXPIRES_IN,
    description: 'Expiry in seconds from now (at most 100 years); alternative to expires_at.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_EXPIRES_IN)
  expires_in?: number;
}

export class ListApiKeysQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'acme', description: 'Only keys of this tenant.' })
  @IsOptional()
  @IsString()
  tenant_id?: string;
}

export class ApiKeyDto {
  @ApiProperty({ example: 'key_4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  id: string;

  @ApiProperty({ example: 'api_key' })
  object: 'api_key';

  @ApiProperty({ example: 'ci-pipeline' })
  name: string;

  @ApiProperty({ example: 'acme' })
  tenant_id: string;

  @ApiProperty({ enum: ['admin', 'member'] })
  role: Role;

  @ApiProperty({ example: 'tg_a1B2c3', description: 'The first characters of the secret.' })
  prefix: string;

  @ApiProperty({ enum: ['active', 'expired', 'revoked'] })
  status: 'active' | 'expired' | 'revoked';

  @ApiProperty({ example: '2026-02-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ example: '2027-01-01T00:00:00.000Z', nullable: true, type: String })
  expires_at: string | null;

  @ApiProperty({ nullable: true, type: String })
  revoked_at: string | null;

  @ApiProperty({ nullable: true, type: String })
  last_used_at: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ example: 'tg_a1B2c3...', description: 'The secret. Returned only in this response; store it now.' })
  secret: string;
}

export class ApiKeyListDto extends ListOf(ApiKeyDto) {}

export class DeletedApiKeyDto {
  @ApiProperty({ example: 'key_4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  id: string;

  @ApiProperty({ example: 'api_key.deleted' })
  object: 'api_key.deleted';

  @ApiProperty({ example: true })
  deleted: true;
}
