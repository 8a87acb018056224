import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A dynamically registered client. */
export interface OAuthClientRow {
  client_id: string;
  client_name: string | null;
  client_uri: string | null;
  redirect_uris: string[];
}

/** The `oauth_clients` table. */
@Injectable()
export class OAuthClientRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(client: OAuthClientRow, createdAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oauth_clients (client_id, client_name, client_uri, redirect_uris, created_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [client.client_id, client.client_name, client.client_uri, JSON.stringify(client.redirect_uris), createdAt],
    );
  }

  /** A client, unless it was never used and registered before `unusedSince` (then it has expired). */
  async find(clientId: string, unusedSince: Date): Promise<OAuthClientRow | undefined> {
    const rows: OAuthClientRow[] = await this.dataSource.query(
      `SELECT client_id, client_name, client_uri, redirect_uris FROM oauth_clients
        WHERE client_id = $1 AND (first_used_at IS NOT NULL OR created_at >= $2)`,
      [clientId, unusedSince],
    );
    return rows[0];
  }

  /** Records that a user authorized this client once: from then on it no longer expires unused. */
  async markUsed(clientId: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE oauth_clients SET first_used_at = $2 WHERE client_id = $1 AND first_used_at IS NULL`,
      [clientId, now],
    );
  }

  async deleteUnused(registeredBefore: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM oauth_clients WHERE first_used_at IS NULL AND created_at < $1`, [
      registeredBefore,
    ]);
  }
}
