import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

/** Credential key names: also what a tool's `source.credential_key` names. */
export const CREDENTIAL_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const CREDENTIAL_KEY_RULE = '1 to 128 letters, digits, "_", "." or "-"';
/** The largest value, in UTF-8 bytes. */
export const MAX_CREDENTIAL_BYTES = 16_384;

/**
 * The value is write-only. Validation messages name the field and the rule, never the value: the
 * class-validator defaults used here do not interpolate `$value`.
 */
export class PutCredentialDto {
  @ApiProperty({
    example: 'ghp_exampleTokenValue',
    description: `The secret, 1 to ${MAX_CREDENTIAL_BYTES} bytes (UTF-8). Encrypted at rest and never returned.`,
    writeOnly: true,
    minLength: 1,
    maxLength: MAX_CREDENTIAL_BYTES,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_CREDENTIAL_BYTES)
  value: string;
}

export class CredentialDto {
  @ApiProperty({ example: 'tenant.credential' })
  object: 'tenant.credential';

  @ApiProperty({ example: 'acme' })
  tenant_id: string;

  @ApiProperty({ example: 'github_token', description: CREDENTIAL_KEY_RULE })
  key: string;

  @ApiProperty({ example: '2026-02-22T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({ example: '2026-02-22T11:00:00.000Z', description: 'When the value was last replaced.' })
  updated_at: string;
}

export class CredentialListDto {
  @ApiProperty({ example: 'list' })
  object: 'list';

  @ApiProperty({ type: [CredentialDto] })
  data: CredentialDto[];

  @ApiProperty({ nullable: true, type: String, example: 'github_token', description: 'The first key name.' })
  first_id: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'slack_token', description: 'The last key name.' })
  last_id: string | null;

  @ApiProperty()
  has_more: boolean;
}

/** Cursor pagination like the other lists, over key names (the key name is the credential's id). */
export class ListCredentialsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, description: 'Number of credentials to return.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'Cursor: return credentials after this key name.', example: 'github_token' })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ description: 'Cursor: return credentials before this key name.' })
  @IsOptional()
  @IsString()
  before?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc', description: 'Sort order by key name.' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}

export class DeletedCredentialDto {
  @ApiProperty({ example: 'tenant.credential.deleted' })
  object: 'tenant.credential.deleted';

  @ApiProperty({ example: 'acme' })
  tenant_id: string;

  @ApiProperty({ example: 'github_token' })
  key: string;

  @ApiProperty({ example: true })
  deleted: true;
}

export class CredentialRotationDto {
  @ApiProperty({ example: 'credential.rotation' })
  object: 'credential.rotation';

  @ApiProperty({ example: '3f9a1c07d2b84e65', description: 'Id (a short hash) of the current encryption key.' })
  key_id: string;

  @ApiProperty({ example: 12, description: 'Credentials re-encrypted with the current key by this run.' })
  rotated: number;

  @ApiProperty({ example: 240, description: 'Credentials already encrypted with the current key.' })
  current: number;

  @ApiProperty({
    example: 0,
    description: 'Credentials encrypted with a key that is not configured: left alone and unreadable until it is.',
  })
  missing_key: number;

  @ApiProperty({
    example: 0,
    description: 'Credentials whose key is configured but that do not decrypt (altered rows): left alone.',
  })
  failed: number;
}
