// Text that came from elsewhere (a git remote's stderr, a forge's answer) made safe to print,
// log or store: terminal control removed, and every secret's forms taken out. Shared by the git
// and forge sides of a scan, so both say a remote's words the same way.

// Terminal escape sequences, 7-bit and 8-bit: OSC/DCS/SOS/PM/APC strings (up to BEL or ST, or to
// the end when unterminated), CSI with its parameters, and the two-character escapes.
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]?',
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]?',
  ].join('|'),
  'g',
);
// C0 controls but tab and line feed, DEL, and the C1 controls left after the sequences.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` without terminal control: escape sequences (colours, window titles, cursor moves) and
 * control characters are removed, except tab and line feed; a carriage return becomes a line
 * feed (a remote's progress lines stay readable, none overwrites another).
 */
export function withoutControls(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/** Secrets shorter than this are not searched for: replacing "ab" everywhere would say nothing safely. */
const SHORTEST_SECRET = 4;

/**
 * The forms of a secret a message may quote: the raw value, its percent-encoding, and the
 * base64 of the value and of the `user:value` pairs HTTP Basic sends for it (the user names a
 * forge or git uses with a token), padded and not (a longer encoding holds the unpadded start).
 */
function secretForms(secret: string): string[] {
  if (secret.length < SHORTEST_SECRET) return [];
  const users = ['', 'x-access-token', 'oauth2', 'git', 'token', 'x-token-auth'];
  const encoded = users.map((u) =>
    Buffer.from(u === '' ? secret : `${u}:${secret}`, 'utf8').toString('base64'),
  );
  const forms = [
    secret,
    encodeURIComponent(secret),
    ...encoded,
    ...encoded.map((e) => e.replace(/=+$/, '')),
  ];
  return [...new Set(forms)]
    .filter((f) => f.length >= SHORTEST_SECRET)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every form of every secret (see secretForms) replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets)
    for (const form of secretForms(secret)) out = out.split(form).join('***');
  return out;
}

/**
 * A remote's or a forge's words, safe for a message: terminal control removed and secrets
 * redacted, after the removal too (a secret cut by an escape sequence is whole again then).
 */
export function remoteText(text: string, secrets: readonly string[] = []): string {
  return redactSecrets(withoutControls(redactSecrets(text, secrets)), secrets);
}
