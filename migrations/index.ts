import { Foundation1764000000000 } from './1764000000000-foundation';
import { Catalog1764000100000 } from './1764000100000-catalog';

/** Applied in this order, by the service at start and by `npm run migration:run`. */
export const ALL_MIGRATIONS = [Foundation1764000000000, Catalog1764000100000];
