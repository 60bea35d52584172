// What both report shapes share: the SARIF envelope, public badge URLs and stable JSON bytes.
import type { Settings } from '../config/types.ts';
import { dataAgeDays, type Provenance } from '../evaluate/evidence.ts';
import { API_PREFIX, rulePagePath } from '../model/layout.ts';
import type { Revision } from '../model/stored-value.ts';

/** What a report or explanation of one repository is written with. */
export interface ReportContext {
  settings: Settings;
  encoded: string;
}

const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

export function sarifEnvelope(run: object): object {
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [run] };
}

/** The public, dynamic badge address a report points to. */
export function publicBadgeUrl(
  baseUrl: string,
  encoded: string,
  badgeId: string,
  timestamp: number,
): string {
  return `${baseUrl}/${API_PREFIX}${encoded}/badges/${badgeId}.svg?timestamp=${timestamp}`;
}

/** A badge's information address: the configured one, else the site's own badge page. */
export function badgeInformationUri(
  baseUrl: string,
  def: { id: string; informationUri?: string },
): string {
  return def.informationUri ?? `${baseUrl}/badges/${def.id}/`;
}

/** Each SARIF rule's helpUri: the site's page of the rule. */
export function ruleHelpUri(baseUrl: string, ruleId: string): string {
  return `${baseUrl}/${rulePagePath(ruleId)}`;
}

/** Objects are built in a fixed key order, so stringify alone gives deterministic bytes. */
export function jsonBytes(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * A criterion's `provenance` extension member (explanations and SARIF result properties, both
 * shapes): the evidence beside its value, the commit measured and how old its data was at the
 * scan, in a fixed key order.
 */
export function provenanceObject(p: Provenance): object {
  const r = p.revision;
  return {
    evidence: p.evidence,
    ...(r
      ? {
          commit: r.commit,
          committedAt: r.committedAt,
          ...(r.branch !== undefined ? { branch: r.branch } : {}),
          dataAgeDays: dataAgeDays(r, p.scannedAt),
        }
      : {}),
    scannedAt: p.scannedAt,
  };
}

/**
 * The uriBaseId of the scanned repository's root. A report's `versionControlProvenance` maps
 * the repository to it (`mappedTo`) and `originalUriBaseIds` declares it, so a location given
 * relative to it is repo-relative (SARIF 2.1.0's `versionControlDetails.mappedTo`;
 * Multitool's SARIF2007 asks for it).
 */
export const REPOSITORY_ROOT = '%SRCROOT%';

/** SARIF `run.originalUriBaseIds`: the repository root, described (where it is checked out is the reader's). */
export const ORIGINAL_URI_BASE_IDS = {
  [REPOSITORY_ROOT]: { description: { text: 'The root of the scanned repository.' } },
} as const;

/**
 * SARIF `run.versionControlProvenance`: the repository, mapped to REPOSITORY_ROOT, and, when
 * the record names it, the commit measured.
 */
export function versionControlProvenance(
  repositoryUri: string,
  revision: Revision | undefined,
): object[] {
  return [
    {
      repositoryUri,
      ...(revision
        ? {
            revisionId: revision.commit,
            ...(revision.branch !== undefined ? { branch: revision.branch } : {}),
          }
        : {}),
      mappedTo: { uriBaseId: REPOSITORY_ROOT },
    },
  ];
}
