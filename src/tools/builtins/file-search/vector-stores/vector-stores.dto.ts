import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_NUM_RESULTS_CAP } from '../file-search.config';

export class CreateVectorStoreDto {
  @ApiPropertyOptional({ example: 'Support handbook' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string;

  @ApiPropertyOptional({ example: 'Policies and procedures for the support team' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  description?: string;

  @ApiPropertyOptional({ type: [String], example: ['file-4f9Qm2kX8bLr1sVt7WcZ0aHd'], description: 'Files to index.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  file_ids?: string[];

  @ApiPropertyOptional({ example: { anchor: 'last_active_at', days: 7 } })
  @IsOptional()
  expires_after?: unknown;

  @ApiPropertyOptional({ example: { type: 'auto' }, description: 'For file_ids: auto (800/400) or static.' })
  @IsOptional()
  chunking_strategy?: unknown;

  @ApiPropertyOptional({ example: { team: 'support' }, description: 'Up to 16 string pairs.' })
  @IsOptional()
  metadata?: unknown;
}

export class UpdateVectorStoreDto {
  @ApiPropertyOptional({ example: 'Support handbook v2', nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string | null;

  @ApiPropertyOptional({ example: { anchor: 'last_active_at', days: 30 }, nullable: true })
  @IsOptional()
  expires_after?: unknown;

  @ApiPropertyOptional({ example: { team: 'support' }, nullable: true })
  @IsOptional()
  metadata?: unknown;
}

class RankingOptionsDto {
  @ApiPropertyOptional({ enum: ['auto', 'default-2024-11-15', 'none'] })
  ranker?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, example: 0.2 })
  score_threshold?: number;
}

export class SearchVectorStoreDto {
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], example: 'refund policy' })
  @IsDefined()
  query: unknown;

  @ApiPropertyOptional({
    description: 'Attribute filter: {type: eq|ne|gt|gte|lt|lte|in|nin, key, value} or {type: and|or, filters}.',
    example: { type: 'and', filters: [{ type: 'eq', key: 'team', value: 'support' }] },
  })
  @IsOptional()
  filters?: unknown;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_NUM_RESULTS_CAP, default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_NUM_RESULTS_CAP)
  max_num_results?: number;

  @ApiPropertyOptional({ type: RankingOptionsDto })
  @IsOptional()
  ranking_options?: unknown;

  @ApiPropertyOptional({ description: 'Accepted; the query is searched as given (no rewriting model).' })
  @IsOptional()
  @IsBoolean()
  rewrite_query?: boolean;
}

class FileCountsDto {
  @ApiProperty() in_progress: number;
  @ApiProperty() completed: number;
  @ApiProperty() failed: number;
  @ApiProperty() cancelled: number;
  @ApiProperty() total: number;
}

export class VectorStoreDto {
  @ApiProperty({ example: 'vs_4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  id: string;

  @ApiProperty({ example: 'vector_store' })
  object: 'vector_store';

  @ApiProperty({ example: 1764000000 })
  created_at: number;

  @ApiProperty({ example: 'Support handbook' })
  name: string;

  @ApiProperty({ example: null, nullable: true, type: String })
  description: string | null;

  @ApiProperty({ example: 52344, description: 'Bytes of the completed files’ chunks and vectors.' })
  usage_bytes: number;

  @ApiProperty({ type: FileCountsDto })
  file_counts: FileCountsDto;

  @ApiProperty({ enum: ['expired', 'in_progress', 'completed'] })
  status: 'expired' | 'in_progress' | 'completed';

  @ApiProperty({ example: { anchor: 'last_active_at', days: 7 }, nullable: true })
  expires_after: { anchor: 'last_active_at'; days: number } | null;

  @ApiProperty({ example: 1764604800, nullable: true, type: Number })
  expires_at: number | null;

  @ApiProperty({ example: 1764000000, nullable: true, type: Number })
  last_active_at: number | null;

  @ApiProperty({ example: { team: 'support' } })
  metadata: Record<string, string>;

  @ApiProperty({
    enum: ['hybrid', 'full_text'],
    description: 'Toolgate extension: hybrid (vector + full-text) with an embedding service, full_text without one.',
  })
  search_mode: 'hybrid' | 'full_text';
}

export class VectorStoreListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [VectorStoreDto] }) data: VectorStoreDto[];
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
  @ApiProperty() has_more: boolean;
}

export class DeletedVectorStoreDto {
  @ApiProperty({ example: 'vs_4f9Qm2kX8bLr1sVt7WcZ0aHd' }) id: string;
  @ApiProperty({ example: 'vector_store.deleted' }) object: 'vector_store.deleted';
  @ApiProperty({ example: true }) deleted: true;
}

class SearchContentDto {
  @ApiProperty({ example: 'text' }) type: 'text';
  @ApiProperty({ example: 'Refunds are issued within 14 days.' }) text: string;
}

export class SearchResultDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' }) file_id: string;
  @ApiProperty({ example: 'handbook.pdf' }) filename: string;
  @ApiProperty({ example: 0.87, minimum: 0, maximum: 1 }) score: number;
  @ApiProperty({ example: { team: 'support' }, nullable: true }) attributes: Record<string, unknown> | null;
  @ApiProperty({ type: [SearchContentDto] }) content: SearchContentDto[];
}

export class SearchResultsPageDto {
  @ApiProperty({ example: 'vector_store.search_results.page' }) object: 'vector_store.search_results.page';
  @ApiProperty({ type: [String], example: ['refund policy'] }) search_query: string[];
  @ApiProperty({ type: [SearchResultDto] }) data: SearchResultDto[];
  @ApiProperty({ example: false }) has_more: false;
  @ApiProperty({ example: null, nullable: true, type: String }) next_page: null;
}
