import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '../../../../auth/auth.decorators';
import { ApiErrors } from '../../../../common/api-errors.decorator';
import { RequestContext } from '../../../../tenancy/request-context';
import { FileBatchesService } from './file-batches.service';
import { POLL_AFTER_MS } from './vector-store-files.controller';
import {
  CreateFileBatchDto,
  FileBatchDto,
  ListVectorStoreFilesQueryDto,
  VectorStoreFileListDto,
} from './vector-store-files.dto';
import { VectorStoreFilesService } from './vector-store-files.service';

@ApiTags('Vector store file batches')
@Authenticated()
@Controller('v1/vector_stores/:vector_store_id/file_batches')
export class FileBatchesController {
  constructor(
    private readonly batches: FileBatchesService,
    private readonly vectorStoreFiles: VectorStoreFilesService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add several files at once',
    description: '`file_ids` and/or `files` (each with its own attributes and chunking).',
  })
  // file_ids and files are two ways to name the files: one example each.
  @ApiBody({
    type: CreateFileBatchDto,
    examples: {
      file_ids: {
        value: { file_ids: ['file-4f9Qm2kX8bLr1sVt7WcZ0aHd'], attributes: { team: 'support' } },
      },
      files: {
        value: { files: [{ file_id: 'file-4f9Qm2kX8bLr1sVt7WcZ0aHd', attributes: { team: 'billing' } }] },
      },
    },
  })
  @ApiOkResponse({ type: FileBatchDto })
  @ApiErrors(400, 404)
  create(@Param('vector_store_id') vectorStoreId: string, @Body() body: CreateFileBatchDto): Promise<FileBatchDto> {
    return this.batches.create(this.context.tenantId, vectorStoreId, body);
  }

  @Get(':batch_id')
  @ApiOperation({ summary: 'Get a file batch' })
  @ApiOkResponse({ type: FileBatchDto })
  @ApiErrors(404)
  async get(
    @Param('vector_store_id') vectorStoreId: string,
    @Param('batch_id') batchId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<FileBatchDto> {
    const batch = await this.batches.get(this.context.tenantId, vectorStoreId, batchId);
    if (batch.status === 'in_progress') response.setHeader('openai-poll-after-ms', POLL_AFTER_MS);
    return batch;
  }

  @Post(':batch_id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: "Cancel a batch's unfinished files" })
  @ApiOkResponse({ type: FileBatchDto })
  @ApiErrors(404)
  cancel(@Param('vector_store_id') vectorStoreId: string, @Param('batch_id') batchId: string): Promise<FileBatchDto> {
    return this.batches.cancel(this.context.tenantId, vectorStoreId, batchId);
  }

  @Get(':batch_id/files')
  @ApiOperation({ summary: "List a batch's files" })
  @ApiOkResponse({ type: VectorStoreFileListDto })
  @ApiErrors(400, 404)
  async files(
    @Param('vector_store_id') vectorStoreId: string,
    @Param('batch_id') batchId: string,
    @Query() query: ListVectorStoreFilesQueryDto,
  ) {
    const tenantId = this.context.tenantId;
    await this.batches.find(tenantId, vectorStoreId, batchId);
    return this.vectorStoreFiles.list(tenantId, vectorStoreId, query, batchId);
  }
}
