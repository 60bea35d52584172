// Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool, a self-contained .NET binary per
// platform) validating reports with its SARIF and GitHub ingestion rules, as GitHub's own
// upload checks them. The bin wrapper runs it through a shell, which splits "Sarif;Gh" at the
// semicolon, so the binary is run directly.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

export interface MultitoolIssue {
  ruleId: string;
  level: string;
  text: string;
}

/** Every error and warning the Multitool reports for `report` (rule kinds Sarif and Gh). */
export function multitoolIssues(report: unknown): MultitoolIssue[] {
  const dir = mkdtempSync(join(tmpdir(), 'sarif-multitool-'));
  const input = join(dir, 'report.sarif');
  const output = join(dir, 'validation.sarif');
  writeFileSync(input, JSON.stringify(report, null, 1));
  const binary = require('@microsoft/sarif-multitool') as string;
  // Exit 1 means "results found"; the output file says which.
  try {
    execFileSync(binary, ['validate', '--rule-kind', 'Sarif;Gh', '--output', output, input], { stdio: 'pipe', timeout: 120_000, env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1' } });
  } catch (e) {
    if ((e as { status?: number }).status !== 1) throw e;
  }
  const log = JSON.parse(readFileSync(output, 'utf8')) as { runs: Array<{ results?: Array<{ ruleId: string; level?: string; message: { text?: string; id?: string; arguments?: string[] } }>; invocations?: Array<{ toolExecutionNotifications?: Array<{ message: { text: string } }> }> }> };
  const run = log.runs[0]!;
  const notes = (run.invocations ?? []).flatMap((i) => i.toolExecutionNotifications ?? []);
  if (notes.length > 0) throw new Error(`SARIF Multitool failed: ${notes.map((n) => n.message.text).join('; ')}`);
  return (run.results ?? []).map((r) => ({ ruleId: r.ruleId, level: r.level ?? 'warning', text: r.message.text ?? `${r.message.id} ${(r.message.arguments ?? []).join(' | ')}` }));
}
