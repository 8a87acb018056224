import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ListQueryDto, ListOf } from '../../../../common/list.dto';

export const FILE_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

export class UploadFileDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The file. Streamed into the database.' })
  file: unknown;

  @ApiProperty({ enum: FILE_PURPOSES, example: 'assistants' })
  purpose: FilePurpose;

  @ApiPropertyOptional({
    description: 'Expiry, sent as expires_after[anchor]=created_at and expires_after[seconds]=3600..2592000.',
    example: { anchor: 'created_at', seconds: 86400 },
  })
  expires_after?: { anchor: 'created_at'; seconds: number };
}

export class ListFilesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'assistants', description: 'Only files with this purpose.' })
  @IsOptional()
  @IsString()
  purpose?: string;
}

export class FileDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  id: string;

  @ApiProperty({ example: 'file' })
  object: 'file';

  @ApiProperty({ example: 120534, description: 'Size in bytes.' })
  bytes: number;

  @ApiProperty({ example: 1764000000 })
  created_at: number;

  @ApiProperty({ example: null, nullable: true, type: Number })
  expires_at: number | null;

  @ApiProperty({ example: 'handbook.pdf' })
  filename: string;

  @ApiProperty({ enum: FILE_PURPOSES })
  purpose: string;

  @ApiProperty({ example: 'processed', description: 'Always processed once the upload has finished.' })
  status: 'processed';

  @ApiProperty({ example: null, nullable: true, type: String })
  status_details: string | null;
}

export class FileListDto extends ListOf(FileDto) {}

export class DeletedFileDto {
  @ApiProperty({ example: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd' })
  id: string;

  @ApiProperty({ example: 'file' })
  object: 'file';

  @ApiProperty({ example: true })
  deleted: true;
}
