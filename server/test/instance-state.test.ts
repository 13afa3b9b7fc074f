import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { appImageStore, moveLocalImages } from '../src/lib/images';
import { appObjectStorage } from '../src/lib/object-storage';
import { ensureEmbeddedSecrets } from '../src/lib/secrets';
import { KvsChannels } from '../src/standins/kvs/channels';
import { loadKvsSettings } from '../src/standins/kvs/settings';
import { build, type TestServer } from './helper';

/** What the embedded default keeps on its machine, so that a restart (or an upgrade) loses nothing. */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  'base64',
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'instance-state-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('the embedded stand-ins’ signing keys', () => {
  it('are generated once into DATA_DIR/secrets.json (0600) and read back after a restart', () => {
    const first: NodeJS.ProcessEnv = {};
    expect(ensureEmbeddedSecrets(dir, first)).toBe(path.join(dir, 'secrets.json'));
    expect(first.S3_LOCAL_ACCESS_KEY_ID).toMatch(/^AKIALOCALSERVER/);
    expect(first.KVS_LOCAL_ACCESS_KEY_ID).toMatch(/^AKIALOCALKVS/);
    expect(statSync(path.join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    const restarted: NodeJS.ProcessEnv = {};
    ensureEmbeddedSecrets(dir, restarted);
    expect(restarted).toEqual(first);
  });

  it('come from the environment when it names them, and are not needed for a service on AWS', () => {
    const credentialsKey = 'a'.repeat(64);
    const env: NodeJS.ProcessEnv = {
      S3_LOCAL_ACCESS_KEY_ID: 'AKIAMINE',
      S3_LOCAL_SECRET_ACCESS_KEY: 'mine',
      LOCAL_CREDENTIALS_KEY: credentialsKey,
      KVS_ENDPOINT: 'https://kinesisvideo.ap-northeast-1.amazonaws.com',
    };
    expect(ensureEmbeddedSecrets(path.join(dir, 'other'), env)).toBeNull();
    expect(env.S3_LOCAL_ACCESS_KEY_ID).toBe('AKIAMINE');
    expect(env.LOCAL_CREDENTIALS_KEY).toBe(credentialsKey);
    expect(env.KVS_LOCAL_ACCESS_KEY_ID).toBeUndefined();
    expect(existsSync(path.join(dir, 'other'))).toBe(false);
  });

  it('keep the key the embedded stand-in signs browser credentials with, when the environment has none', () => {
    // The S3 stand-in stays embedded: the credentials it issues must outlive a restart, so its key is stored.
    const env: NodeJS.ProcessEnv = {
      S3_LOCAL_ACCESS_KEY_ID: 'AKIAMINE',
      S3_LOCAL_SECRET_ACCESS_KEY: 'mine',
      KVS_ENDPOINT: 'https://kinesisvideo.ap-northeast-1.amazonaws.com',
    };
    const third = path.join(dir, 'third');
    expect(ensureEmbeddedSecrets(third, env)).toBe(path.join(third, 'secrets.json'));
    expect(env.S3_LOCAL_ACCESS_KEY_ID).toBe('AKIAMINE');
    expect(Buffer.from(env.LOCAL_CREDENTIALS_KEY ?? '', 'base64')).toHaveLength(32);
    const restarted: NodeJS.ProcessEnv = { ...env, LOCAL_CREDENTIALS_KEY: undefined };
    ensureEmbeddedSecrets(third, restarted);
    expect(restarted.LOCAL_CREDENTIALS_KEY).toBe(env.LOCAL_CREDENTIALS_KEY);
  });
});

describe('the embedded KVS stand-in’s channels', () => {
  it('are kept in DATA_DIR, so a channel keeps its ARN across a restart (the browsers hold on to it)', () => {
    const dataDir = path.join(dir, 'channels');
    const env: NodeJS.ProcessEnv = {};
    ensureEmbeddedSecrets(dataDir, env);
    const name = 'exam-3-cccccccccccc';
    const before = new KvsChannels(loadKvsSettings(env));
    const { channelArn } = before.ensureChannel(name);
    before.close();
    const after = new KvsChannels(loadKvsSettings({ ...env }));
    expect(after.find({ arn: channelArn })?.channelName).toBe(name);
    expect(after.ensureChannel(name).channelArn).toBe(channelArn);
    after.close();
    expect(existsSync(path.join(dataDir, 'kvs-channels.jsonl'))).toBe(true);
  });
});

describe('ICE_TRANSPORT_POLICY', () => {
  it('is served to the SPA in /config.json (relay: only through TURN), and refused when unknown', async () => {
    expect(loadConfig({}).spa.iceTransportPolicy).toBe('all');
    expect(loadConfig({ ICE_TRANSPORT_POLICY: 'relay' }).spa.iceTransportPolicy).toBe('relay');
    expect(() => loadConfig({ ICE_TRANSPORT_POLICY: 'none' })).toThrow(/ICE_TRANSPORT_POLICY/);
    const s = await build({ spa: { ...loadConfig({ ICE_TRANSPORT_POLICY: 'relay' }).spa } });
    try {
      const res = await s.app.inject({ method: 'GET', url: '/config.json' });
      expect(res.json()).toMatchObject({ iceTransportPolicy: 'relay' });
    } finally {
      await s.close();
    }
  });
});

describe('images an earlier version kept on disk', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build({}, { objectStorage: true });
  });
  afterAll(async () => s?.close());

  it('move into object storage at start, keys unchanged; anything else stays', async () => {
    const root = path.join(s.config.dataDir, 'images');
    const key = 'head_shot/7/abcdefghijklmnopqrstuv.png';
    await mkdir(path.join(root, 'head_shot/7'), { recursive: true });
    await writeFile(path.join(root, key), PNG);
    await writeFile(path.join(root, 'head_shot/7/notes.txt'), 'not an image');
    const images = appImageStore(s.app);
    const moved = await moveLocalImages(s.config.dataDir, images, appObjectStorage(s.app), {
      warn: () => undefined,
    });
    expect(moved).toBe(1);
    expect(existsSync(path.join(root, key))).toBe(false);
    expect(existsSync(path.join(root, 'head_shot/7/notes.txt'))).toBe(true);
    expect((await images.read(key))?.body.equals(PNG)).toBe(true);
    const res = await fetch((await images.url(key))!);
    expect(res.headers.get('content-type')).toBe('image/png');
    // Again: nothing left to move.
    expect(
      await moveLocalImages(s.config.dataDir, images, appObjectStorage(s.app), { warn: () => undefined }),
    ).toBe(0);
  });
});
