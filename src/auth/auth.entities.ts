import { ApiKeyEntity } from './api-key.entity';

/** The tables the auth module maps (the OAuth authorization server's are reached through SQL repositories). */
export const AUTH_ENTITIES = [ApiKeyEntity];
