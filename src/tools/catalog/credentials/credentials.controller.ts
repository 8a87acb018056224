import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../../auth/auth.decorators';
import { ApiErrors } from '../../../common/api-errors.decorator';
import type { ListPage } from '../../../common/list.dto';
import { RequestContext } from '../../../tenancy/request-context';
import { assertTenantAccess } from '../../../tenancy/tenant-access';
import {
  CREDENTIAL_KEY_RULE,
  CredentialDto,
  CredentialListDto,
  CredentialRotationDto,
  DeletedCredentialDto,
  ListCredentialsQueryDto,
  PutCredentialDto,
} from './credentials.dto';
import { CredentialsService } from './credentials.service';

const TENANT_PARAM = { name: 'tenant_id', example: 'acme' };
const KEY_PARAM = { name: 'key', example: 'github_token', description: CREDENTIAL_KEY_RULE };

@ApiTags('Credentials')
@Authenticated()
@Controller('v1/tenants/:tenant_id/credentials')
export class CredentialsController {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly context: RequestContext,
  ) {}

  @Put(':key')
  @ApiOperation({
    summary: "Store or replace one of a tenant's credentials (admins, or the tenant itself).",
    description:
      'The value is encrypted at rest (AES-256-GCM) and is never returned by any route; tools whose ' +
      '`source.credential_key` names this key receive it when this tenant calls them.',
  })
  @ApiParam(TENANT_PARAM)
  @ApiParam(KEY_PARAM)
  @ApiOkResponse({ type: CredentialDto })
  @ApiErrors(400, 404)
  put(
    @Param('tenant_id') tenantId: string,
    @Param('key') key: string,
    @Body() body: PutCredentialDto,
  ): Promise<CredentialDto> {
    assertTenantAccess(this.context.identity, tenantId);
    return this.credentials.put(tenantId, key, body.value);
  }

  @Get()
  @ApiOperation({ summary: "List a tenant's credentials: names and timestamps only, never values." })
  @ApiParam(TENANT_PARAM)
  @ApiOkResponse({ type: CredentialListDto })
  @ApiErrors(400, 404)
  list(
    @Param('tenant_id') tenantId: string,
    @Query() query: ListCredentialsQueryDto,
  ): Promise<ListPage<CredentialDto>> {
    assertTenantAccess(this.context.identity, tenantId);
    return this.credentials.list(tenantId, query);
  }

  @Delete(':key')
  @HttpCode(200)
  @ApiOperation({ summary: "Delete one of a tenant's credentials (admins, or the tenant itself)." })
  @ApiParam(TENANT_PARAM)
  @ApiParam(KEY_PARAM)
  @ApiOkResponse({ type: DeletedCredentialDto })
  @ApiErrors(400, 404)
  remove(@Param('tenant_id') tenantId: string, @Param('key') key: string): Promise<DeletedCredentialDto> {
    assertTenantAccess(this.context.identity, tenantId);
    return this.credentials.remove(tenantId, key);
  }
}

@ApiTags('Credentials')
@Authenticated()
@Admin()
@Controller('v1/admin/credentials')
export class CredentialsAdminController {
  constructor(private readonly credentials: CredentialsService) {}

  @Post('rotate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Re-encrypt every credential with the current key (admin).',
    description:
      'Rows sealed with a configured earlier key (`secrets.previous_keys`) are re-encrypted with ' +
      '`secrets.encryption_key`; this also happens at every start. Rows whose key is not configured are ' +
      'counted in `missing_key` and left alone.',
  })
  @ApiOkResponse({ type: CredentialRotationDto })
  rotate(): Promise<CredentialRotationDto> {
    return this.credentials.rotate();
  }
}
