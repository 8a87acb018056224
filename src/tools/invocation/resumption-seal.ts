import { Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { Clock } from '../../common/clock';
import { AppConfig } from '../../config/app-config';
import type { Identity } from '../../tenancy/request-context';
import { canonical } from '../catalog/content-hash';
import { EncryptionKey, IV_BYTES, KeyRing, TAG_BYTES } from '../catalog/credentials/credential-cipher';
import type { Resumption } from './call-result';

/** A sealed state longer than this was not made here (the tool's own state is bounded below it). */
const MAX_SEALED_CHARS = 200_000;
const PREFIX = 'tgrs1';

/** What a sealed state is bound to: the caller, and the very call (tool and arguments) it continues. */
export interface ResumptionBinding {
  identity: Identity;
  /** The tool name as the client called it. */
  tool: string;
  arguments: unknown;
}

/** A state that is not this gateway's, not the caller's, not this call's, or expired; the message says which. */
export class ResumptionRefused extends Error {}

/**
 * The gateway's `requestState` for a call that waits for its client's input (MCP 2026-07-28, Multi Round-Trip
 * Requests). The specification leaves the state to the server and asks it to treat what comes back as hostile:
 * it wraps the upstream tool's own state together with what the retry needs (the call, its audit record, the
 * rounds so far), sealed with AES-256-GCM under a key derived from the credential encryption key (every
 * replica has it; a rotated-out key still opens states it sealed), and bound through the authenticated data to
 * tenant, principal, agent profile and tool, and inside to a digest of the arguments and an expiry
 * (`gateway.input_request_ttl`). A client
 * can neither read the upstream's state nor alter or move any of it.
 */
@Injectable()
export class ResumptionSeal {
  private readonly derived = new Map<string, Buffer>();
  /** How long a client has to answer the tool's input requests (gateway.input_request_ttl). */
  private readonly ttlMs: number;

  constructor(
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.ttlMs = config.gateway.input_request_ttl;
  }

  seal(resumption: Resumption, binding: ResumptionBinding): string {
    const key = this.keys.current;
    const plaintext = JSON.stringify({
      resumption,
      arguments: digestOf(binding.arguments),
      expiresAt: this.clock.now().getTime() + this.ttlMs,
    });
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.stateKey(key), iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aadOf(binding));
    const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}.${key.id}.${sealed.toString('base64url')}`;
  }

  /** The resumption a state carries, once it proves to be this gateway's, for this caller and call, and current. */
  open(state: string, binding: ResumptionBinding): Resumption {
    const refused = () =>
      new ResumptionRefused(
        'requestState was not issued by this gateway for this caller and this tool: send the value of the last input_required answer unchanged, or call again without it',
      );
    if (state.length > MAX_SEALED_CHARS) throw refused();
    const [prefix, keyId, body, ...rest] = state.split('.');
    const key = keyId === undefined ? undefined : this.keys.find(keyId);
    if (prefix !== PREFIX || !key || body === undefined || rest.length > 0) throw refused();
    const sealed = Buffer.from(body, 'base64url');
    if (sealed.length < IV_BYTES + TAG_BYTES) throw refused();
    let opened: { resumption: Resumption; arguments: string; expiresAt: number };
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.stateKey(key), sealed.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(aadOf(binding));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plaintext = Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]);
      opened = JSON.parse(plaintext.toString('utf8')) as typeof opened;
    } catch {
      throw refused();
    }
    if (opened.arguments !== digestOf(binding.arguments))
      throw new ResumptionRefused(
        'requestState belongs to a call with other arguments: a retry repeats the original arguments unchanged',
      );
    if (opened.expiresAt <= this.clock.now().getTime())
      throw new ResumptionRefused(
        `requestState has expired (input is awaited ${Math.round(this.ttlMs / 1000)} s, gateway.input_request_ttl): call the tool again without it`,
      );
    return opened.resumption;
  }

  /** A key of its own for states, so that no ciphertext of one use can pass for the other's. */
  private stateKey(key: EncryptionKey): Buffer {
    let derived = this.derived.get(key.id);
    if (!derived) {
      derived = Buffer.from(hkdfSync('sha256', key.material, Buffer.alloc(0), 'toolgate.request-state.v1', 32));
      this.derived.set(key.id, derived);
    }
    return derived;
  }
}

/** Tenant ids, subjects, profiles and tool names cannot contain NUL, so the encoding is unambiguous. */
function aadOf({ identity, tool }: ResumptionBinding): Buffer {
  return Buffer.from(
    `toolgate.request-state.v1\0${identity.tenantId}\0${identity.subject}\0${identity.agentProfile ?? ''}\0${tool}`,
    'utf8',
  );
}

function digestOf(args: unknown): string {
  return createHash('sha256')
    .update(canonical(args ?? {}))
    .digest('base64url');
}
