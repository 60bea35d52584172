// Web-standard fetch handler (Cloudflare Workers, Deno, Bun): the resolver core over an R2
// binding (env.BUCKET) or an S3-style origin (env.ORIGIN_URL, a bucket or CDN base URL).
import { resolve, type KeyReader } from '../../core.ts';
import { originPath } from '../../../model/origin-path.ts';
import { unavailableAnswer } from '../../../model/http.ts';

interface R2Like {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer>; httpEtag?: string } | null>;
}

export interface WorkerEnv {
  BUCKET?: R2Like;
  ORIGIN_URL?: string;
  /** Optional key prefix inside the bucket/origin (e.g. "site/"). */
  KEY_PREFIX?: string;
  LATEST_MAX_AGE?: string;
  IMMUTABLE_MAX_AGE?: string;
}

function reader(env: WorkerEnv): KeyReader {
  const prefix = env.KEY_PREFIX ?? '';
  const bucket = env.BUCKET;
  const origin = (env.ORIGIN_URL ?? '').replace(/\/+$/, '');
  if (!bucket && !origin) throw new Error('set ORIGIN_URL or bind an R2 bucket as BUCKET');
  return async (key) => {
    let body: ArrayBuffer;
    let etag: string | null | undefined;
    if (bucket) {
      const obj = await bucket.get(prefix + key);
      if (!obj) return null;
      body = await obj.arrayBuffer();
      etag = obj.httpEtag;
    } else {
      const res = await fetch(`${origin}/${originPath(prefix + key)}`);
      if (res.status === 404 || res.status === 403) return null;
      if (!res.ok) throw new Error(`origin answered ${res.status}`);
      body = await res.arrayBuffer();
      etag = res.headers.get('etag');
    }
    return etag ? { body: new Uint8Array(body), etag } : { body: new Uint8Array(body) };
  };
}

const num = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    try {
      const answer = await resolve(
        { method: request.method, path: url.pathname, query: url.search, ifNoneMatch: request.headers.get('if-none-match'), accept: request.headers.get('accept') },
        reader(env),
        { latestMaxAge: num(env.LATEST_MAX_AGE), immutableMaxAge: num(env.IMMUTABLE_MAX_AGE) },
      );
      return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers });
    } catch {
      // Only a store fault reaches here, never a request string.
      const { status, headers, body } = unavailableAnswer();
      return new Response(body, { status, headers });
    }
  },
};
