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

  async find(clientId: string): Promise<OAuthClientRow | undefined> {
    const rows: OAuthClientRow[] = await this.dataSource.query(
      `SELECT client_id, client_name, client_uri, redirect_uris FROM oauth_clients WHERE client_id = $1`,
      [clientId],
    );
    return rows[0];
  }
}
