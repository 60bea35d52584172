// shields.io endpoint JSON (https://shields.io/badges/endpoint-badge): the same label,
// message and colour as our own SVG, so `img.shields.io/endpoint?url=…` draws the same badge
// with whatever style or logo the README author asks shields for. Latest results only:
// shields polls the URL and caches it for `cacheSeconds`, our short cache age.
import type { BadgeLook } from './svg.ts';

interface ShieldsEndpoint {
  schemaVersion: 1;
  label: string;
  message: string;
  /** Hex digits without '#', the form shields documents for `color`. */
  color: string;
  cacheSeconds: number;
}

export function shieldsEndpoint(look: BadgeLook, cacheSeconds: number): ShieldsEndpoint {
  return {
    schemaVersion: 1,
    label: look.label,
    message: look.message,
    color: look.color.replace(/^#/, ''),
    cacheSeconds,
  };
}
