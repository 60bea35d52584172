// Generators of hostile requests, shared by the property tests of every resolver adapter.
import fc from 'fast-check';
import { WIDGET } from '../conformance/fixture.ts';

export const HOSTILE = [
  '..',
  '%2e%2e',
  '%2E%2E',
  '%252e%252e',
  '.',
  '%00',
  '\u0000',
  '%0d%0a',
  '\r\n',
  '%C3%28',
  '%FF',
  '%E0%A4%A',
  '%',
  '%%',
  '//',
  '\\',
  '%5c',
  'secret.txt',
  '..%2f',
  '%2f..%2f',
  'at',
  '123',
  'badges',
  'sarif',
  '.svg',
  'index.json',
  'expired',
  'MAINTENANCE',
  'https:',
  'https%3A%2F%2F',
  'γ',
  '%CE%B3',
  '?',
  '#',
  ';',
  'x'.repeat(300),
  '%25',
  '+',
  ' ',
];
export const segment = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^[%0-9A-Fa-f./]{0,12}$/),
);
export const hostilePath = fc.oneof(
  fc.array(segment, { maxLength: 8 }).map((s) => `/api/v1/repositories/${s.join('/')}`),
  fc.array(segment, { maxLength: 6 }).map((s) => `/api/v1/repositories/${WIDGET}/${s.join('/')}`),
  fc.array(segment, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
  fc
    .array(segment, { maxLength: 4 })
    .map((s) => `/api/v1/repositories/${s.join('')}/badges/${s.join('')}.svg`),
);
export const hostileQuery = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'timestamp=1762000000',
          'timestamp=',
          'timestamp',
          'timestamp=-1',
          'timestamp=1e9',
          'timestamp=%31',
          'timestamp=9007199254740993',
          'a=b',
        ),
        segment.map((s) => `timestamp=${s}`),
      ),
      { maxLength: 3 },
    )
    .map((q) => q.join('&')),
);
export const method = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'get',
  'X\r\nY',
);
