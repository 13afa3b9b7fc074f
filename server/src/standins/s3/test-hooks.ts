import type { FastifyInstance } from 'fastify';
import type { Fault, FaultKind, FaultQueue } from './faults';
import type { S3Store, StoreSettings } from './store';

const KINDS: readonly FaultKind[] = ['destroy', 'stall', 'status', 'expired-token'];

/**
 * Test-only routes under /__s3 (registered only with `config.testHooks`):
 * - `POST /__s3/faults` `{kind, count?, ms?, status?, key?}` queues a fault for the next `count` UploadParts;
 * - `DELETE /__s3/faults` clears them;
 * - `POST /__s3/config` `{minPartSize?, strictChecksum?}` changes the rules (fast tests: a small part size);
 * - `POST /__s3/reset` clears faults and restores the start-up rules (data stays);
 * - `GET /__s3/state` dumps rules, pending and fired faults, uploads with parts, and objects.
 */
export async function s3TestHooks(
  app: FastifyInstance,
  opts: { store: S3Store; faults: FaultQueue; defaults: StoreSettings },
): Promise<void> {
  const { store, faults } = opts;

  app.post('/__s3/faults', async (request, reply) => {
    const b = (request.body ?? {}) as Partial<Fault>;
    if (!b.kind || !KINDS.includes(b.kind))
      return reply.code(400).send({ error: `kind must be one of ${KINDS.join(', ')}` });
    const count = b.count ?? 1;
    if (!Number.isInteger(count) || count < 1)
      return reply.code(400).send({ error: 'count must be a positive integer' });
    if (b.kind === 'stall' && !(typeof b.ms === 'number' && b.ms > 0)) {
      return reply.code(400).send({ error: 'stall needs ms > 0' });
    }
    if (b.kind === 'status' && b.status !== 500 && b.status !== 503) {
      return reply.code(400).send({ error: 'status must be 500 or 503' });
    }
    const fault: Fault = { kind: b.kind, count };
    if (b.ms !== undefined) fault.ms = b.ms;
    if (b.status !== undefined) fault.status = b.status;
    if (typeof b.key === 'string') fault.key = b.key;
    faults.add(fault);
    return { pending: faults.pending() };
  });

  app.delete('/__s3/faults', async () => {
    faults.clear();
    return { pending: [] };
  });

  app.post('/__s3/config', async (request, reply) => {
    const b = (request.body ?? {}) as Partial<StoreSettings>;
    if (b.minPartSize !== undefined) {
      if (!Number.isInteger(b.minPartSize) || b.minPartSize < 0) {
        return reply.code(400).send({ error: 'minPartSize must be a non-negative integer' });
      }
      store.settings.minPartSize = b.minPartSize;
    }
    if (b.strictChecksum !== undefined) store.settings.strictChecksum = Boolean(b.strictChecksum);
    return { ...store.settings };
  });

  app.post('/__s3/reset', async () => {
    faults.clear();
    Object.assign(store.settings, opts.defaults);
    return { ...store.settings };
  });

  app.get('/__s3/state', async () => ({
    settings: { ...store.settings },
    faults: { pending: faults.pending(), fired: { ...faults.fired } },
    uploads: await store.dumpUploads(),
    objects: await store.dumpObjects(),
  }));
}
