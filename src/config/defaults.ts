// The site settings a config file may leave out, in one place: the loader fills them in and
// the resolver falls back to the same cache ages when an adapter is given none.
// config/badgepress.yaml spells out the same values for readers. Separate constants, so a
// bundle (the Worker) takes only what it uses.
import type { Settings } from './types.ts';

export const DEFAULT_SHAPE = 'A';
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';
/** The tool named in reports; its informationUri defaults to the site's own home page (baseUrl). */
export const DEFAULT_TOOL: Readonly<Pick<Settings['tool'], 'name' | 'version'>> = {
  name: 'badgepress',
  version: '0.1.0',
};

// Silver is a slate of its own, never the plain grey (#9f9f9f, shields' "lightgrey") of the
// resolver's error badge: a silver badge must not read as a broken one (white text on it
// 4.61:1, against that grey 1.74:1; test/site-read.test.ts). `none` (Shape B, no level
// granted) is a light grey of its own, never silver's colour: a badge must not look silver
// when nothing is granted. `unknown` (Shape A, no value measured) is a mid grey of its own:
// never fail's red (our missing measurement is not the project's failure), and neither
// expired's dark grey nor the error badge's (white text on it 4.54:1).
export const DEFAULT_COLORS: Readonly<Settings['colors']> = {
  gold: '#dfb317',
  silver: '#64778c',
  bronze: '#cd7f32',
  fail: '#e05d44',
  unknown: '#767676',
  expired: '#555555',
  none: '#bbbbbb',
};

export const DEFAULT_S3: Readonly<
  Pick<
    Settings['s3'],
    'concurrency' | 'maxAttempts' | 'connectTimeoutSeconds' | 'requestTimeoutSeconds'
  >
> = {
  concurrency: 64,
  maxAttempts: 5,
  connectTimeoutSeconds: 10,
  requestTimeoutSeconds: 60,
};

/** `scan:` defaults; `mirrors` is resolved by the loader. */
export const DEFAULT_SCAN: Readonly<Omit<Settings['scan'], 'mirrors'>> = {
  concurrency: 4,
  perHost: 'auto',
  horizonMonths: 12,
  busFactorMonths: 12,
  botPatterns: [],
  tokens: {},
  timeoutSeconds: 600,
  retries: 2,
};
