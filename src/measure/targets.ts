// The list of repositories to scan: one URL a line, `#` comments, optionally `mirror=PATH`.
// A bad line is named with FILE:line and skipped; the others are scanned.
import { isAbsolute, resolve, dirname } from 'node:path';
import { checkRepositoryUrl } from '../model/repository-url.ts';
import type { ScanTarget } from './types.ts';

/** A target with what git fetches from (the URL as written, an ssh user kept). */
export interface ListedTarget extends ScanTarget {
  fetchUrl: string;
}

interface TargetList {
  targets: ListedTarget[];
  problems: string[];
}

const SCHEMES = ['https', 'http', 'ssh'];

/** `file`: the list's path (for messages and to resolve relative mirror= paths). */
export function parseTargets(text: string, file: string): TargetList {
  const targets: ListedTarget[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const source = `${file}:${i + 1}`;
    // A comment starts a line or follows a blank: a URL never holds " #".
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') return;
    const [url, ...rest] = line.split(/\s+/);
    const parsed = targetOf(url!, source);
    if ('problem' in parsed) return problems.push(`${source}: ${parsed.problem}; line skipped`);
    for (const option of rest) {
      const m = /^mirror=(.+)$/.exec(option);
      if (!m)
        return problems.push(
          `${source}: unknown option ${JSON.stringify(option)} (the only option is mirror=PATH); line skipped`,
        );
      if (parsed.mirror !== undefined)
        return problems.push(
          `${source}: mirror= is given twice (${rest.filter((o) => o.startsWith('mirror=')).join(', ')}); a repository is read from one mirror: keep one; line skipped`,
        );
      parsed.mirror = isAbsolute(m[1]!) ? m[1]! : resolve(dirname(file), m[1]!);
    }
    const earlier = seen.get(parsed.url);
    if (earlier)
      return problems.push(
        `${source}: ${parsed.url} is listed already at ${earlier}; line skipped`,
      );
    seen.set(parsed.url, source);
    targets.push(parsed);
  });
  return { targets, problems };
}

function targetOf(written: string, source: string): ListedTarget | { problem: string } {
  if (/^[^/:]+@[^/:]+:/.test(written))
    return {
      problem: `${JSON.stringify(written)} is an scp-like address; write it as ssh://user@host/path`,
    };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(written)?.[1]?.toLowerCase();
  if (!scheme)
    return {
      problem: `${JSON.stringify(written)} is not a URL; write https://host/owner/name (a local repository: any URL followed by mirror=PATH)`,
    };
  if (!SCHEMES.includes(scheme))
    return {
      problem: `the scheme "${scheme}" is not supported; use https, http or ssh (a local repository: any URL followed by mirror=PATH)`,
    };
  const at = /^[^:]+:\/\/([^/?#]*@)/.exec(written)?.[1];
  let canonicalInput = written;
  if (at) {
    // A password or a token in a URL would be published with it and stored in the mirror.
    if (scheme !== 'ssh' || at.includes(':'))
      return {
        problem:
          "the URL holds credentials (user:password@ or token@ before the host); remove them and name the token's environment variable under scan.tokens in the config",
      };
    canonicalInput = written.replace(at, '');
  }
  const checked = checkRepositoryUrl(canonicalInput);
  if (!checked.ok) return { problem: `repository URL ${checked.fact}` };
  const afterScheme = checked.url.slice(checked.url.indexOf('://') + 3);
  const slash = afterScheme.indexOf('/');
  const path = afterScheme
    .slice(slash + 1)
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (path === '') return { problem: `${JSON.stringify(written)} names no repository path` };
  return { url: checked.url, host: afterScheme.slice(0, slash), path, source, fetchUrl: written };
}
