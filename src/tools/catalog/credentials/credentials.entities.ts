import { CredentialEntity } from './credential.entity';

export const CREDENTIALS_ENTITIES = [CredentialEntity];
