// Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool, a self-contained .NET binary per
// platform) validating reports with its SARIF and GitHub ingestion rules, as GitHub's own
// upload checks them. The bin wrapper runs it through a shell, which splits "Sarif;Gh" at the
// semicolon, so the binary is run directly.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

export interface MultitoolIssue {
  ruleId: string;
  level: string;
  text: string;
}

/**
 * Every error and warning the Multitool reports for each of `reports` (rule kinds Sarif and
 * Gh), in one run of the tool: its .NET start costs seconds, so reports are checked together
 * and each result is given back to the file it names.
 */
export function multitoolIssues(...reports: unknown[]): MultitoolIssue[][] {
  const dir = mkdtempSync(join(tmpdir(), 'sarif-multitool-'));
  const inputs = reports.map((report, i) => {
    const input = join(dir, `report-${i}.sarif`);
    writeFileSync(input, JSON.stringify(report, null, 1));
    return input;
  });
  const output = join(dir, 'validation.sarif');
  const binary = require('@microsoft/sarif-multitool') as string;
  // Exit 1 means "results found"; the output file says which.
  try {
    execFileSync(binary, ['validate', '--rule-kind', 'Sarif;Gh', '--output', output, ...inputs], {
      stdio: 'pipe',
      timeout: 120_000,
      env: {
        ...process.env,
        DOTNET_CLI_TELEMETRY_OPTOUT: '1',
        DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1',
      },
    });
  } catch (e) {
    if ((e as { status?: number }).status !== 1) throw e;
  }
  type Result = {
    ruleId: string;
    level?: string;
    message: { text?: string; id?: string; arguments?: string[] };
    locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string } } }>;
  };
  const log = JSON.parse(readFileSync(output, 'utf8')) as {
    runs: Array<{
      results?: Result[];
      invocations?: Array<{ toolExecutionNotifications?: Array<{ message: { text: string } }> }>;
    }>;
  };
  const run = log.runs[0]!;
  const notes = (run.invocations ?? []).flatMap((i) => i.toolExecutionNotifications ?? []);
  if (notes.length > 0)
    throw new Error(`SARIF Multitool failed: ${notes.map((n) => n.message.text).join('; ')}`);
  const issues: MultitoolIssue[][] = reports.map(() => []);
  for (const r of run.results ?? []) {
    const uri = r.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? '';
    const i = inputs.findIndex((input) => uri === pathToFileURL(input).href);
    if (i < 0)
      throw new Error(
        `SARIF Multitool: a result names no input file (${uri || 'no location'}): ${JSON.stringify(r)}`,
      );
    issues[i]!.push({
      ruleId: r.ruleId,
      level: r.level ?? 'warning',
      text: r.message.text ?? `${r.message.id} ${(r.message.arguments ?? []).join(' | ')}`,
    });
  }
  return issues;
}

/**
 * Of a plain report's issues, those it should not have: any but GitHub's ingestion rules
 * (GH…: for the code-scanning file) and two warnings the documented shapes' own words draw,
 * SARIF1001 (a thresholds file names a rule its id but for case: the shipped "Dependents",
 * "Commits") and SARIF2005 (Shape B's driver has no version, as the contract documents it).
 */
export function unexpectedInPlainReport(issues: readonly MultitoolIssue[]): MultitoolIssue[] {
  return issues.filter((i) => !/^(GH\d+|SARIF1001|SARIF2005)$/.test(i.ruleId));
}
