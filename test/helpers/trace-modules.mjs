// `node --import ./trace-modules.mjs …`: appends the URL of every module the process imports,
// one a line, to the file named by $BADGEPRESS_MODULE_TRACE (test/cli-startup.test.ts); at exit
// also every CommonJS module it required (require.cache), which the import hooks do not see.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./trace-modules-hooks.mjs', import.meta.url);

const required = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const lines = Object.keys(required).map((path) => `${pathToFileURL(path).href}\n`);
  appendFileSync(process.env.BADGEPRESS_MODULE_TRACE, lines.join(''));
});
