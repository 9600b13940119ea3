/**
 * Writing %ctx lines that run exactly what they say, whatever a folder is called. The `%ctx`
 * magic opts out of IPython's `{expression}` and `$name` expansion (`no_var_expand`), so a
 * name like `{open("x", "w")}` stays a name; what remains is the magic's shell-style splitting:
 * every value is shell-quoted (so spaces and `-o` add no flags) and positional arguments
 * follow `--`.
 */

const PLAIN = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** One argument, safe from the magic's shell-style splitting. */
export function magicArgument(value: string): string {
  if (value && PLAIN.test(value) && !value.startsWith('-')) {
    return value;
  }
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/** `%ctx <command> --flag value … -- positional…` with every value quoted. */
export function magicLine(command: string, flags: [string, string][], positional: string[] = []): string {
  const parts = ['%ctx', command];
  for (const [flag, value] of flags) {
    parts.push(flag, magicArgument(value));
  }
  if (positional.length) {
    parts.push('--', ...positional.map(magicArgument));
  }
  return parts.join(' ');
}
