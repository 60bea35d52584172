// Punycode (RFC 3492) for host labels: how a host such as bücher.example is written in ASCII
// (xn--bcher-kva.example). Pure and in the syntax CloudFront Functions run (no for…of, no
// default parameters): the WHATWG URL class that does this elsewhere is not there, and the
// build and every resolver must turn a host into the same key.

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;

// The dots IDNA reads as label separators.
const IDEOGRAPHIC_DOTS = /[\u3002\uff0e\uff61]/g;

/**
 * A host name in ASCII: what `new URL` makes of it for lower case, NFC and punycode, without
 * UTS 46's other mappings (full-width letters, ignored characters), which the URL class alone
 * carries. For runtimes without it (CloudFront Functions).
 */
export function asciiHostname(host: string): string {
  const labels = host.replace(IDEOGRAPHIC_DOTS, '.').split('.');
  for (let i = 0; i < labels.length; i++) labels[i] = asciiLabel(labels[i]!);
  return labels.join('.');
}

/** A host label in ASCII: lower-cased, and `xn--…` when it holds anything beyond ASCII. */
export function asciiLabel(label: string): string {
  // Only non-ASCII labels are case-folded by Unicode rules and normalised, as IDNA does.
  if (!/[^\x00-\x7f]/.test(label)) return label.toLowerCase();
  let folded = label.toLowerCase();
  if (typeof folded.normalize === 'function') folded = folded.normalize('NFC');
  return `xn--${encode(codePoints(folded))}`;
}

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out.push((c - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000);
      i++;
    } else out.push(c);
  }
  return out;
}

function digit(d: number): string {
  return String.fromCharCode(d < 26 ? 97 + d : 22 + d);
}

function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.floor(delta / 700) : delta >> 1;
  d += Math.floor(d / points);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + 38));
}

function encode(input: number[]): string {
  let output = '';
  for (let i = 0; i < input.length; i++) if (input[i]! < 0x80) output += String.fromCharCode(input[i]!);
  const basic = output.length;
  let handled = basic;
  if (basic > 0) output += '-';
  let n = 0x80;
  let delta = 0;
  let bias = 72;
  while (handled < input.length) {
    let m = Infinity;
    for (let i = 0; i < input.length; i++) if (input[i]! >= n && input[i]! < m) m = input[i]!;
    delta += (m - n) * (handled + 1);
    n = m;
    for (let i = 0; i < input.length; i++) {
      if (input[i]! < n) delta++;
      if (input[i] !== n) continue;
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
        if (q < t) break;
        output += digit(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      output += digit(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return output;
}
