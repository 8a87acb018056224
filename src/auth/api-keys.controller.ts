import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors.decorator';
import { Admin, Authenticated } from './auth.decorators';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  DeletedApiKeyDto,
  ListApiKeysQueryDto,
} from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';

@ApiTags('API keys')
@Authenticated()
@Admin()
@Controller('v1/admin/api_keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API key (admin). The secret is returned once.' })
  // expires_at and expires_in are alternatives: each example sets one (a body generated from the fields would set both).
  @ApiBody({
    type: CreateApiKeyDto,
    examples: {
      expires_in: { value: { name: 'ci-pipeline', tenant_id: 'acme', role: 'member', expires_in: 2592000 } },
      expires_at: { value: { name: 'nightly-report', tenant_id: 'acme', expires_at: '2027-01-01T00:00:00Z' } },
    },
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  @ApiErrors(400)
  create(@Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.apiKeys.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List API keys (admin): metadata and prefix only, never the secret.' })
  @ApiOkResponse({ type: ApiKeyListDto })
  @ApiErrors(400)
  list(@Query() query: ListApiKeysQueryDto) {
    return this.apiKeys.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one API key (admin).' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiErrors(404)
  get(@Param('id') id: string): Promise<ApiKeyDto> {
    return this.apiKeys.get(id);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an API key (admin). Takes effect at once on every replica; idempotent.' })
  @ApiOkResponse({ type: DeletedApiKeyDto })
  @ApiErrors(404)
  revoke(@Param('id') id: string): Promise<DeletedApiKeyDto> {
    return this.apiKeys.revoke(id);
  }
}
