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

// Characters that end a line for Python or IPython: a name holding one cannot be written
// on a `%ctx` line (the rest of the name would run as the next line of code).
// eslint-disable-next-line no-control-regex -- these control characters are what it finds
const LINE_BREAK = /[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- escaping control characters is its purpose
const UNSAFE_IN_LITERAL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** ``text`` as a Python string literal on one line (every control or separator escaped). */
function pythonString(text: string): string {
  return JSON.stringify(text).replace(UNSAFE_IN_LITERAL, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `%ctx <command> --flag value … -- positional…` with every value quoted (a null value: a
 * flag that takes none). A value holding a
 * line break is written as one Python line that runs the same magic instead
 * (`get_ipython().run_line_magic('ctx', "…")`): the magic's own splitting keeps the break
 * inside the quoted value, and nothing of it can become a line of code. */
export function magicLine(command: string, flags: [string, string | null][], positional: string[] = []): string {
  const parts = [command];
  for (const [flag, value] of flags) {
    parts.push(flag);
    if (value !== null) {
      parts.push(magicArgument(value));
    }
  }
  if (positional.length) {
    parts.push('--', ...positional.map(magicArgument));
  }
  const values = [...flags.map(([, value]) => value ?? ''), ...positional];
  if (values.some(value => LINE_BREAK.test(value))) {
    return `get_ipython().run_line_magic('ctx', ${pythonString(parts.join(' '))})`;
  }
  return ['%ctx', ...parts].join(' ');
}
