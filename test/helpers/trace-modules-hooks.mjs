// Module hooks (they run on Node's hooks thread): note each resolved URL, change nothing.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.BADGEPRESS_MODULE_TRACE, `${resolved.url}\n`);
  return resolved;
}
