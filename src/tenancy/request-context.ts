import { Injectable } from '@nestjs/common';
import { ClsService, ClsStore } from 'nestjs-cls';
import { ApiError } from '../common/api-error';
import type { Role } from '../auth/api-key.entity';

/** Who is calling, established by the auth guard from a verified credential only. */
export interface Identity {
  tenantId: string;
  role: Role;
  /** The key id or the JWT subject. */
  subject: string;
  /** `oauth`: an access token of the built-in authorization server, standing for the API key named by `subject`. */
  method: 'api_key' | 'jwt' | 'oauth';
  agentProfile?: string;
}

export interface RequestStore extends ClsStore {
  identity?: Identity;
}

/** Typed access to the current request's identity, held in async-local storage (nestjs-cls). */
@Injectable()
export class RequestContext {
  constructor(private readonly cls: ClsService<RequestStore>) {}

  set identity(identity: Identity) {
    this.cls.set('identity', identity);
  }

  /** The caller's identity; routes behind the guard always have one. */
  get identity(): Identity {
    const identity = this.cls.isActive() ? this.cls.get('identity') : undefined;
    if (!identity) throw ApiError.unauthorized();
    return identity;
  }

  get tenantId(): string {
    return this.identity.tenantId;
  }

  get isAdmin(): boolean {
    return this.identity.role === 'admin';
  }

  get requestId(): string | undefined {
    return this.cls.isActive() ? this.cls.getId() : undefined;
  }
}
