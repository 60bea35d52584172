// Debian's nginx started on 127.0.0.1 with config/nginx/badgepress.conf, exactly the file users
// take, its three EDIT lines pointed at a site, a serve and a free port; or as a plain proxy
// cache in front of serve. Its own prefix and temp directories: no root config, no system paths.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NGINX_CONF = fileURLToPath(
  new URL('../../config/nginx/badgepress.conf', import.meta.url),
);

/** The nginx binary on PATH or in /usr/sbin, or undefined. */
export function nginxBinary(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], {
    encoding: 'utf8',
  })
    .stdout.trim()
    .split('\n')[0];
  return found ? found : undefined;
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  const { port } = probe.address() as { port: number };
  await new Promise((ok) => probe.close(ok));
  return port;
}

export interface RunningNginx {
  port: number;
  prefix: string;
  stop(): Promise<void>;
}

/** Starts nginx (one worker) serving `site`, passing to serve at `servePort`; resolves once it answers. */
export async function startNginx(site: string, servePort: number): Promise<RunningNginx> {
  const port = await freePort();
  const edits: Array<[RegExp, string]> = [
    [/server 127\.0\.0\.1:8787;/, `server 127.0.0.1:${servePort};`],
    [/listen 127\.0\.0\.1:8080;/, `listen 127.0.0.1:${port};`],
    [/root \/srv\/badgepress\/dist;/, `root ${site};`],
  ];
  let conf = readFileSync(NGINX_CONF, 'utf8');
  for (const [from, to] of edits) {
    if (!from.test(conf)) throw new Error(`${NGINX_CONF}: the EDIT line ${from} is gone`);
    conf = conf.replace(from, to);
  }
  return runNginx(port, (prefix) => {
    writeFileSync(join(prefix, 'badgepress.conf'), conf);
    return `include ${prefix}/badgepress.conf;`;
  });
}

/**
 * nginx as a plain shared cache in front of `upstreamPort` (serve): a proxy cache with no
 * directive of its own about ages, so the answers' Cache-Control alone decides, as at a CDN.
 * `X-Cache-Status` says whether an answer came from the cache.
 */
export async function startNginxProxyCache(upstreamPort: number): Promise<RunningNginx> {
  const port = await freePort();
  return runNginx(port, (prefix) => {
    mkdirSync(join(prefix, 'cache'));
    return `proxy_cache_path ${prefix}/cache keys_zone=badgepress:1m;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://127.0.0.1:${upstreamPort};
      proxy_cache badgepress;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }`;
  });
}

/** Starts nginx on `port` in a prefix of its own with the http {} contents `http(prefix)` gives. */
async function runNginx(port: number, http: (prefix: string) => string): Promise<RunningNginx> {
  const nginx = nginxBinary();
  if (!nginx) throw new Error('nginx is not installed: apt-get install -y nginx (.ci/run does)');
  const prefix = mkdtempSync(join(tmpdir(), 'badgepress-nginx-'));
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(prefix, 'temp', d), { recursive: true });
  const contents = http(prefix);
  // Run as root, nginx's workers would be "nobody", who cannot read a 0700 temp directory.
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/temp/body;
  proxy_temp_path ${prefix}/temp/proxy;
  fastcgi_temp_path ${prefix}/temp/fastcgi;
  uwsgi_temp_path ${prefix}/temp/uwsgi;
  scgi_temp_path ${prefix}/temp/scgi;
  ${contents}
}
`,
  );
  const child = spawn(
    nginx,
    ['-p', prefix, '-e', `${prefix}/error.log`, '-c', join(prefix, 'nginx.conf')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  await untilAnswering(port, child, () => `nginx: ${stderr}${safeRead(join(prefix, 'error.log'))}`);
  return {
    port,
    prefix,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}

/**
 * Resolves once something answers HTTP on `port` (any status); throws, saying `output()`, when
 * `child` exits first or nothing answers within 15 s.
 */
export async function untilAnswering(
  port: number,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output()}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return;
    } catch {
      if (i > 150) throw new Error(`did not listen within 15 s: ${output()}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
