// Entry point of the badgepress command (see src/commands/main.ts).
import { main } from './commands/main.ts';

process.exitCode = await main(process.argv.slice(2));
