/**
 * The scripts the cluster pre-flight runs on each node over ssh, and the parser of what they print.
 * One Python program (stdlib only, Python 3.5 or newer, so it runs on any image with python3) with
 * three modes:
 *
 * - `reach RANK PORT WAIT ADDR…`: listens on its own overlay address and port, dials every other
 *   node's (retrying until WAIT seconds pass, since peers start at slightly different times), and
 *   trades a line with each: `gpu-rental-preflight RANK`. Prints `reach K ok` or `reach K <why>`
 *   for each peer, `heard K` for each peer that reached it, `listen-failed <why>` when it cannot listen.
 * - `recv PORT WAIT PEER ADDR`: node 0 listens, takes one connection from PEER, answers `go` and
 *   times what arrives until the sender closes. Prints `recv BYTES SECONDS`.
 * - `send PORT WAIT RANK ADDR BYTES LIMIT`: dials node 0, waits for `go`, sends BYTES zeros (or
 *   what LIMIT seconds allow) and closes. Prints `sent BYTES`.
 *
 * Every line printed starts with `gpu-rental-preflight `, so a login banner cannot be taken for an
 * answer. The program sets an alarm first: it ends by itself even when the ssh session that
 * started it was cut (a Cancel), so nothing stays listening on a node. The program is a constant;
 * the values (ranks, ports, addresses, sizes) travel as argv words, each checked by the caller and
 * quoted for the shell all the same.
 */

import { shellQuote } from '../../shell';
import PROGRAM from './remote/probe.py';

/** The first word of every line the probe prints. */
export const PROBE_TAG = 'gpu-rental-preflight';

/** The sh script that runs the probe with these argv words, or prints `no-python3` when the node has none. */
export function probeScript(words: ReadonlyArray<string | number>): string {
  return [
    `command -v python3 >/dev/null 2>&1 || { printf '%s\\n' '${PROBE_TAG} no-python3'; exit 0; }`,
    `exec python3 -c ${shellQuote(PROGRAM)} ${words.map((w) => shellQuote(String(w))).join(' ')}`,
    '',
  ].join('\n');
}

/** One line the probe printed, read strictly: anything else is ignored. */
export type ProbeLine =
  | { readonly kind: 'reach'; readonly peer: number; readonly result: string }
  | { readonly kind: 'heard'; readonly peer: number }
  | { readonly kind: 'listen-failed' | 'recv-failed' | 'send-failed'; readonly why: string }
  | { readonly kind: 'no-python3' }
  | { readonly kind: 'recv'; readonly bytes: number; readonly seconds: number }
  | { readonly kind: 'sent'; readonly bytes: number };

const WORD = '[a-z][a-z0-9-]{0,31}';
const PATTERNS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => ProbeLine]> = [
  [new RegExp(`^reach (\\d{1,4}) (${WORD})$`), (m) => ({ kind: 'reach', peer: Number(m[1]), result: m[2]! })],
  [/^heard (\d{1,4})$/, (m) => ({ kind: 'heard', peer: Number(m[1]) })],
  [
    new RegExp(`^(listen-failed|recv-failed|send-failed) (${WORD})$`),
    (m) => ({ kind: m[1] as 'listen-failed' | 'recv-failed' | 'send-failed', why: m[2]! }),
  ],
  [/^no-python3$/, () => ({ kind: 'no-python3' })],
  [/^recv (\d{1,12}) (\d{1,6}\.\d{1,9})$/, (m) => ({ kind: 'recv', bytes: Number(m[1]), seconds: Number(m[2]) })],
  [/^sent (\d{1,12})$/, (m) => ({ kind: 'sent', bytes: Number(m[1]) })],
];

/** The probe's lines in what a node printed; a line without the tag, or not of a known shape, is left out. */
export function parseProbe(output: string): ProbeLine[] {
  const lines: ProbeLine[] = [];
  for (const raw of output.split('\n')) {
    const text = raw.trim();
    if (!text.startsWith(`${PROBE_TAG} `)) continue;
    const rest = text.slice(PROBE_TAG.length + 1);
    for (const [pattern, read] of PATTERNS) {
      const m = pattern.exec(rest);
      if (m) {
        lines.push(read(m));
        break;
      }
    }
  }
  return lines;
}
