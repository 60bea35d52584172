// `.mailmap` as git reads it (gitmailmap(5)), applied in code so that one `git log` serves
// every scan time, each with the mailmap of its own commit. The parsing follows git's own
// (mailmap.c: parse_name_and_email, read_mailmap_line, add_mapping, map_user), not its manual:
// only a line that starts with `#` is a comment, so a `#` inside an entry is part of it, and
// text after an entry's last `>` that holds no `<…>` is ignored. Names and e-mails compare
// case-insensitively in ASCII only (strcasecmp); names are trimmed of C whitespace only.
// test/mailmap.test.ts compares every identity with `git check-mailmap`.

interface Replacement {
  name?: string;
  email?: string;
}

interface Entry extends Replacement {
  /** Replacements for one old name at this e-mail (ASCII case-insensitive). */
  byName: Map<string, Replacement>;
}

export interface Identity {
  name: string;
  email: string;
}

export interface Mailmap {
  map(identity: Identity): Identity;
}

/** ASCII lower case (git's tolower and strcasecmp): "É" stays "É". */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

// C isspace in git's locale: space, \t, \n, \v, \f, \r.
const trimC = (s: string): string => s.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');

/**
 * git's parse_name_and_email: the first `<`, the first `>` after it, the name before (trimmed,
 * undefined when empty), and what follows the `>` (undefined when nothing does). Undefined
 * without both brackets, or with an empty e-mail where none is allowed.
 */
function nameAndEmail(
  text: string,
  allowEmptyEmail: boolean,
): { name?: string; email: string; rest?: string } | undefined {
  const open = text.indexOf('<');
  if (open < 0) return undefined;
  const close = text.indexOf('>', open + 1);
  if (close < 0 || (!allowEmptyEmail && close === open + 1)) return undefined;
  const name = trimC(text.slice(0, open));
  const rest = text.slice(close + 1);
  return {
    ...(name ? { name } : {}),
    email: text.slice(open + 1, close),
    ...(rest ? { rest } : {}),
  };
}

export function parseMailmap(text: string): Mailmap {
  const entries = new Map<string, Entry>();
  // git reads a mailmap blob as a C string: nothing after a NUL.
  const nul = text.indexOf('\0');
  for (const line of (nul >= 0 ? text.slice(0, nul) : text).split('\n')) {
    if (line.startsWith('#')) continue;
    const first = nameAndEmail(line, false);
    if (!first) continue;
    const second = first.rest === undefined ? undefined : nameAndEmail(first.rest, true);
    // "New <new> Old <old>" or "<new> <old>": the second e-mail is the one commits carry.
    const oldEmail = asciiLower((second ?? first).email);
    const replacement: Replacement = {
      ...(first.name ? { name: first.name } : {}),
      ...(second ? { email: first.email } : {}),
    };
    let entry = entries.get(oldEmail);
    if (!entry) entries.set(oldEmail, (entry = { byName: new Map() }));
    if (second?.name === undefined) {
      if (replacement.name) entry.name = replacement.name;
      if (replacement.email) entry.email = replacement.email;
    } else {
      // A later line for the same old name and e-mail replaces the earlier one whole.
      entry.byName.set(asciiLower(second.name), replacement);
    }
  }
  return {
    map(identity) {
      const entry = entries.get(asciiLower(identity.email));
      if (!entry) return identity;
      const r: Replacement = entry.byName.get(asciiLower(identity.name)) ?? entry;
      return { name: r.name ?? identity.name, email: r.email ?? identity.email };
    },
  };
}

export const NO_MAILMAP: Mailmap = { map: (identity) => identity };
