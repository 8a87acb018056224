import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { BundleEntity } from './bundle.entity';
import { BundleRepository } from './bundle.repository';
import type { AssignBundleDto, BundleDto, CreateBundleDto, UpdateBundleDto } from './bundles.dto';
import { CatalogState } from './catalog-state';
import { ToolEntity } from './tool.entity';
import { ToolRepository } from './tool.repository';

/** Tool bundles: named tool collections assigned to tenants or to agent profiles of a tenant. */
@Injectable()
export class BundlesService {
  constructor(
    private readonly bundles: BundleRepository,
    private readonly tools: ToolRepository,
    private readonly state: CatalogState,
    private readonly clock: Clock,
  ) {}

  async create(input: CreateBundleDto): Promise<BundleDto> {
    const tools = await this.checkedTools(input.tools);
    const now = this.clock.now();
    const bundle = Object.assign(new BundleEntity(), {
      id: newId('bundle_'),
      name: input.name,
      description: input.description ?? '',
      toolIds: tools,
      tags: input.tags ?? [],
      createdAt: now,
      updatedAt: now,
    });
    await this.bundles.save(bundle);
    await this.state.changed();
    return this.present(bundle);
  }

  async list(query: ListQueryDto): Promise<ListPage<BundleDto>> {
    const page = await this.bundles.page(query);
    return { ...page, data: await Promise.all(page.data.map((bundle) => this.present(bundle))) };
  }

  async get(id: string): Promise<BundleDto> {
    return this.present(await this.find(id));
  }

  async update(id: string, input: UpdateBundleDto): Promise<BundleDto> {
    const bundle = await this.find(id);
    if (input.tools !== undefined) bundle.toolIds = await this.checkedTools(input.tools);
    if (input.name !== undefined) bundle.name = input.name;
    if (input.description !== undefined) bundle.description = input.description;
    if (input.tags !== undefined) bundle.tags = input.tags;
    bundle.updatedAt = this.clock.now();
    await this.bundles.save(bundle);
    await this.state.changed();
    return this.present(bundle);
  }

  async remove(id: string): Promise<{ id: string; object: 'tool_bundle.deleted'; deleted: true }> {
    await this.find(id);
    await this.bundles.delete(id);
    await this.state.changed();
    return { id, object: 'tool_bundle.deleted', deleted: true };
  }

  /** Idempotent: assigning twice leaves one assignment. */
  async assign(id: string, input: AssignBundleDto): Promise<BundleDto> {
    const bundle = await this.find(id);
    await this.bundles.assign(
      { bundleId: id, tenantId: input.tenant_id, agentProfile: input.agent_profile ?? '' },
      this.clock.now(),
    );
    await this.state.changed();
    return this.present(bundle);
  }

  async unassign(id: string, input: AssignBundleDto): Promise<BundleDto> {
    const bundle = await this.find(id);
    const removed = await this.bundles.unassign({
      bundleId: id,
      tenantId: input.tenant_id,
      agentProfile: input.agent_profile ?? '',
    });
    if (!removed) {
      const whom = input.agent_profile
        ? `agent profile '${input.agent_profile}' of tenant '${input.tenant_id}'`
        : `tenant '${input.tenant_id}'`;
      throw ApiError.notFound(`assignment of this bundle to ${whom}`, id, 'tenant_id');
    }
    await this.state.changed();
    return this.present(bundle);
  }

  /** Takes a tool being deleted out of every bundle, in the transaction that deletes it. */
  async removeToolEverywhere(manager: EntityManager, toolId: string, now: Date): Promise<void> {
    await this.bundles.removeToolEverywhere(manager, toolId, now);
  }

  private async find(id: string): Promise<BundleEntity> {
    const bundle = await this.bundles.byId(id);
    if (!bundle) throw ApiError.notFound('bundle', id, 'id');
    return bundle;
  }

  /** Every id must name a catalog tool; duplicates are dropped, order kept. */
  private async checkedTools(ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const found = new Set((await this.tools.byIds(unique)).map((tool) => tool.id));
    const index = ids.findIndex((id) => !found.has(id));
    if (index >= 0) throw ApiError.invalid(`No tool found with id '${ids[index]}'`, `tools[${index}]`, 'unknown_tool');
    return unique;
  }

  private async present(bundle: BundleEntity): Promise<BundleDto> {
    const [tools, assignments] = await Promise.all([
      this.tools.byIds(bundle.toolIds),
      this.bundles.assignmentsOf(bundle.id),
    ]);
    const byId = new Map(tools.map((tool) => [tool.id, tool]));
    return {
      id: bundle.id,
      object: 'tool_bundle',
      name: bundle.name,
      description: bundle.description,
      tools: bundle.toolIds,
      resolved_tools: bundle.toolIds
        .map((id) => byId.get(id))
        .filter((tool): tool is ToolEntity => tool !== undefined)
        .map((tool) => ({ id: tool.id, name: tool.name, security_status: tool.securityStatus, stale: tool.stale })),
      tags: bundle.tags,
      assignments: assignments.map((a) => ({ tenant_id: a.tenantId, agent_profile: a.agentProfile || null })),
      created_at: bundle.createdAt.toISOString(),
      updated_at: bundle.updatedAt.toISOString(),
    };
  }
}
