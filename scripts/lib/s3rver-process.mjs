// Runs s3rver in its own process (started with --openssl-legacy-provider, without which
// s3rver 3.7.1 answers 500 to every truncated ListObjectsV2) and prints two ports: a front
// that honours conditional writes as AWS S3 does, and s3rver itself, which does not.
//
// s3rver (every release, and its forks on npm) ignores If-None-Match and If-Match on PUT.
// The front adds exactly that, atomically: the requests on one key pass one at a time (s3rver
// writes an object in place, and a GET beside a PUT of that key can get a torn answer), and a
// conditional PUT whose condition fails is answered 412 PreconditionFailed (If-Match on a
// missing key 404 NoSuchKey) without reaching s3rver. Everything else is piped unchanged, so
// signatures and bodies are s3rver's to check. The behaviour under test is the build's: how
// it uses these answers, on a store that gives them and on one that does not.
//
// s3rver 3.7.1 answers a PUT before the object's file is written: its filesystem store's
// putObject resolves when the body has passed through its MD5 hash, not when the file stream
// has flushed. Checked right after each answer, 1 of 171 lease PUTs under load found the file
// still empty; a GET in that window returned an empty lease with the new ETag, which a
// contender took for no holder and replaced under If-Match: two holders. AWS S3 answers a
// PUT once the object is stored, so putObject is replaced below by the same steps that
// resolve only once the file is written (the front's queue per key then keeps a GET after it).
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js');

/** s3rver's putObject, resolving once the file stream has finished (all bytes written), not before. */
FilesystemStore.prototype.putObject = async function putObject(object) {
  const path = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(path), { recursive: true });
  const md5 = createHash('md5');
  let size = 0;
  const count = new Transform({
    transform(chunk, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  await pipeline(
    Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content,
    count,
    createWriteStream(path),
  );
  const digest = md5.digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
};

const [directory, ...buckets] = process.argv.slice(2);
const server = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory,
  configureBuckets: buckets.map((name) => ({ name })),
});
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
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
};

function forward(req, res) {
  return new Promise((done) => {
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.on('end', done);
        up.on('error', done);
      },
    );
    upstream.on('error', () => (res.destroy(), done()));
    req.pipe(upstream);
  });
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
      const failed =
        (noneMatch === '*' && etag !== undefined) ||
        (match !== undefined && etag !== undefined && match !== etag);
      if (failed || (match !== undefined && etag === undefined)) {
        req.resume();
        await new Promise((ok) => req.on('end', ok));
        if (failed)
          return error(
            res,
            412,
            'PreconditionFailed',
            'At least one of the pre-conditions you specified did not hold',
          );
        return error(res, 404, 'NoSuchKey', 'The specified key does not exist.');
      }
    }
    await forward(req, res);
  });
});
front.keepAliveTimeout = 1000;
await new Promise((ok) => front.listen(0, '127.0.0.1', ok));
process.stdout.write(`${front.address().port} ${port}\n`);
