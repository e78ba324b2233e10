import type { MessSettings } from './mess-session';

// pg's own query class: the one way to send a statement with messages of our own before it. It has no typings.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Query = require('pg/lib/query') as QueryClass;

interface QueryConfig {
  text: string;
  name?: string;
  values?: unknown[];
  rowMode?: 'array';
  types?: unknown;
}

/** The parts of pg's protocol connection and query class this file uses. */
interface Connection {
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[]; valueMapper?: (v: unknown) => unknown }): void;
  execute(message: { portal: string; rows: number }): void;
}
interface QueryInstance {
  prepare(connection: Connection): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: Connection): void;
}
type QueryClass = new (
  config: QueryConfig,
  values: undefined,
  callback: (error: Error | null, result: unknown) => void,
) => QueryInstance;

/** The connections on which the named settings statement has been sent (it lives as long as the connection). */
const prepared = new WeakMap<Connection, Set<string>>();

/**
 * A statement sent with the settings of its mess in front of it, in one round trip and one implicit transaction:
 * Parse (once per connection when named)/Bind/Execute of `settings` (a `select set_config(…, true)`), then the
 * statement's own Parse/Bind/Describe/Execute, then one Sync. PostgreSQL commits an extended-protocol statement at
 * the Sync, so the transaction-local settings hold for the statement and end with it; a pooler in transaction mode
 * keeps the whole exchange on one server connection. What the settings statement answers is not part of the result.
 */
export class InMessQuery extends Query {
  private skipping = true;

  constructor(
    config: QueryConfig,
    private readonly settings: MessSettings,
    callback: (error: Error | null, result: unknown) => void,
  ) {
    super(config, undefined, callback);
  }

  /** Always the extended protocol (a statement without parameters too), so the settings can go first. */
  requiresPreparation(): boolean {
    return true;
  }

  override prepare(connection: Connection): void {
    const name = this.settings.name ?? '';
    let names = prepared.get(connection);
    if (!name || !names?.has(name)) {
      connection.parse({ text: this.settings.text, name, types: [] });
      if (name) {
        if (!names) prepared.set(connection, (names = new Set()));
        names.add(name);
      }
    }
    connection.bind({ portal: '', statement: name, values: this.settings.values });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
  }

  override handleRowDescription(message: unknown): void {
    if (!this.skipping) super.handleRowDescription(message);
  }

  override handleDataRow(message: unknown): void {
    if (!this.skipping) super.handleDataRow(message);
  }

  override handleCommandComplete(message: unknown, connection: Connection): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}
