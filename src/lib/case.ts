type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;

/** The camelCase view of a snake_case wire type, deeply. */
export type Camelize<T> = T extends readonly (infer U)[]
  ? Camelize<U>[]
  : T extends Date
    ? T
    : T extends object
      ? { [K in keyof T as K extends string ? CamelCase<K> : K]: Camelize<T[K]> }
      : T;

export function camelKey(k: string): string {
  return k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function snakeKey(k: string): string {
  return k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

function mapKeys(v: unknown, f: (k: string) => string): unknown {
  if (Array.isArray(v)) return v.map((x) => mapKeys(x, f));
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[f(k)] = mapKeys(x, f);
    return out;
  }
  return v;
}

/** Deep snake_case → camelCase of plain objects and arrays. */
export function camelize<T>(v: T): Camelize<T> {
  return mapKeys(v, camelKey) as Camelize<T>;
}

/** Deep camelCase → snake_case, for request payloads. */
export function snakeize(v: unknown): unknown {
  return mapKeys(v, snakeKey);
}
