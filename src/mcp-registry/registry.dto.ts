import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class RegistryListQueryDto {
  @ApiPropertyOptional({
    description: 'Opaque: the `metadata.nextCursor` of the previous page.',
    example: 'local.toolgate/github',
  })
  @IsOptional()
  @IsString()
  @MaxLength(300)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 30 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'Case-insensitive substring of the server name.', example: 'github' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({
    description: 'Only `latest` (each source is served as one version, always the latest).',
    enum: ['latest'],
  })
  @IsOptional()
  @IsIn(['latest'])
  version?: 'latest';

  @ApiPropertyOptional({
    description: 'RFC 3339 timestamp: only servers updated after it.',
    example: '2026-01-01T00:00:00Z',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  updated_since?: string;
}
