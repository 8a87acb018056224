import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Database } from '../database/database';
import type { ListPage, ListQueryDto } from '../common/list.dto';
import { ResponseItemEntity } from './response-item.entity';
import type { ConversationItem, Item, ResponseObject } from './response-object';
import type { ResponseRequest } from './response-request';
import { ResponseEntity } from './response.entity';

/** Longest `previous_response_id` chain followed, and the most items it may bring back. */
const MAX_CHAIN = 1000;
const MAX_HISTORY_ITEMS = 20_000;

/**
 * The `responses` and `response_items` tables (items live and die with their response). Every query a
 * request makes names the tenant; only the lease renewal and the sweeper, which act for the service, do not.
 * Leases run on the database's clock, the one clock all replicas share, so that one replica's skew cannot
 * expire another's lease; every other time comes from the caller.
 */
@Injectable()
export class ResponsesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly database: Database,
  ) {}

  /**
   * A new response (in progress or queued) with its input items, created `now`; `leaseOwner` holds it for
   * `leaseMs`. One statement: the response and its items are written together or not at all.
   */
  async create(
    tenantId: string,
    response: ResponseObject,
    input: ConversationItem[],
    request: ResponseRequest | null,
    leaseOwner: string | null,
    leaseMs: number,
    now: Date,
  ): Promise<void> {
    await this.database.prepared(
      'responses_create',
      `WITH response AS (
         INSERT INTO responses (id, tenant_id, status, previous_response_id, background, body, request,
                                cancel_requested, lease_owner, lease_expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, false, $8::varchar,
                 CASE WHEN $8::varchar IS NULL THEN NULL ELSE now() + $9 * interval '1 millisecond' END, $10, $10)
         RETURNING id)
       ${insertItems('input', 11)}`,
      [
        response.id,
        tenantId,
        response.status,
        response.previous_response_id,
        response.background,
        JSON.stringify(response),
        request === null ? null : JSON.stringify(request),
        leaseOwner,
        leaseMs,
        now,
        ...itemColumns(tenantId, input, now),
      ],
    );
  }

  /**
   * Writes the finished response and its output items, unless it already ended (a background response
   * cancelled meanwhile keeps `cancelled`), in one statement. Answers whether it was written.
   */
  async finish(tenantId: string, response: ResponseObject, output: ConversationItem[], now: Date): Promise<boolean> {
    const [{ finished }] = await this.database.prepared<{ finished: number }>(
      'responses_finish',
      `WITH response AS (
         UPDATE responses SET status = $3, body = $4::jsonb, lease_owner = NULL, lease_expires_at = NULL, updated_at = $5
          WHERE id = $1 AND tenant_id = $2 AND status IN ('queued', 'in_progress')
         RETURNING id),
       items AS (${insertItems('output', 6)})
       SELECT count(*)::int AS finished FROM response`,
      [response.id, tenantId, response.status, JSON.stringify(response), now, ...itemColumns(tenantId, output, now)],
    );
    return finished > 0;
  }

  /** A queued background response starts running. */
  async markInProgress(tenantId: string, id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE responses SET status = 'in_progress', body = body || jsonb_build_object('status', 'in_progress'), updated_at = $3
       WHERE id = $1 AND tenant_id = $2 AND status = 'queued'`,
      [id, tenantId, now],
    );
  }

  /**
   * Marks a queued or running response cancelled (and asks its runner to stop); answers the cancelled body,
   * or undefined when it had already ended.
   */
  async cancel(tenantId: string, id: string, now: Date): Promise<ResponseObject | undefined> {
    const [rows] = (await this.dataSource.query(
      `UPDATE responses
       SET status = 'cancelled', cancel_requested = true, lease_owner = NULL, lease_expires_at = NULL, updated_at = $3,
           body = body || jsonb_build_object('status', 'cancelled')
       WHERE id = $1 AND tenant_id = $2 AND status IN ('queued', 'in_progress')
       RETURNING body`,
      [id, tenantId, now],
    )) as [{ body: ResponseObject }[], number];
    return rows[0]?.body;
  }

  /**
   * Extends the lease `owner` holds on a running response; answers false when the lease is lost (the
   * response ended, or another replica swept it) or a cancel was requested.
   */
  async renewLease(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const [rows] = (await this.dataSource.query(
      `UPDATE responses SET lease_expires_at = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND lease_owner = $2 AND status IN ('queued', 'in_progress')
       RETURNING cancel_requested`,
      [id, owner, leaseMs],
    )) as [{ cancel_requested: boolean }[], number];
    return rows.length > 0 && !rows[0].cancel_requested;
  }

  /**
   * Ends as failed, with this error, up to 100 running responses whose lease ran out; answers their ids.
   * SKIP LOCKED lets replicas sweep side by side.
   */
  async failExpired(error: { code: string; message: string }, now: Date): Promise<string[]> {
    const [rows] = (await this.dataSource.query(
      `UPDATE responses r
       SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = $3,
           body = r.body || jsonb_build_object('status', 'failed', 'error', jsonb_build_object(
             'code', $1::text, 'message', $2::text))
       FROM (
         SELECT id FROM responses
         WHERE status IN ('queued', 'in_progress') AND lease_expires_at < now()
         LIMIT 100
         FOR UPDATE SKIP LOCKED
       ) expired
       WHERE r.id = expired.id
       RETURNING r.id`,
      [error.code, error.message, now],
    )) as [{ id: string }[], number];
    return rows.map((row) => row.id);
  }

  async get(tenantId: string, id: string): Promise<ResponseEntity> {
    const row = await this.dataSource.getRepository(ResponseEntity).findOneBy({ id, tenantId });
    if (!row) throw ApiError.notFound('response', id);
    return row;
  }

  async delete(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ResponseEntity).delete({ id, tenantId });
    if (!result.affected) throw ApiError.notFound('response', id);
  }

  /** A page of a response's input items, by position (OpenAI's default order: newest first). */
  async inputItems(tenantId: string, id: string, query: ListQueryDto): Promise<ListPage<Item>> {
    await this.get(tenantId, id);
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    if (query.after && query.before) throw ApiError.invalid('Use either after or before, not both', 'before');
    const items = this.dataSource.getRepository(ResponseItemEntity);
    const cursorId = query.after ?? query.before;
    const forward = query.before === undefined;
    const direction = (order === 'desc') === forward ? 'DESC' : 'ASC';
    const builder = items
      .createQueryBuilder('i')
      .where('i.tenant_id = :tenantId AND i.response_id = :id AND i.direction = :direction', {
        tenantId,
        id,
        direction: 'input',
      });
    if (cursorId) {
      const cursor = await builder.clone().andWhere('i.id = :cursorId', { cursorId }).getOne();
      if (!cursor) {
        throw ApiError.invalid(
          `No input item found with id '${cursorId}' to page from`,
          query.after ? 'after' : 'before',
        );
      }
      builder.andWhere(`i.position ${direction === 'DESC' ? '<' : '>'} :position`, { position: cursor.position });
    }
    const rows = await builder
      .orderBy('i.position', direction)
      .take(limit + 1)
      .getMany();
    const page = rows.slice(0, limit);
    if (!forward) page.reverse();
    return {
      object: 'list',
      data: page.map((row) => row.item),
      first_id: page[0]?.id ?? null,
      last_id: page[page.length - 1]?.id ?? null,
      has_more: rows.length > limit,
    };
  }

  /**
   * The conversation up to and including response `id`: the input and output items of every response in its
   * `previous_response_id` chain, oldest first. Unknown (or another tenant's) ids are a 404.
   */
  async history(tenantId: string, id: string): Promise<ConversationItem[]> {
    const rows: { item: Item; tool_name: string | null; tool_output: string | null }[] = await this.dataSource.query(
      `WITH RECURSIVE chain (id, previous, depth) AS (
         SELECT id, previous_response_id, 0 FROM responses WHERE id = $1 AND tenant_id = $2
         UNION ALL
         SELECT r.id, r.previous_response_id, c.depth + 1
         FROM chain c JOIN responses r ON r.id = c.previous AND r.tenant_id = $2
         WHERE c.depth < $3
       )
       SELECT i.item, i.tool_name, i.tool_output
       FROM chain c JOIN response_items i ON i.response_id = c.id AND i.tenant_id = $2
       ORDER BY c.depth DESC, i.direction ASC, i.position ASC
       LIMIT $4`,
      [id, tenantId, MAX_CHAIN, MAX_HISTORY_ITEMS + 1],
    );
    if (rows.length > MAX_HISTORY_ITEMS) {
      throw ApiError.invalid(
        `The conversation of '${id}' holds more than ${MAX_HISTORY_ITEMS} items; start a new one`,
        'previous_response_id',
      );
    }
    if (rows.length === 0) await this.requireResponse(tenantId, id);
    return rows.map((row) => ({
      item: row.item,
      ...(row.tool_name !== null && { toolName: row.tool_name }),
      ...(row.tool_output !== null && { toolOutput: row.tool_output }),
    }));
  }

  private async requireResponse(tenantId: string, id: string): Promise<void> {
    const exists = await this.dataSource.getRepository(ResponseEntity).existsBy({ id, tenantId });
    if (!exists) {
      throw new ApiError(
        404,
        'not_found_error',
        `Previous response with id '${id}' not found.`,
        'previous_response_not_found',
        'previous_response_id',
      );
    }
  }
}

/**
 * Inserts a response's items, whatever their number, in the statement that writes the response: its WITH item
 * `response` answers the response's id (no id, no items), and the items' columns are the five arrays of
 * itemColumns from parameter `$first`, followed by the tenant and the time.
 */
function insertItems(direction: 'input' | 'output', first: number): string {
  const $ = (offset: number) => `$${first + offset}`;
  return `INSERT INTO response_items (response_id, direction, position, id, tenant_id, item, tool_name, tool_output,
                                      created_at)
          SELECT response.id, '${direction}', i.position, i.id, ${$(5)}, i.item::jsonb, i.tool_name, i.tool_output,
                 ${$(6)}
            FROM response,
                 unnest(${$(0)}::int[], ${$(1)}::varchar[], ${$(2)}::text[], ${$(3)}::varchar[], ${$(4)}::text[])
                   AS i(position, id, item, tool_name, tool_output)`;
}

/** The parameters of insertItems: the items' columns as arrays, then the tenant and the time. */
function itemColumns(tenantId: string, items: ConversationItem[], now: Date): unknown[] {
  return [
    items.map((_, position) => position),
    items.map((entry) => entry.item.id),
    items.map((entry) => JSON.stringify(entry.item)),
    items.map((entry) => entry.toolName ?? null),
    items.map((entry) => entry.toolOutput ?? null),
    tenantId,
    now,
  ];
}
