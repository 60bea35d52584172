// Entry point of the badgepress command (see src/commands/main.ts).
import { main } from './commands/main.ts';

// Some Node releases call JSON modules (the schemas the config
// and store loaders import) experimental and warn on every run, though they work the same:
// drop that one warning and print every other as Node would.
const printWarning = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && /JSON modules/.test(warning.message)) return;
  for (const print of printWarning) print(warning);
});

process.exitCode = await main(process.argv.slice(2));
