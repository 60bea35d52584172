// The configuration every stage reads: site settings plus the active shape's thresholds.

export type Shape = 'A' | 'B';
export type StatusA = 'gold' | 'silver' | 'bronze' | 'fail';
export type BadgeStatus = StatusA | 'expired';

export interface Band {
  min: number;
  max: number | null;
  status: StatusA;
}

interface RuleText {
  id: string;
  name: string;
  description: string;
  help: string;
}

export interface NumericRuleA extends RuleText {
  type: 'numeric';
  unit: string;
  thresholds: Band[];
  /** Count rules with events: the window the events are counted in. */
  timeRangeInMonths?: number;
}

export interface BooleanRuleA extends RuleText {
  type: 'boolean';
  positiveStatus: StatusA;
  negativeStatus: StatusA;
}

export type RuleA = NumericRuleA | BooleanRuleA;

export interface BadgeDefA {
  id: string;
  informationUri: string;
  criteria: string[];
}

export interface ThresholdsA {
  shape: 'A';
  rules: RuleA[];
  badges: BadgeDefA[];
}

export interface SiteConfig {
  /** The file the settings came from (absent when built from defaults only). */
  file?: string;
  shape: Shape;
  baseUrl: string;
  store: string;
  out: string;
  thresholds: { A: string; B: string };
  decisions?: string;
  tool: { name: string; version: string; informationUri: string };
  cache: { latestMaxAge: number; immutableMaxAge: number };
  expireAfterDays: number | null;
  strictSarif: boolean;
  colors: Record<BadgeStatus | 'none', string>;
  s3: {
    region?: string;
    endpoint?: string;
    pathStyle?: boolean;
    concurrency: number;
    maxAttempts: number;
    requestChecksumCalculation?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
  };
}
