// `.mailmap` as git reads it (gitmailmap(5); git's mailmap.c), applied in code so that one
// `git log` serves every scan time, each with the mailmap of its own commit.

interface Replacement {
  name?: string;
  email?: string;
}

interface Entry extends Replacement {
  /** Replacements for one old name at this e-mail (case-insensitive). */
  byName: Map<string, Replacement>;
}

export interface Identity {
  name: string;
  email: string;
}

export interface Mailmap {
  map(identity: Identity): Identity;
}

/** One `Name <email>` at the start of `text`, and what follows it. */
function nameAndEmail(text: string): { name?: string; email: string; rest: string } | undefined {
  const open = text.indexOf('<');
  if (open < 0) return undefined;
  const close = text.indexOf('>', open + 1);
  if (close < 0) return undefined;
  const name = text.slice(0, open).trim();
  return { ...(name ? { name } : {}), email: text.slice(open + 1, close), rest: text.slice(close + 1) };
}

export function parseMailmap(text: string): Mailmap {
  const entries = new Map<string, Entry>();
  for (const raw of text.split('\n')) {
    const hash = raw.indexOf('#');
    const line = hash >= 0 ? raw.slice(0, hash) : raw;
    const first = nameAndEmail(line);
    if (!first) continue;
    const second = nameAndEmail(first.rest);
    // "New <new> Old <old>" or "<new> <old>": the second e-mail is the one commits carry.
    const oldEmail = (second ?? first).email.toLowerCase();
    const oldName = second?.name;
    const replacement: Replacement = { ...(first.name ? { name: first.name } : {}), ...(second ? { email: first.email } : {}) };
    let entry = entries.get(oldEmail);
    if (!entry) entries.set(oldEmail, (entry = { byName: new Map() }));
    if (oldName === undefined) {
      if (replacement.name) entry.name = replacement.name;
      if (replacement.email) entry.email = replacement.email;
    } else {
      const byName = entry.byName.get(oldName.toLowerCase()) ?? {};
      if (replacement.name) byName.name = replacement.name;
      if (replacement.email) byName.email = replacement.email;
      entry.byName.set(oldName.toLowerCase(), byName);
    }
  }
  return {
    map(identity) {
      const entry = entries.get(identity.email.toLowerCase());
      if (!entry) return identity;
      const r: Replacement = entry.byName.get(identity.name.toLowerCase()) ?? entry;
      return { name: r.name ?? identity.name, email: r.email ?? identity.email };
    },
  };
}

export const NO_MAILMAP: Mailmap = { map: (identity) => identity };
