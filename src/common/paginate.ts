import { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ApiError } from './api-error';
import { ListPage, ListQueryDto } from './list.dto';

interface Keyed extends ObjectLiteral {
  id: string;
  createdAt: Date;
}

/**
 * Cursor pagination over (created_at, id). The cursor row is looked up inside the same query builder's
 * scope (so a cursor from another tenant is simply "not found"), and one extra row tells `has_more`.
 */
export async function paginate<E extends Keyed, T>(
  query: SelectQueryBuilder<E>,
  params: ListQueryDto,
  present: (row: E) => T,
): Promise<ListPage<T>> {
  const alias = query.alias;
  const limit = params.limit ?? 20;
  const order = params.order ?? 'desc';
  if (params.after && params.before) throw ApiError.invalid('Use either after or before, not both', 'before');
  const cursorId = params.after ?? params.before;
  // Walking "before" a cursor reads in the opposite direction and flips the page back afterwards.
  const forward = params.before === undefined;
  const direction = (order === 'desc') === forward ? 'DESC' : 'ASC';
  if (cursorId) {
    const cursor = await query.clone().andWhere(`${alias}.id = :cursorId`, { cursorId }).getOne();
    if (!cursor)
      throw ApiError.invalid(`No object found with id '${cursorId}' to page from`, params.after ? 'after' : 'before');
    const comparator = direction === 'DESC' ? '<' : '>';
    query.andWhere(`(${alias}.createdAt, ${alias}.id) ${comparator} (:cursorCreated, :cursorKey)`, {
      cursorCreated: cursor.createdAt,
      cursorKey: cursor.id,
    });
  }
  const rows = await query
    .orderBy(`${alias}.createdAt`, direction)
    .addOrderBy(`${alias}.id`, direction)
    .take(limit + 1)
    .getMany();
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (!forward) page.reverse();
  const data = page.map(present);
  return {
    object: 'list',
    data,
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
    has_more: hasMore,
  };
}
