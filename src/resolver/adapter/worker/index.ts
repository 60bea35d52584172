// Web-standard fetch handler (Cloudflare Workers, Deno, Bun): the resolver core over an R2
// binding (env.BUCKET) or an S3-style origin (env.ORIGIN_URL, a bucket or CDN base URL).
// Written for bundle size: the Worker has a 10 KB budget (test/conformance/worker.test.ts).
import { resolve, type KeyReader, type StoredObject } from '../../core.ts';
import { originPath } from '../../../model/origin-path.ts';
import { unavailableAnswer, withAnswerHeaders } from '../../../model/http.ts';

interface R2Like {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer>; httpEtag?: string } | null>;
}

interface WorkerEnv {
  BUCKET?: R2Like;
  ORIGIN_URL?: string;
  /** Optional key prefix inside the bucket/origin (e.g. "site/"). */
  KEY_PREFIX?: string;
  LATEST_MAX_AGE?: string;
  IMMUTABLE_MAX_AGE?: string;
}

/** What R2 and fetch answer alike: an R2 object has no status or headers, a Response no httpEtag. */
type Fetched = {
  arrayBuffer(): Promise<ArrayBuffer>;
  httpEtag?: string;
  status?: number;
  headers?: Headers;
};

function reader(env: WorkerEnv): KeyReader {
  const prefix = env.KEY_PREFIX ?? '';
  const origin = (env.ORIGIN_URL ?? '').replace(/\/+$/, '');
  // Neither set: fetch refuses the relative URL, and the store fault answers 503.
  return async (key) => {
    const got: Fetched | null = env.BUCKET
      ? await env.BUCKET.get(prefix + key)
      : await fetch(`${origin}/${originPath(prefix + key)}`);
    const status = got?.status ?? 200;
    if (!got || status === 404 || status === 403) return null;
    if (status > 299) throw status;
    return {
      body: new Uint8Array(await got.arrayBuffer()),
      etag: got.httpEtag ?? got.headers!.get('etag'),
    } as StoredObject;
  };
}

const num = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);

export default {
  async fetch(request: Request, env: WorkerEnv): Promise<Response> {
    const url = new URL(request.url);
    let answer: {
      status: number;
      headers: Record<string, string>;
      body: Uint8Array | string | null;
    };
    try {
      answer = await resolve(
        {
          method: request.method,
          path: url.pathname,
          query: url.search,
          ifNoneMatch: request.headers.get('if-none-match'),
          accept: request.headers.get('accept'),
        },
        reader(env),
        {
          latestMaxAge: num(env.LATEST_MAX_AGE),
          immutableMaxAge: num(env.IMMUTABLE_MAX_AGE),
        },
      );
    } catch {
      // Only a store fault reaches here, never a request string.
      answer = unavailableAnswer();
    }
    withAnswerHeaders(answer.headers);
    return new Response(answer.body as BodyInit | null, answer);
  },
};
