import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../../auth/auth.decorators';
import { ApiErrors } from '../../../common/api-errors.decorator';
import { RequestContext } from '../../../tenancy/request-context';
import {
  CreatePolicyDto,
  DeletedPolicyDto,
  ListPoliciesQueryDto,
  PolicyDto,
  PolicyListDto,
  PolicyRevisionListDto,
  UpdatePolicyDto,
} from './policies.dto';
import { PoliciesService } from './policies.service';

const ID_PARAM = { name: 'id', description: 'A policy id (pol_...).' };

@ApiTags('Policies')
@Authenticated()
@Admin()
@Controller('v1/policies')
export class PoliciesController {
  constructor(
    private readonly policies: PoliciesService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Attach a call policy to a tenant (admin).',
    description:
      'A CEL condition over `tool`, `arguments`, `identity` and `request`, evaluated on every call of the tenant in scope (`profile`, `tools`) on /v1/tool_calls, /mcp and /v1/responses alike. A condition that does not compile is a 400 naming the position.',
  })
  @ApiCreatedResponse({ type: PolicyDto })
  @ApiErrors(400, 409)
  create(@Body() body: CreatePolicyDto): Promise<PolicyDto> {
    return this.policies.create(this.context.identity, body);
  }

  @Get()
  @ApiOperation({ summary: 'List policies, of one tenant with `tenant_id` (admin).' })
  @ApiOkResponse({ type: PolicyListDto })
  @ApiErrors(400)
  list(@Query() query: ListPoliciesQueryDto) {
    return this.policies.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a policy (admin).' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: PolicyDto })
  @ApiErrors(404)
  get(@Param('id') id: string): Promise<PolicyDto> {
    return this.policies.get(id);
  }

  @Get(':id/revisions')
  @ApiOperation({
    summary: 'Every version of a policy, oldest first, with who wrote it (admin).',
    description:
      'Audit records name the policy that decided a call as `<id>@v<version>`; this is where that version is read.',
  })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: PolicyRevisionListDto })
  @ApiErrors(404)
  revisions(@Param('id') id: string) {
    return this.policies.revisions(id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Change a policy (admin); its version goes up by one.' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: PolicyDto })
  @ApiErrors(400, 404, 409)
  update(@Param('id') id: string, @Body() body: UpdatePolicyDto): Promise<PolicyDto> {
    return this.policies.update(this.context.identity, id, body);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a policy (admin); its revisions are kept.' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: DeletedPolicyDto })
  @ApiErrors(404)
  remove(@Param('id') id: string): Promise<DeletedPolicyDto> {
    return this.policies.remove(this.context.identity, id);
  }
}
