import type { ShortUrlListResult, ShortUrlRow as Row } from '@contract/management';
import { call } from './client';

/** One short URL; `param` keeps the wire (start-up query) names, which are the URL's own vocabulary. */
export interface ShortUrl {
  id: number;
  actor: number;
  target: string;
  urlKey: string;
  url: string;
  param: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

function toShortUrl(r: Row): ShortUrl {
  return {
    id: r.id,
    actor: r.actor,
    target: r.target,
    urlKey: r.url_key,
    url: r.url,
    param: r.param,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export interface ShortUrlInput {
  urlKey: string;
  actor: number;
  target: string;
  /** Start-up parameters by their start-up query names (contract ShortUrlParamInput). */
  param: Record<string, string | number | string[]>;
}

/** GET shorten_url/select: every short URL. */
export async function listShortUrls(): Promise<ShortUrl[]> {
  return (await call<ShortUrlListResult>('shorten_url/select')).list.map(toShortUrl);
}

/** POST shorten_url/insert or update (with `id`): returns the stored row with its working URL. */
export async function saveShortUrl(input: ShortUrlInput, id?: number): Promise<ShortUrl> {
  const data = { url_key: input.urlKey, actor: input.actor, target: input.target, param: input.param };
  const r =
    id === undefined
      ? await call<Row>('shorten_url/insert', { method: 'POST', data })
      : await call<Row>('shorten_url/update', { method: 'POST', data: { id, ...data } });
  return toShortUrl(r);
}

/** POST shorten_url/delete. */
export async function deleteShortUrl(id: number): Promise<void> {
  await call<unknown>('shorten_url/delete', { method: 'POST', data: { id } });
}
