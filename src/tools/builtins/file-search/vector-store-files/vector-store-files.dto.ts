import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../../common/list.dto';

export const VECTOR_STORE_FILE_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;

export class CreateVectorStoreFileDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  @IsString()
  @MaxLength(128)
  file_id: string;

  @ApiPropertyOptional({
    example: { team: 'support', year: 2025, public: true },
    nullable: true,
    description: 'Up to 16 keys (64 characters); strings of at most 512 characters, numbers or booleans.',
  })
  @IsOptional()
  attributes?: unknown;

  @ApiPropertyOptional({
    example: { type: 'static', static: { max_chunk_size_tokens: 400, chunk_overlap_tokens: 100 } },
  })
  @IsOptional()
  chunking_strategy?: unknown;
}

export class UploadVectorStoreFileDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The file, uploaded and added in one request.' })
  file: unknown;

  @ApiPropertyOptional({ description: 'JSON text of the attributes object.', example: '{"team":"support"}' })
  attributes?: string;

  @ApiPropertyOptional({ description: 'JSON text of the chunking strategy.', example: '{"type":"auto"}' })
  chunking_strategy?: string;
}

export class UpdateVectorStoreFileDto {
  @ApiProperty({ example: { team: 'billing' }, nullable: true })
  @IsDefined({ message: 'attributes is required (null removes them)' })
  attributes: unknown;
}

export class ListVectorStoreFilesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: VECTOR_STORE_FILE_STATUSES, description: 'Only files with this status.' })
  @IsOptional()
  @IsIn(VECTOR_STORE_FILE_STATUSES)
  filter?: (typeof VECTOR_STORE_FILE_STATUSES)[number];
}

class BatchFileDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  file_id: string;

  @ApiPropertyOptional({ example: { team: 'support' } })
  attributes?: unknown;

  @ApiPropertyOptional({ example: { type: 'auto' } })
  chunking_strategy?: unknown;
}

export class CreateFileBatchDto {
  @ApiPropertyOptional({
    type: [String],
    example: ['file-4f9Qm2kX8bLr1sVt7WcZ0aHd'],
    description: 'Files sharing the batch-level attributes and chunking.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @IsString({ each: true })
  file_ids?: string[];

  @ApiPropertyOptional({ type: [BatchFileDto], description: 'Files with their own attributes and chunking.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  files?: unknown[];

  @ApiPropertyOptional({ example: { team: 'support' }, nullable: true })
  @IsOptional()
  attributes?: unknown;

  @ApiPropertyOptional({ example: { type: 'auto' } })
  @IsOptional()
  chunking_strategy?: unknown;
}

class LastErrorDto {
  @ApiProperty({ enum: ['server_error', 'unsupported_file', 'invalid_file', 'file_too_large'] }) code: string;
  @ApiProperty({ example: 'Files of type .exe are not supported for file search' }) message: string;
}

class StaticChunkingDto {
  @ApiProperty({ example: 800 }) max_chunk_size_tokens: number;
  @ApiProperty({ example: 400 }) chunk_overlap_tokens: number;
}

class ChunkingStrategyDto {
  @ApiProperty({ example: 'static' }) type: 'static';
  @ApiProperty({ type: StaticChunkingDto }) static: StaticChunkingDto;
}

class IngestionProgressDto {
  @ApiProperty({
    enum: ['parsing', 'indexing', 'done'],
    description: 'parsing: text is being extracted; indexing: chunks are being cut, embedded and stored; done.',
  })
  stage: 'parsing' | 'indexing' | 'done';
  @ApiProperty({ example: 7340032, description: 'Size of the file in bytes.' }) file_bytes: number;
  @ApiProperty({
    example: 7200000,
    nullable: true,
    type: Number,
    description: 'Characters of text the file yielded; null while it is being parsed.',
  })
  characters_total: number | null;
  @ApiProperty({ example: 3600000, description: 'Characters of that text chunked, embedded and stored so far.' })
  characters_done: number;
  @ApiProperty({ example: 2048, description: 'Chunks stored so far.' }) chunks_done: number;
}

export class VectorStoreFileDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' }) id: string;
  @ApiProperty({ example: 'vector_store.file' }) object: 'vector_store.file';
  @ApiProperty({ example: 3120 }) usage_bytes: number;
  @ApiProperty({ example: 1764000000 }) created_at: number;
  @ApiProperty({ example: 'vs_4f9Qm2kX8bLr1sVt7WcZ0aHd' }) vector_store_id: string;
  @ApiProperty({ enum: VECTOR_STORE_FILE_STATUSES }) status: string;
  @ApiProperty({ type: LastErrorDto, nullable: true }) last_error: { code: string; message: string } | null;
  @ApiProperty({ type: ChunkingStrategyDto }) chunking_strategy: ChunkingStrategyDto;
  @ApiProperty({ example: { team: 'support' }, nullable: true }) attributes: Record<string, unknown> | null;
  @ApiProperty({
    type: IngestionProgressDto,
    nullable: true,
    description:
      "Toolgate extension, not in OpenAI's object (SDKs ignore it): how far ingestion got. Null until a worker " +
      'starts on the file; kept after it completes or fails (showing the stage it failed in).',
  })
  progress: IngestionProgressDto | null;
}

export class VectorStoreFileListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [VectorStoreFileDto] }) data: VectorStoreFileDto[];
  @ApiProperty({ nullable: true, type: String }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String }) last_id: string | null;
  @ApiProperty() has_more: boolean;
}

export class DeletedVectorStoreFileDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' }) id: string;
  @ApiProperty({ example: 'vector_store.file.deleted' }) object: 'vector_store.file.deleted';
  @ApiProperty({ example: true }) deleted: true;
}

class FileContentDto {
  @ApiProperty({ example: 'text' }) type: 'text';
  @ApiProperty({ example: 'Refunds are issued within 14 days.' }) text: string;
}

export class VectorStoreFileContentDto {
  @ApiProperty({ example: 'vector_store.file_content.page' }) object: 'vector_store.file_content.page';
  @ApiProperty({ type: [FileContentDto], description: 'The parsed chunks, in order.' }) data: FileContentDto[];
  @ApiProperty({ example: false }) has_more: false;
  @ApiProperty({ example: null, nullable: true, type: String }) next_page: null;
}

class BatchFileCountsDto {
  @ApiProperty() in_progress: number;
  @ApiProperty() completed: number;
  @ApiProperty() failed: number;
  @ApiProperty() cancelled: number;
  @ApiProperty() total: number;
}

export class FileBatchDto {
  @ApiProperty({ example: 'vsfb_4f9Qm2kX8bLr1sVt7WcZ0aHd' }) id: string;
  @ApiProperty({ example: 'vector_store.files_batch' }) object: 'vector_store.files_batch';
  @ApiProperty({ example: 1764000000 }) created_at: number;
  @ApiProperty({ example: 'vs_4f9Qm2kX8bLr1sVt7WcZ0aHd' }) vector_store_id: string;
  @ApiProperty({ enum: ['in_progress', 'completed', 'cancelled', 'failed'] }) status: string;
  @ApiProperty({ type: BatchFileCountsDto }) file_counts: BatchFileCountsDto;
}
