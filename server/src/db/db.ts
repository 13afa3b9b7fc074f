import { PGlite, parse as pgliteParse, protocol, type Results } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

/**
 * The one database interface of the server: parameterised SQL ($1, $2 …) on PostgreSQL, served either by
 * embedded PGlite (default) or a PostgreSQL server (DATABASE_URL). Queries are the same on both.
 */
export interface Db {
  readonly kind: 'pglite' | 'postgres';
  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs fn in one transaction; a thrown error rolls back. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Subscribes to `NOTIFY channel` (sent by this or any other instance, delivered after the sender commits).
   * `onState(false)` says notifications may be missed from now on (the listening connection is down), and
   * `onState(true)` that they are delivered again; whoever caches on the strength of them must not trust its
   * cache in between. Returns the unsubscribe.
   */
  listen(channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface QueryOptions {
  /**
   * Plan once, for any parameters (PostgreSQL's generic plan), and run that plan on every call: for the hot
   * statements that run for many requests a second with ids as parameters. By default PostgreSQL plans a prepared
   * statement for each call's values whenever it judges that better, and for a statement over an array of ids
   * (a batch) it always does, which costs more than running it. Measure before adding a statement: a generic
   * plan costed for unknown values can cost more than planning (the poll snapshot's did). On PGlite the
   * statement is prepared once and PostgreSQL chooses its plan as for any prepared statement; the session is
   * never set to generic plans, which would also apply to every unprepared statement (a fuzzy name search at
   * 1M sittings took 0.4 s instead of 4 ms). Ignored inside a transaction.
   */
  genericPlan?: boolean;
}

export interface NotificationHandlers {
  onMessage(payload: string): void;
  onState(delivering: boolean): void;
}

/** Channel names are SQL identifiers here: a fixed set chosen by the server, never from a request. */
function channelIdent(channel: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  return channel;
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  /** Statements prepared in this database's one session, by SQL text, with their parameter types. */
  private readonly prepared = new Map<string, number[]>();
  constructor(
    private readonly pglite: PGlite,
    private readonly tx?: { query: PGlite['query']; exec: PGlite['exec'] },
  ) {}
  async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<QueryResult<T>> {
    // Only statements asking for a generic plan are prepared (parsed once); every other statement is parsed and
    // planned for its values at each call, as PGlite's own query() does.
    const name = this.tx || !options.genericPlan ? undefined : statementName(sql);
    let r: Results<T>;
    if (!name) r = await (this.tx ?? this.pglite).query<T>(sql, params);
    else {
      try {
        r = await this.pglite.runExclusive(() => this.runPrepared<T>(name, sql, params));
      } catch (err) {
        if (!stalePlan(err)) throw err;
        // A plan made stale by a change of the tables it reads (`*`): the text runs unprepared from now on.
        unprepared.add(sql);
        r = await this.pglite.query<T>(sql, params);
      }
    }
    return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
  }
  /**
   * A statement prepared once and run on the plan PostgreSQL keeps for it (after five calls, the generic plan
   * unless it costs more than planning for the values): PGlite's own query() parses and plans every call anew,
   * which for the poll's statements costs more than running them. Outside transactions only (a transaction's
   * statements go through PGlite's transaction object).
   */
  private async runPrepared<T>(name: string, sql: string, params: unknown[]): Promise<Results<T>> {
    const { serialize } = protocol;
    const messages: Parameters<typeof pgliteParse.parseResults>[0] = [];
    const exec = async (...parts: Uint8Array[]) => {
      const r = await this.pglite.execProtocol(concatBytes(parts), { syncToFs: false });
      messages.push(...r.messages);
      return r.messages;
    };
    try {
      let types = this.prepared.get(sql);
      if (!types) {
        types = pgliteParse.parseDescribeStatementResults(
          await exec(serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name })),
        );
        this.prepared.set(sql, types);
      }
      const values = params.map((v, i) => {
        if (v === null || v === undefined) return null;
        const serializer = this.pglite.serializers[types[i]!];
        return serializer ? serializer(v) : String(v);
      });
      await exec(
        serialize.bind({ statement: name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
      );
    } finally {
      messages.push(...(await this.pglite.execProtocol(serialize.sync(), { syncToFs: true })).messages);
    }
    return pgliteParse.parseResults(messages, this.pglite.parsers)[0] as Results<T>;
  }
  async exec(sql: string): Promise<void> {
    await (this.tx ?? this.pglite).exec(sql);
  }
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    if (this.tx) return fn(this);
    return this.pglite.transaction((t) => fn(new PgliteDb(this.pglite, t)));
  }
  /** One process, one database: a notification is delivered before the statement that sent it resolves. */
  async listen(channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>> {
    const unlisten = await this.pglite.listen(channelIdent(channel), (payload) =>
      handlers.onMessage(payload),
    );
    handlers.onState(true);
    return async () => {
      await unlisten();
      handlers.onState(false);
    };
  }
  async close(): Promise<void> {
    if (!this.tx) await this.pglite.close();
  }
}

/** PostgreSQL refused a prepared plan whose tables changed under it (another instance migrated them). */
function stalePlan(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Statement names by SQL text: the server's queries are a fixed set, so each is parsed and planned once per connection. */
const statementNames = new Map<string, string>();
/** Beyond this many distinct texts (queries built from many filter combinations), statements go unnamed. */
const MAX_NAMED_STATEMENTS = 2000;
/** Texts whose prepared plan went stale (another instance migrated a table it reads with `*`): never named again. */
const unprepared = new Set<string>();

function statementName(sql: string): string | undefined {
  if (unprepared.has(sql)) return undefined;
  let name = statementNames.get(sql);
  if (!name && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `s${statementNames.size + 1}`;
    statementNames.set(sql, name);
  }
  return name;
}

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  constructor(
    private readonly pool: pg.Pool,
    /** Connections whose session plans prepared statements generically (QueryOptions.genericPlan). */
    private readonly genericPool: pg.Pool,
    private readonly client?: pg.PoolClient,
  ) {}
  async query<T>(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<QueryResult<T>> {
    const target = this.client ?? (options.genericPlan ? this.genericPool : this.pool);
    const name = statementName(sql);
    let r;
    try {
      r = await target.query(name ? { name, text: sql, values: params } : { text: sql, values: params });
    } catch (err) {
      // A prepared statement reading `*` of a table a newer instance has since altered (a rolling upgrade):
      // PostgreSQL refuses the stale plan; the text runs unprepared from now on.
      if (!name || !stalePlan(err)) throw err;
      unprepared.add(sql);
      r = await target.query({ text: sql, values: params });
    }
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
  }
  async exec(sql: string): Promise<void> {
    await (this.client ?? this.pool).query(sql);
  }
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    if (this.client) return fn(this);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const out = await fn(new PostgresDb(this.pool, this.genericPool, client));
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }
  /**
   * A connection of its own outside the pool, reconnected with back-off while it is down (the server
   * restarted, a failover, a network cut); onState tells the subscriber when delivery stops and resumes.
   */
  async listen(channel: string, handlers: NotificationHandlers): Promise<() => Promise<void>> {
    const ident = channelIdent(channel);
    const options = this.pool.options;
    let client: pg.Client | null = null;
    let stopped = false;
    let retry: NodeJS.Timeout | null = null;
    let delay = 250;
    const down = (c: pg.Client) => {
      if (client !== c) return;
      client = null;
      handlers.onState(false);
      c.end().catch(() => undefined);
      if (!stopped) retry = setTimeout(() => void connect(), delay);
      delay = Math.min(delay * 2, 10_000);
    };
    const connect = async (): Promise<void> => {
      retry = null;
      const c = new pg.Client(options);
      c.on('error', () => down(c));
      c.on('end', () => down(c));
      c.on('notification', (n) => {
        if (n.channel === ident) handlers.onMessage(n.payload ?? '');
      });
      client = c;
      try {
        await c.connect();
        await c.query(`LISTEN ${ident}`);
        if (stopped || client !== c) return;
        delay = 250;
        handlers.onState(true);
      } catch {
        down(c);
      }
    };
    await connect();
    return async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      handlers.onState(false);
      await c?.end().catch(() => undefined);
    };
  }
  async close(): Promise<void> {
    if (!this.client) await Promise.all([this.pool.end(), this.genericPool.end()]);
  }
}

// Return timestamps and bigints as strings from node-postgres, the same as PGlite's text handling below.
pg.types.setTypeParser(20, (v) => Number(v)); // int8 -> number (ids stay far below 2^53)

export interface OpenDbOptions {
  databaseUrl?: string | undefined;
  /** Directory for PGlite files, or 'memory://'. */
  dataDir?: string;
  /** A PGlite data-dir snapshot (from dumpDataDir) to start from; used by tests. */
  loadDataDir?: Blob | File;
  /** PostgreSQL connections of this process (default DATABASE_POOL_SIZE, else 10). */
  poolSize?: number;
}

/**
 * DATABASE_POOL_SIZE: connections per server instance (default 10), plus half as many for the hot statements and
 * one that listens for notifications; the sum over instances must fit the server's max_connections.
 */
export function poolSizeFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.DATABASE_POOL_SIZE;
  if (v === undefined || v === '') return 10;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error(`Invalid DATABASE_POOL_SIZE: ${v} (1…1000)`);
  return n;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const size = opts.poolSize ?? poolSizeFromEnv();
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: size });
    // The hot statements' own connections (QueryOptions.genericPlan), half as many: many of them are batches.
    const genericPool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: Math.max(2, Math.ceil(size / 2)),
      options: '-c plan_cache_mode=force_generic_plan',
    });
    // An idle client whose connection the server ends (restart, failover, admin termination) emits 'error' on
    // the pool; unhandled, that would crash the process. The pool replaces the client on next use.
    for (const p of [pool, genericPool])
      p.on('error', (err) => console.warn(`[db] idle PostgreSQL client error: ${err.message}`));
    return new PostgresDb(pool, genericPool);
  }
  const pglite = await PGlite.create({
    dataDir: opts.dataDir ?? 'memory://',
    extensions: { pg_trgm },
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    parsers: { 20: (v: string) => Number(v) },
  });
  return new PgliteDb(pglite);
}

/** For tests: a snapshot of a migrated PGlite database. */
export async function dumpPglite(db: Db): Promise<Blob> {
  const inner = (db as unknown as { pglite: PGlite }).pglite;
  return inner.dumpDataDir('none');
}
