import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Authenticated } from '../../../../auth/auth.decorators';
import { ApiErrors } from '../../../../common/api-errors.decorator';
import { RequestContext } from '../../../../tenancy/request-context';
import { DeletedFileDto, FileDto, FileListDto, ListFilesQueryDto, UploadFileDto } from './files.dto';
import { FilesService } from './files.service';

@ApiTags('Files')
@Authenticated()
@Controller('v1/files')
export class FilesController {
  constructor(
    private readonly files: FilesService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Upload a file',
    description:
      'Multipart upload (`file`, `purpose`). The bytes are streamed into the database; a file over ' +
      '`builtins.file_search.max_file_size` (default 50 MB) answers 413 as soon as it passes the limit, ' +
      'and nothing of it is kept.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadFileDto, encoding: { expires_after: { style: 'deepObject', explode: true } } })
  @ApiOkResponse({ type: FileDto })
  @ApiErrors(400, 413)
  @HttpCode(200)
  create(@Req() request: Request): Promise<FileDto> {
    return this.files.create(this.context.tenantId, request);
  }

  @Get()
  @ApiOperation({ summary: "List the tenant's files" })
  @ApiOkResponse({ type: FileListDto })
  @ApiErrors(400)
  list(@Query() query: ListFilesQueryDto) {
    return this.files.list(this.context.tenantId, query);
  }

  @Get(':file_id')
  @ApiOperation({ summary: 'Get a file' })
  @ApiOkResponse({ type: FileDto })
  @ApiErrors(404)
  get(@Param('file_id') id: string): Promise<FileDto> {
    return this.files.get(this.context.tenantId, id);
  }

  @Get(':file_id/content')
  @ApiOperation({ summary: "Download a file's bytes" })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file as uploaded.' })
  @ApiErrors(404)
  async content(@Param('file_id') id: string, @Res() response: Response): Promise<void> {
    const file = await this.files.find(this.context.tenantId, id);
    response.status(200);
    response.setHeader('Content-Type', 'application/octet-stream');
    response.setHeader('Content-Length', String(file.bytes));
    response.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`);
    await pipeline(Readable.from(this.files.content(file.id)), response);
  }

  @Delete(':file_id')
  @ApiOperation({ summary: 'Delete a file and remove it from every vector store' })
  @ApiOkResponse({ type: DeletedFileDto })
  @ApiErrors(404)
  delete(@Param('file_id') id: string): Promise<DeletedFileDto> {
    return this.files.delete(this.context.tenantId, id);
  }
}
