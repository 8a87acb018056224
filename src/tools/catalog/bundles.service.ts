import { Injectable } from '@nestjs/common';
import { DataSource, In, Repository } from 'typeorm';
import { ApiError } from '../../common/api-error';
import { newId } from '../../common/ids';
import { ListPage, ListQueryDto } from '../../common/list.dto';
import { paginate } from '../../common/paginate';
import { BundleAssignmentEntity, BundleEntity } from './bundle.entity';
import type { AssignBundleDto, BundleDto, CreateBundleDto, UpdateBundleDto } from './bundles.dto';
import { CatalogState } from './catalog-state';
import { ToolEntity } from './tool.entity';

/** Tool bundles: named tool collections assigned to tenants or to agent profiles of a tenant. */
@Injectable()
export class BundlesService {
  private readonly bundles: Repository<BundleEntity>;
  private readonly assignments: Repository<BundleAssignmentEntity>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly state: CatalogState,
  ) {
    this.bundles = dataSource.getRepository(BundleEntity);
    this.assignments = dataSource.getRepository(BundleAssignmentEntity);
  }

  async create(input: CreateBundleDto): Promise<BundleDto> {
    const tools = await this.checkedTools(input.tools);
    const now = new Date();
    const bundle = this.bundles.create({
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
    const page = await paginate(this.bundles.createQueryBuilder('bundle'), query, (bundle) => bundle);
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
    bundle.updatedAt = new Date();
    await this.bundles.save(bundle);
    await this.state.changed();
    return this.present(bundle);
  }

  async remove(id: string): Promise<{ id: string; object: 'tool_bundle.deleted'; deleted: true }> {
    await this.find(id);
    await this.bundles.delete({ id });
    await this.state.changed();
    return { id, object: 'tool_bundle.deleted', deleted: true };
  }

  /** Idempotent: assigning twice leaves one assignment. */
  async assign(id: string, input: AssignBundleDto): Promise<BundleDto> {
    const bundle = await this.find(id);
    await this.assignments
      .createQueryBuilder()
      .insert()
      .values({
        bundleId: id,
        tenantId: input.tenant_id,
        agentProfile: input.agent_profile ?? '',
        createdAt: new Date(),
      })
      .orIgnore()
      .execute();
    await this.state.changed();
    return this.present(bundle);
  }

  async unassign(id: string, input: AssignBundleDto): Promise<BundleDto> {
    const bundle = await this.find(id);
    const result = await this.assignments.delete({
      bundleId: id,
      tenantId: input.tenant_id,
      agentProfile: input.agent_profile ?? '',
    });
    if (!result.affected) {
      const whom = input.agent_profile
        ? `agent profile '${input.agent_profile}' of tenant '${input.tenant_id}'`
        : `tenant '${input.tenant_id}'`;
      throw ApiError.notFound(`assignment of this bundle to ${whom}`, id, 'tenant_id');
    }
    await this.state.changed();
    return this.present(bundle);
  }

  private async find(id: string): Promise<BundleEntity> {
    const bundle = await this.bundles.findOneBy({ id });
    if (!bundle) throw ApiError.notFound('bundle', id, 'id');
    return bundle;
  }

  /** Every id must name a catalog tool; duplicates are dropped, order kept. */
  private async checkedTools(ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const found = new Set(
      (await this.dataSource.getRepository(ToolEntity).findBy({ id: In(unique) })).map((tool) => tool.id),
    );
    const index = ids.findIndex((id) => !found.has(id));
    if (index >= 0) throw ApiError.invalid(`No tool found with id '${ids[index]}'`, `tools[${index}]`, 'unknown_tool');
    return unique;
  }

  private async present(bundle: BundleEntity): Promise<BundleDto> {
    const [tools, assignments] = await Promise.all([
      bundle.toolIds.length ? this.dataSource.getRepository(ToolEntity).findBy({ id: In(bundle.toolIds) }) : [],
      this.assignments.find({ where: { bundleId: bundle.id }, order: { tenantId: 'ASC', agentProfile: 'ASC' } }),
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
