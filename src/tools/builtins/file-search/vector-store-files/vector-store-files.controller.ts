import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticated } from '../../../../auth/auth.decorators';
import { ApiErrors } from '../../../../common/api-errors.decorator';
import { createValidationPipe } from '../../../../common/validation';
import { RequestContext } from '../../../../tenancy/request-context';
import {
  CreateVectorStoreFileDto,
  DeletedVectorStoreFileDto,
  ListVectorStoreFilesQueryDto,
  UpdateVectorStoreFileDto,
  UploadVectorStoreFileDto,
  VectorStoreFileContentDto,
  VectorStoreFileDto,
  VectorStoreFileListDto,
} from './vector-store-files.dto';
import { VectorStoreFilesService } from './vector-store-files.service';

/** How soon OpenAI's SDK polling helpers should ask again about a file still being indexed. */
export const POLL_AFTER_MS = '500';

@ApiTags('Vector store files')
@Authenticated()
@ApiExtraModels(CreateVectorStoreFileDto, UploadVectorStoreFileDto)
@Controller('v1/vector_stores/:vector_store_id/files')
export class VectorStoreFilesController {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly vectorStoreFiles: VectorStoreFilesService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Add a file to a vector store',
    description:
      'JSON `{file_id, attributes?, chunking_strategy?}`, or, to upload and attach in one request, a multipart ' +
      'upload with `file` and optional JSON-text `attributes` and `chunking_strategy`. ' +
      'Indexing is asynchronous: poll the file.',
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({
    schema: {
      oneOf: [{ $ref: getSchemaPath(CreateVectorStoreFileDto) }, { $ref: getSchemaPath(UploadVectorStoreFileDto) }],
    },
  })
  @ApiOkResponse({ type: VectorStoreFileDto })
  @ApiErrors(400, 404, 413)
  async create(@Param('vector_store_id') vectorStoreId: string, @Req() request: Request): Promise<VectorStoreFileDto> {
    const tenantId = this.context.tenantId;
    if (request.is('multipart/form-data')) return this.vectorStoreFiles.upload(tenantId, vectorStoreId, request);
    const body = (await this.validation.transform(request.body ?? {}, {
      type: 'body',
      metatype: CreateVectorStoreFileDto,
    })) as CreateVectorStoreFileDto;
    return this.vectorStoreFiles.create(tenantId, vectorStoreId, body);
  }

  @Get()
  @ApiOperation({ summary: "List a vector store's files" })
  @ApiOkResponse({ type: VectorStoreFileListDto })
  @ApiErrors(400, 404)
  list(@Param('vector_store_id') vectorStoreId: string, @Query() query: ListVectorStoreFilesQueryDto) {
    return this.vectorStoreFiles.list(this.context.tenantId, vectorStoreId, query);
  }

  @Get(':file_id')
  @ApiOperation({ summary: 'Get a vector store file (status, last_error, usage)' })
  @ApiOkResponse({ type: VectorStoreFileDto })
  @ApiErrors(404)
  async get(
    @Param('vector_store_id') vectorStoreId: string,
    @Param('file_id') fileId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<VectorStoreFileDto> {
    const file = await this.vectorStoreFiles.get(this.context.tenantId, vectorStoreId, fileId);
    if (file.status === 'in_progress') response.setHeader('openai-poll-after-ms', POLL_AFTER_MS);
    return file;
  }

  @Post(':file_id')
  @HttpCode(200)
  @ApiOperation({ summary: "Replace a vector store file's attributes" })
  @ApiOkResponse({ type: VectorStoreFileDto })
  @ApiErrors(400, 404)
  update(
    @Param('vector_store_id') vectorStoreId: string,
    @Param('file_id') fileId: string,
    @Body() body: UpdateVectorStoreFileDto,
  ): Promise<VectorStoreFileDto> {
    return this.vectorStoreFiles.update(this.context.tenantId, vectorStoreId, fileId, body.attributes);
  }

  @Delete(':file_id')
  @ApiOperation({ summary: 'Remove a file from a vector store (the file itself stays)' })
  @ApiOkResponse({ type: DeletedVectorStoreFileDto })
  @ApiErrors(404)
  delete(
    @Param('vector_store_id') vectorStoreId: string,
    @Param('file_id') fileId: string,
  ): Promise<DeletedVectorStoreFileDto> {
    return this.vectorStoreFiles.delete(this.context.tenantId, vectorStoreId, fileId);
  }

  @Get(':file_id/content')
  @ApiOperation({ summary: 'The parsed text of a vector store file, as its chunks' })
  @ApiOkResponse({ type: VectorStoreFileContentDto })
  @ApiErrors(404)
  content(
    @Param('vector_store_id') vectorStoreId: string,
    @Param('file_id') fileId: string,
  ): Promise<VectorStoreFileContentDto> {
    return this.vectorStoreFiles.content(this.context.tenantId, vectorStoreId, fileId);
  }
}
