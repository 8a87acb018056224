import { HttpStatus, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { Clock } from '../../common/clock';
import { formatViolations, JsonSchemaValidator, SchemaViolation, schemaProblems } from '../../common/json-schema';
import { ListPage } from '../../common/list.dto';
import type { Identity } from '../../tenancy/request-context';
import { AppConfig } from '../../config/app-config';
import { mcpToolSchema } from '../mcp-tool-schema';
import type { ToolSource } from './catalog.types';
import { newCatalogEntry } from './catalog-entry';
import { CatalogState } from './catalog-state';
import { canonical, contentHash } from './content-hash';
import { OfferedContent, oversizedField } from './content-limits';
import { effectiveEntries } from './effective-tools';
import { impersonationPeers } from './impersonation-peers';
import { SYSTEM_REVIEWER, ToolReviewService } from './tool-review.service';
import { presentTool } from './tool.presenter';
import { ToolEntity } from './tool.entity';
import { ToolRepository } from './tool.repository';
import { BundlesService } from './bundles.service';
import type { AutoReviewDto, CreateToolDto, ListToolsQueryDto, ToolDto, UpdateToolDto } from './tools.dto';

/** Fields of built-in entries that operators may change; the rest comes from the provider. */
const BUILTIN_MUTABLE = ['tenant_access', 'audit_level', 'rate_limit'] as const;
/** Governance fields only admins may change. */
const ADMIN_ONLY = ['tenant_access', 'audit_level', 'rate_limit', 'output_scan', 'argument_scan'] as const;

@Injectable()
export class ToolsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tools: ToolRepository,
    private readonly bundles: BundlesService,
    private readonly state: CatalogState,
    private readonly reviews: ToolReviewService,
    private readonly schemas: JsonSchemaValidator,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(caller: Identity, input: CreateToolDto): Promise<ToolDto> {
    if (caller.role !== 'admin') {
      const refused = governanceFieldsIn(input)[0];
      if (refused) throw adminRequired(`Only admins may set ${refused}`, refused);
      if (input.security_status && input.security_status !== 'unreviewed')
        throw adminRequired('Only admins may set security_status; new tools start unreviewed', 'security_status');
    }
    const source = checkedSource(input.source);
    this.checkSize(input);
    const entity = newCatalogEntry({
      name: input.name,
      description: input.description,
      source,
      schema: this.checkedSchema(input.schema),
      permissions: input.permissions,
      tags: input.tags,
      tenantAccess: input.tenant_access,
      auditLevel: input.audit_level,
      outputScan: input.output_scan,
      argumentScan: input.argument_scan,
      rateLimit: input.rate_limit,
      ownerTenantId: caller.tenantId,
      now: this.clock.now(),
    });
    this.reviews.assess(entity, await this.peersOf(entity));
    const requested = input.security_status ?? 'unreviewed';
    if (requested !== 'unreviewed' && requested !== 'blocked' && this.reviews.requiresHumanReview(entity)) {
      throw ApiError.conflict(
        `The automated review scored this tool ${entity.autoReview.score}, below catalog.mandatory_review_threshold: create it unreviewed and review it (POST /v1/tools/{id}/review). Flags: ${entity.autoReview.flags.join('; ')}`,
        'review_required',
        'security_status',
      );
    }
    await this.dataSource.transaction(async (manager) => {
      await this.tools.save(entity, manager).catch((error: { code?: string; driverError?: { code?: string } }) => {
        if ((error.driverError?.code ?? error.code) === '23505')
          throw ApiError.conflict(`A tool named '${input.name}' already exists`, 'name_taken', 'name');
        throw error;
      });
      if (requested !== 'unreviewed') {
        await this.reviews.decide(manager, entity, requested, caller.subject, 'set at registration by an admin');
      } else {
        await this.reviews.autoApproveIfQualified(manager, entity);
      }
    });
    await this.state.changed();
    this.reviews.reviewPending();
    return presentTool(entity, caller);
  }

  /** Admins see every entry; a member sees its effective tools plus the entries its tenant registered. */
  async list(caller: Identity, query: ListToolsQueryDto): Promise<ListPage<ToolDto>> {
    const visibleTo =
      caller.role === 'admin'
        ? undefined
        : {
            tenantId: caller.tenantId,
            toolIds: effectiveEntries(await this.state.get(), caller).map((tool) => tool.id),
          };
    const filter = {
      visibleTo,
      type: query.type,
      tag: query.tag,
      securityStatus: query.security_status,
      text: query.q,
    };
    return this.tools.page(filter, query, (tool) => presentTool(tool, caller));
  }

  async get(caller: Identity, id: string): Promise<ToolDto> {
    return presentTool(await this.visible(caller, id), caller);
  }

  async autoReview(caller: Identity, id: string): Promise<AutoReviewDto> {
    return this.reviews.presentAutoReview(await this.visible(caller, id));
  }

  /**
   * Mutable fields only. Changing the description, schema or permissions of a reviewed or approved tool sends
   * it back to review with `pending_change` (old and new): the approved version is pinned by the hash of what
   * the reviewer saw.
   */
  async update(caller: Identity, id: string, input: UpdateToolDto): Promise<ToolDto> {
    if (input.source !== undefined)
      throw ApiError.invalid('source cannot be changed; register a new tool instead', 'source', 'immutable_field');
    if (input.security_status !== undefined) {
      throw ApiError.invalid(
        'security_status changes through POST /v1/tools/{id}/review',
        'security_status',
        'immutable_field',
      );
    }
    // Read before the transaction: the catalog snapshot may load from the database.
    const catalog = (await this.state.get()).toolsByName;
    const entity = await this.dataSource.transaction(async (manager) => {
      const tool = await this.tools.lockById(manager, id);
      if (!tool || !(await this.canSee(caller, tool))) throw ApiError.notFound('tool', id, 'id');
      this.checkUpdateRights(caller, tool, input);
      this.checkSize(input);
      const schema = input.schema && this.checkedSchema(input.schema);
      const before = reviewedFieldsOf(tool);
      const now = this.clock.now();
      Object.assign(tool, {
        ...(input.description !== undefined && { description: input.description }),
        ...(schema !== undefined && { schema }),
        ...(input.permissions !== undefined && { permissions: input.permissions }),
        ...(input.tags !== undefined && { tags: input.tags }),
        ...(input.tenant_access !== undefined && { tenantAccess: input.tenant_access }),
        ...(input.audit_level !== undefined && { auditLevel: input.audit_level }),
        ...(input.output_scan !== undefined && { outputScan: input.output_scan }),
        ...(input.argument_scan !== undefined && { argumentScan: input.argument_scan }),
        ...(input.rate_limit !== undefined && { rateLimit: input.rate_limit }),
        updatedAt: now,
      });
      const after = reviewedFieldsOf(tool);
      const changedFields = Object.keys(after).filter((field) => canonical(before[field]) !== canonical(after[field]));
      if (changedFields.length > 0) this.reviews.assess(tool, impersonationPeers(tool, catalog.values()));
      await this.tools.save(tool, manager);
      const pinned = tool.securityStatus === 'reviewed' || tool.securityStatus === 'approved';
      // Permissions are part of what a reviewer approved: widening them is a change like a new schema.
      if (changedFields.length > 0 && ((pinned && contentHash(tool) !== tool.reviewedHash) || tool.pendingChange)) {
        if (tool.securityStatus !== 'blocked')
          await this.reviews.decide(
            manager,
            tool,
            'unreviewed',
            SYSTEM_REVIEWER,
            `${changedFields.join(', ')} changed after review`,
          );
        const old = tool.pendingChange?.old ?? before;
        tool.pendingChange = {
          detected_at: now.toISOString(),
          fields: Object.keys(after).filter((field) => canonical(old[field]) !== canonical(after[field])),
          old,
          new: after,
        };
        await this.tools.save(tool, manager);
      }
      return tool;
    });
    await this.state.changed();
    this.reviews.reviewPending();
    return presentTool(entity, caller);
  }

  /** Admins only. Built-in entries belong to their provider and are switched off in config instead. */
  async remove(id: string): Promise<{ id: string; object: 'tool.deleted'; deleted: true }> {
    const tool = await this.tools.byId(id);
    if (!tool) throw ApiError.notFound('tool', id, 'id');
    if (tool.source.type === 'builtin') {
      throw ApiError.conflict(
        `'${tool.name}' is a built-in tool: disable its provider in config (builtins.${tool.source.provider}.enabled: false)`,
        'builtin_tool',
        'id',
      );
    }
    await this.dataSource.transaction(async (manager) => {
      await this.bundles.removeToolEverywhere(manager, id, this.clock.now());
      await this.tools.delete(manager, id);
    });
    await this.state.changed();
    return { id, object: 'tool.deleted', deleted: true };
  }

  /** The entry if the caller may see it; otherwise 404, so ids of other tenants' tools do not leak. */
  async visible(caller: Identity, id: string): Promise<ToolEntity> {
    const tool = await this.tools.byId(id);
    if (!tool || !(await this.canSee(caller, tool))) throw ApiError.notFound('tool', id, 'id');
    return tool;
  }

  private async canSee(caller: Identity, tool: ToolEntity): Promise<boolean> {
    if (caller.role === 'admin' || tool.ownerTenantId === caller.tenantId) return true;
    return effectiveEntries(await this.state.get(), caller).some((entry) => entry.id === tool.id);
  }

  private checkUpdateRights(caller: Identity, tool: ToolEntity, input: UpdateToolDto): void {
    const given = Object.entries(input)
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key);
    if (tool.source.type === 'builtin') {
      const refused = given.find((key) => !(BUILTIN_MUTABLE as readonly string[]).includes(key));
      if (refused)
        throw ApiError.invalid(
          `${refused} of a built-in tool comes from its provider; only ${BUILTIN_MUTABLE.join(', ')} can be changed`,
          refused,
          'immutable_field',
        );
    }
    if (caller.role !== 'admin') {
      const refused = governanceFieldsIn(input)[0];
      if (refused) throw adminRequired(`Only admins may change ${refused}`, refused);
      if (tool.ownerTenantId !== caller.tenantId)
        throw ApiError.forbidden('Only admins or the registering tenant may change this tool', 'admin_required');
    }
  }

  private checkSize(content: OfferedContent): void {
    const oversized = oversizedField(content, this.config.catalog);
    if (oversized) throw ApiError.invalid(oversized.message, oversized.param, 'too_large');
  }

  /** The schema as stored (in MCP's shape), or 400 invalid_schema with `param` naming the keyword. */
  private checkedSchema(schema: Record<string, unknown>): Record<string, unknown> {
    const refuse = (problem: SchemaViolation, why: string) =>
      ApiError.invalid(
        `schema ${why}: ${formatViolations([problem])}`,
        `schema${problem.path.slice(1)}`,
        'invalid_schema',
      );
    // A pattern that cannot run in linear time, or nesting too deep.
    const unsafe = schemaProblems(schema)[0];
    if (unsafe) throw refuse(unsafe, 'is refused');
    const shaped = mcpToolSchema(schema);
    if ('problem' in shaped) throw refuse(shaped.problem, 'is not a valid MCP tool input schema');
    const violations = this.schemas.checkSchema(shaped.schema);
    if (violations.length > 0)
      throw ApiError.invalid(
        `schema is not a valid JSON Schema: ${formatViolations(violations)}`,
        'schema',
        'invalid_schema',
      );
    return shaped.schema;
  }

  private async peersOf(tool: ToolEntity): Promise<string[]> {
    return impersonationPeers(tool, (await this.state.get()).toolsByName.values());
  }
}

