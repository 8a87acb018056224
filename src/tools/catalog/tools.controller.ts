import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Admin, Authenticated } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ListQueryDto } from '../../common/list.dto';
import { RequestContext } from '../../tenancy/request-context';
import { UsageQueryDto, UsageDto } from './audit/audit.dto';
import { UsageService } from './audit/usage.service';
import { ToolReviewService } from './tool-review.service';
import {
  AutoReviewDto,
  CreateToolDto,
  ListToolsQueryDto,
  ReviewToolDto,
  ToolDto,
  ToolListDto,
  ToolReviewDto,
  UpdateToolDto,
} from './tools.dto';
import { ToolsService } from './tools.service';

const ISSUES_SCHEMA = {
  type: 'object',
  properties: { owner: { type: 'string', maxLength: 100 }, repo: { type: 'string', maxLength: 100 } },
  required: ['owner', 'repo'],
};

const TOOL_EXAMPLES = {
  mcp: {
    name: 'github-list-issues',
    description: 'List issues in a GitHub repository, filtered by state, labels, and assignee.',
    source: { type: 'mcp', server_name: 'github-mcp', tool_name: 'list_issues', credential_key: 'github_token' },
    schema: ISSUES_SCHEMA,
    permissions: ['network_external'],
    tags: ['development', 'github'],
    tenant_access: { mode: 'all' },
    audit_level: 'basic',
    output_scan: 'block',
    rate_limit: { per_minute: 30, per_hour: 500 },
  },
  sandbox: {
    name: 'csv-summary',
    description: 'Summarize a CSV table: row count, column names and the mean of each numeric column.',
    source: { type: 'sandbox', template: 'python', entrypoint: '/usr/bin/python3 /template/csv_summary.py' },
    schema: {
      type: 'object',
      properties: { csv: { type: 'string', maxLength: 100_000 } },
      required: ['csv'],
      additionalProperties: false,
    },
    tags: ['data'],
  },
  function: {
    name: 'create-ticket',
    description: 'Open a support ticket; the calling agent runs it and reports the result.',
    source: { type: 'function' },
    schema: {
      type: 'object',
      properties: { title: { type: 'string', maxLength: 200 } },
      required: ['title'],
      additionalProperties: false,
    },
    tags: ['support'],
  },
};

@ApiTags('Tool catalog')
@Authenticated()
@Controller('v1/tools')
export class ToolsController {
  constructor(
    private readonly tools: ToolsService,
    private readonly reviews: ToolReviewService,
    private readonly usageStats: UsageService,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Register a tool',
    description:
      'Any authenticated caller. New tools start unreviewed (admins may set security_status). The governance fields tenant_access, audit_level and rate_limit are for admins only, as on update: a member setting one gets 403 admin_required naming it. The automated review runs at once.',
  })
  // Each source type has its own fields: one example per type rather than one body with all of them.
  @ApiBody({
    type: CreateToolDto,
    examples: {
      mcp: { value: TOOL_EXAMPLES.mcp },
      sandbox: { value: TOOL_EXAMPLES.sandbox },
      function: { value: TOOL_EXAMPLES.function },
    },
  })
  @ApiCreatedResponse({ type: ToolDto })
  @ApiErrors(400, 403, 409)
  create(@Body() body: CreateToolDto): Promise<ToolDto> {
    return this.tools.create(this.context.identity, body);
  }

  @Get()
  @ApiOperation({
    summary: 'List tools',
    description:
      "Admins see every entry; members see the approved tools of their effective set plus their tenant's own entries.",
  })
  @ApiOkResponse({ type: ToolListDto })
  @ApiErrors(400)
  list(@Query() query: ListToolsQueryDto) {
    return this.tools.list(this.context.identity, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a tool' })
  @ApiOkResponse({ type: ToolDto })
  @ApiErrors(404)
  get(@Param('id') id: string): Promise<ToolDto> {
    return this.tools.get(this.context.identity, id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a tool',
    description:
      'Mutable fields only (description, schema, permissions, tags, tenant_access, audit_level, rate_limit; the last three for admins only). Changing the description or schema of a reviewed or approved tool sends it back to unreviewed.',
  })
  @ApiOkResponse({ type: ToolDto })
  @ApiErrors(400, 403, 404)
  update(@Param('id') id: string, @Body() body: UpdateToolDto): Promise<ToolDto> {
    return this.tools.update(this.context.identity, id, body);
  }

  @Delete(':id')
  @Admin()
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a tool (admin). Built-in tools cannot be deleted.' })
  @ApiErrors(404, 409)
  remove(@Param('id') id: string) {
    return this.tools.remove(id);
  }

  @Post(':id/review')
  @Admin()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Record a review decision (admin)',
    description:
      'unreviewed -> reviewed -> approved | blocked, approved -> blocked, blocked -> approved; any state -> blocked. Others answer 409.',
  })
  // The first step of a new tool: approving needs `reviewed` first, and a definition_hash must be the tool's own.
  @ApiBody({
    type: ReviewToolDto,
    examples: { reviewed: { value: { decision: 'reviewed', notes: 'Only reads issue data.' } } },
  })
  @ApiOkResponse({ type: ToolDto })
  @ApiErrors(400, 404, 409)
  review(@Param('id') id: string, @Body() body: ReviewToolDto): Promise<ToolDto> {
    return this.reviews.review(this.context.identity, id, body);
  }

  @Get(':id/reviews')
  @ApiOperation({ summary: 'Every review decision of a tool, oldest first' })
  @ApiOkResponse({ type: [ToolReviewDto] })
  @ApiErrors(404)
  async reviewHistory(@Param('id') id: string, @Query() query: ListQueryDto) {
    await this.tools.visible(this.context.identity, id);
    return this.reviews.reviews(id, query);
  }

  @Get(':id/usage')
  @ApiOperation({
    summary: 'Usage statistics of a tool',
    description: "Computed from the audit trail. Members get their own tenant's figures only.",
  })
  @ApiOkResponse({ type: UsageDto })
  @ApiErrors(400, 404)
  async usage(@Param('id') id: string, @Query() query: UsageQueryDto): Promise<UsageDto> {
    await this.tools.visible(this.context.identity, id);
    return this.usageStats.usage(this.context.identity, id, query.period);
  }

  @Get(':id/auto_review')
  @ApiOperation({ summary: 'The automated security review: score, flags, suggestions' })
  @ApiOkResponse({ type: AutoReviewDto })
  @ApiErrors(404)
  autoReview(@Param('id') id: string): Promise<AutoReviewDto> {
    return this.tools.autoReview(this.context.identity, id);
  }
}
