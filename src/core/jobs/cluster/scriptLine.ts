/**
 * The script box of Run on Cluster: "train.py --epochs 3", where the script's path may hold spaces
 * when quoted ('my dir/train.py' or "my dir/train.py"). Its first word is the script; the rest,
 * as typed, its arguments.
 */
import { l10n } from '../../l10n';

/** How a script's path is shown in the box: as is, or in single quotes when it holds a space or a quote. */
export function scriptBoxValue(script: string | undefined): string {
  if (!script) return '';
  if (!/[\s'"]/.test(script)) return script;
  return script.includes("'") ? `"${script}"` : `'${script}'`;
}

/** The script and its arguments, or why the line cannot be read (an open quote). */
export function splitScriptLine(line: string): { script: string; args?: string } | { problem: string } {
  const text = line.trim();
  const quote = text[0];
  if (quote === "'" || quote === '"') {
    const end = text.indexOf(quote, 1);
    if (end < 0) return { problem: l10n.t('The quote before the script path is never closed. Close it after the path.') };
    const script = text.slice(1, end);
    const after = text.slice(end + 1);
    if (after !== '' && !/^\s/.test(after)) return { problem: l10n.t('Put a space between the quoted script path and its arguments.') };
    if (script.trim() === '') return { problem: l10n.t('Type the script to run, e.g. train.py') };
    const args = after.trim();
    return args ? { script, args } : { script };
  }
  const [script, ...rest] = text.split(/\s+/);
  if (!script) return { problem: l10n.t('Type the script to run, e.g. train.py') };
  const args = text.slice(script.length).trim();
  return rest.length && args ? { script, args } : { script };
}
