// Runs s3rver in its own process (started with --openssl-legacy-provider, without which
// s3rver 3.7.1 answers 500 to every truncated ListObjectsV2) and prints two ports: a front
// that honours conditional writes as AWS S3 does, and s3rver itself, which does not.
//
// s3rver (every release, and its forks on npm) ignores If-None-Match and If-Match on PUT.
// The front adds exactly that, atomically: the requests on one key pass one at a time (s3rver
// writes an object in place, and a GET beside a PUT of that key can get a torn answer), and a
// conditional PUT whose condition fails is answered 412 PreconditionFailed (If-Match on a
// missing key 404 NoSuchKey) without reaching s3rver. Everything else is piped unchanged, so
// signatures and bodies are s3rver's to check.
//
// s3rver answers a PUT before the object's file is written: its filesystem store resolves when
// the request body has passed through its hash, not when the file stream has flushed, so just
// after the answer the file can still be empty (seen in 1 of 171 lease PUTs under load). A GET
// then returned an empty lease with the new ETag, which a contender took for no holder and
// replaced under If-Match: two holders. The front therefore keeps the key's queue until the
// file's bytes hash to the ETag s3rver answered (AWS S3 answers a PUT once the object is
// stored). The behaviour under test is the build's: how
// it uses these answers, on a store that gives them and on one that does not.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import S3rver from 's3rver';

const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js');

const [directory, ...buckets] = process.argv.slice(2);
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
const { port } = await server.run();
const store = new FilesystemStore(directory);

/** Key → the tail of the writes queued on it. */
const queues = new Map();
function serialized(key, job) {
  const tail = (queues.get(key) ?? Promise.resolve()).then(job, job);
  queues.set(key, tail);
  void tail.finally(() => queues.get(key) === tail && queues.delete(key));
  return tail;
}

const error = (res, status, code, message) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
};

/** Pipes the request to s3rver and its answer back; resolves with the answer's status and ETag once it has ended. */
function forward(req, res) {
  return new Promise((done) => {
    const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      const answer = { status: up.statusCode, etag: up.headers.etag };
      up.on('end', () => done(answer));
      up.on('error', () => done({}));
    });
    upstream.on('error', () => (res.destroy(), done({})));
    req.pipe(upstream);
  });
}

/** Waits (at most 10 s) until the object's file holds the bytes whose MD5 s3rver answered as the ETag. */
async function written(bucket, key, etag) {
  const path = store.getResourcePath(bucket, key, 'object');
  for (const started = Date.now(); Date.now() - started < 10_000; await new Promise((ok) => setTimeout(ok, 1))) {
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes && JSON.stringify(createHash('md5').update(bytes).digest('hex')) === etag) return;
  }
}

async function storedEtag(bucket, key) {
  try {
    return (await store.getMetadata(bucket, key)).etag;
  } catch (err) {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  }
}

const front = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://peer').pathname;
  const slash = path.indexOf('/', 1);
  if (slash < 0 || slash === path.length - 1) return void forward(req, res);
  const bucket = decodeURIComponent(path.slice(1, slash));
  const key = decodeURIComponent(path.slice(slash + 1));
  void serialized(`${bucket}/${key}`, async () => {
    const noneMatch = req.headers['if-none-match'];
    const match = req.headers['if-match'];
    if (req.method === 'PUT' && (noneMatch !== undefined || match !== undefined)) {
      const etag = await storedEtag(bucket, key);
      const failed = (noneMatch === '*' && etag !== undefined) || (match !== undefined && etag !== undefined && match !== etag);
      if (failed || (match !== undefined && etag === undefined)) {
        req.resume();
        await new Promise((ok) => req.on('end', ok));
        if (failed) return error(res, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
        return error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
      }
    }
    const answer = await forward(req, res);
    // A whole object (not a part, a copy, tags or an ACL; the SDK adds x-id=PutObject).
    const whole = [...new URL(req.url ?? '/', 'http://peer').searchParams.keys()].every((name) => name === 'x-id') && !req.headers['x-amz-copy-source'];
    if (req.method === 'PUT' && whole && answer.status === 200 && answer.etag) await written(bucket, key, answer.etag);
  });
});
front.keepAliveTimeout = 1000;
await new Promise((ok) => front.listen(0, '127.0.0.1', ok));
process.stdout.write(`${front.address().port} ${port}\n`);
