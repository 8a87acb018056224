import { PolicyEntity, PolicyRevisionEntity } from './policies/policy.entity';

export const GUARDS_ENTITIES = [PolicyEntity, PolicyRevisionEntity];