/** What a review approves of a registered tool, in the API's field names (a pending change shows these). */
function reviewedFieldsOf(tool: ToolEntity): Record<string, unknown> {
  return { description: tool.description, schema: tool.schema, permissions: [...tool.permissions] };
}

/** The governance fields a request sets: on create as on update, only admins may set them. */
function governanceFieldsIn(input: CreateToolDto | UpdateToolDto): string[] {
  return ADMIN_ONLY.filter((field) => input[field] !== undefined);
}

function adminRequired(message: string, field: string): ApiError {
  return new ApiError(HttpStatus.FORBIDDEN, 'permission_error', message, 'admin_required', field);
}

/** The source fields each registrable type takes; another type's field is refused rather than stored unused. */
const SOURCE_FIELDS: Record<string, string[]> = {
  mcp: ['server_url', 'server_name', 'tool_name', 'credential_key'],
  sandbox: ['template', 'entrypoint', 'credential_key'],
  function: ['credential_key'],
};

/** Each source type has the fields it needs; built-in entries come only from providers. */
function checkedSource(source: CreateToolDto['source']): ToolSource {
  const stray = Object.keys(source).find(
    (field) =>
      field !== 'type' &&
      source[field as keyof typeof source] !== undefined &&
      !SOURCE_FIELDS[source.type]?.includes(field),
  );
  if (stray && source.type !== 'builtin')
    throw ApiError.invalid(
      `${stray} is not a field of a ${source.type} source (it takes ${SOURCE_FIELDS[source.type].join(', ')})`,
      `source.${stray}`,
      'invalid_source',
    );
  switch (source.type) {
    case 'builtin':
      throw ApiError.invalid(
        'builtin tools come from enabled providers and cannot be registered',
        'source.type',
        'invalid_source',
      );
    case 'mcp':
      if (!source.tool_name || !(source.server_name || source.server_url)) {
        throw ApiError.invalid(
          'an mcp source needs tool_name and server_name or server_url',
          'source',
          'invalid_source',
        );
      }
      break;
    case 'sandbox':
      if (!source.template || !source.entrypoint)
        throw ApiError.invalid('a sandbox source needs template and entrypoint', 'source', 'invalid_source');
      break;
    case 'function':
      break;
  }
  return source as ToolSource;
}
