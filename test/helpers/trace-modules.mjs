// `node --import ./trace-modules.mjs …`: appends the URL of every module the process imports,
// one a line, to the file named by $BADGEPRESS_MODULE_TRACE (test/cli-startup.test.ts).
import { register } from 'node:module';

register('./trace-modules-hooks.mjs', import.meta.url);
