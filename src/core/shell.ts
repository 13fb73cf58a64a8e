/**
 * POSIX shell quoting, the one copy core uses: a word of safe characters as it is, anything else in
 * single quotes (a quote inside becomes '\''). It keeps the shell from acting on the word; it does
 * not keep a command from reading a leading "-" as an option, which is why callers check or prefix
 * such words (hosts are checked, paths get `./` or `--`).
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `name=value` words, each value quoted: how a script sent to an instance gets its parameters, on
 * a line before its static body. The names are the caller's own constants, never a user's text.
 */
export function shellAssignments(values: Readonly<Record<string, string | number>>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}=${shellQuote(String(value))}`)
    .join(' ');
}

/** `bash -c '<script>'`: the remote login shell may not be bash; the scripts sent to instances are. */
export function bashCommand(script: string): string {
  return `bash -c ${shellQuote(script)}`;
}
