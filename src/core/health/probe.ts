import { l10n } from '../l10n';
import { visibleText } from '../text';
import {
  GPU_FIELDS,
  readFailed,
  readGpuCsv,
  readGpuMatrix,
  readOk,
  readVersion,
  type GpuMatrix,
  type GpuRow,
  type Read,
  type SmiVersion,
} from './smi';

/**
 * The health check's one ssh round trip: a bash script that prints tagged sections (the GPU query,
 * the versions, both topology matrices, the disk's size and free space, a short write) and the
 * reader that splits them. Every part runs under `timeout`, so a hung driver costs seconds, not the
 * check; a part that fails still ends its section with its exit status.
 */

/** The sections the script prints, in order. */
export const SECTIONS = ['gpus', 'version', 'p2p', 'topo', 'disk', 'write'] as const;
export type Section = (typeof SECTIONS)[number];

/** The bytes the write test writes (and removes): 256 MiB, flushed to the disk before dd reports. */
export const WRITE_BYTES = 256 * 1024 * 1024;
/** The write test is skipped when the folder has less free than this, so a nearly full disk is not filled. */
export const WRITE_MIN_FREE_KIB = 1024 * 1024;
/** Seconds each part may take; the write's limit bounds the slowest disk it can measure (256 MiB in 30 s: 9 MB/s). */
export const PART_TIMEOUT_S = 15;
export const WRITE_TIMEOUT_S = 30;
/** What the whole script may take before ssh is given up on: every part's limit, and the connection. */
export const SCRIPT_TIMEOUT_MS = (5 * PART_TIMEOUT_S + WRITE_TIMEOUT_S + 30) * 1000;

/** The section marker: text a tool cannot print by accident, with this run's nonce in it. */
function marker(nonce: string, edge: 'begin' | 'end', section: string): string {
  return `@@gpu-rental-health ${nonce} ${edge} ${section}`;
}

/** Shell text: written as bash reads it (a backslash stays a backslash), and not prose to localise. */
const sh = String.raw;

/** One word for bash, single-quoted. */
function q(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The script, for `bash -s` or as ssh's command. `nonce` marks the sections (its letters and digits
 * are kept; the caller makes a new one per run). The folder checked is /workspace when it is writable (where
 * the service's images keep work), else the home folder.
 */
export function healthScript(nonce: string): string {
  const mark = nonce.replace(/[^A-Za-z0-9]/g, '').slice(0, 64) || 'nonce';
  const part = (section: Section, command: string) =>
    [
      sh`printf '%s\n' ${q(marker(mark, 'begin', section))}`,
      sh`out=$( { ${command}; } 2>&1 ); rc=$?`,
      sh`printf '%s\n' "$out"`,
      sh`printf '%s %s\n' ${q(marker(mark, 'end', section))} "$rc"`,
    ].join('\n');
  const smi = (args: string) => sh`timeout ${PART_TIMEOUT_S} nvidia-smi ${args}`;
  const file = sh`"$dir/.gpu-rental-health-$$"`;
  const write = [
    sh`free=$(timeout ${PART_TIMEOUT_S} df -Pk "$dir" | awk 'NR==2 {print $4}')`,
    sh`if [ "${'$'}{free:-0}" -lt ${WRITE_MIN_FREE_KIB} ]; then echo "skipped: $free KiB free"; exit 3; fi`,
    sh`timeout ${WRITE_TIMEOUT_S} dd if=/dev/zero of=${file} bs=1M count=${WRITE_BYTES / 1024 / 1024} conv=fdatasync; r=$?`,
    sh`rm -f ${file}`,
    sh`exit $r`,
  ];
  return [
    sh`export LC_ALL=C`,
    sh`dir=/workspace`,
    sh`{ [ -d "$dir" ] && [ -w "$dir" ]; } || dir=$HOME`,
    part('gpus', smi(sh`${q(`--query-gpu=${GPU_FIELDS.join(',')}`)} --format=csv,noheader,nounits`)),
    // Older drivers have no --version: the banner of plain nvidia-smi says the same.
    part('version', sh`${smi('--version')} || ${smi('')}`),
    part('p2p', smi(sh`topo -p2p r`)),
    part('topo', smi(sh`topo -m`)),
    part('disk', sh`timeout ${PART_TIMEOUT_S} df -Pk "$dir"`),
    part('write', `(${write.join('; ')})`),
  ].join('\n');
}

/** One section's output and its exit status (undefined when the script stopped before its end). */
export interface SectionOutput {
  text: string;
  rc?: number;
}

/**
 * The script's output split into its sections. Text outside the markers (a login banner) is left
 * out; a section that began but never ended keeps what it printed, with no status.
 */
export function splitSections(stdout: string, nonce: string): Map<Section, SectionOutput> {
  const found = new Map<Section, SectionOutput>();
  let current: { section: Section; lines: string[] } | undefined;
  const known = (s: string): s is Section => (SECTIONS as readonly string[]).includes(s);
  for (const line of stdout.split(/\r?\n/)) {
    const begin = line.startsWith(marker(nonce, 'begin', '')) ? line.slice(marker(nonce, 'begin', '').length) : undefined;
    if (begin !== undefined && known(begin)) {
      if (current) found.set(current.section, { text: current.lines.join('\n') });
      current = { section: begin, lines: [] };
      continue;
    }
    if (current && line.startsWith(marker(nonce, 'end', current.section) + ' ')) {
      const rc = Number(line.slice(marker(nonce, 'end', current.section).length + 1));
      found.set(current.section, { text: current.lines.join('\n'), rc: Number.isInteger(rc) ? rc : undefined });
      current = undefined;
      continue;
    }
    current?.lines.push(line);
  }
  if (current) found.set(current.section, { text: current.lines.join('\n') });
  return found;
}

/** The disk the check looked at: the folder's file system, from `df -Pk`. */
export interface DiskSpace {
  folder: string;
  sizeBytes: number;
  freeBytes: number;
}

/** The write test: how fast 256 MiB reached the disk, or why it did not run. */
export type WriteSpeed = { kind: 'measured'; bytesPerSecond: number } | { kind: 'skipped'; freeBytes?: number } | { kind: 'tooSlow' };

/** Everything one run of the script says. Each part is read on its own: one unreadable part spoils only itself. */
export interface HealthReading {
  /** nvidia-smi was found on the machine (false: missing, so every GPU part is unreadable). */
  smiFound: boolean;
  gpus: Read<GpuRow[]>;
  version: Read<SmiVersion>;
  p2p: Read<GpuMatrix>;
  topo: Read<GpuMatrix>;
  disk: Read<DiskSpace>;
  write: Read<WriteSpeed>;
}

/** timeout's status when the command ran out of time, and the shell's when it was not found. */
const TIMED_OUT = 124;
const NOT_FOUND = 127;

function smiPart<T>(out: SectionOutput | undefined, read: (text: string) => Read<T>, readEmpty?: () => Read<T>): Read<T> {
  if (!out) return readFailed(l10n.t('the script did not get this far'));
  if (out.rc === NOT_FOUND) return readFailed(l10n.t('nvidia-smi not found'));
  if (out.rc === TIMED_OUT) return readFailed(l10n.t('nvidia-smi did not answer in time'));
  // A machine whose GPUs the driver cannot see: no rows, which the verdict counts against the offer.
  if (/No devices were found/i.test(out.text)) return readEmpty ? readEmpty() : readFailed(l10n.t('nvidia-smi found no GPU'));
  if (out.rc !== 0) return readFailed(l10n.t('nvidia-smi exited with {0}: {1}', out.rc ?? '?', firstLine(out.text)));
  return read(out.text);
}

/** The first line the machine printed, hidden characters shown as escapes (it goes into a message). */
function firstLine(text: string): string {
  return visibleText((text.split('\n').find((l) => l.trim() !== '') ?? '').trim(), 200);
}

/**
 * `df -Pk FOLDER`: a header, then "Filesystem 1024-blocks Used Available Capacity Mounted-on" (a
 * long device name stays on one line with -P).
 */
export function readDf(text: string): Read<DiskSpace> {
  const line = text.split(/\r?\n/).find((l, i) => i > 0 && /\s\d+\s+\d+\s+\d+\s+\d+%\s+\//.test(l));
  const m = line && /\s(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s+(\/.*)$/.exec(line);
  if (!m) return readFailed(l10n.t('df printed no file system'));
  return readOk({ folder: m[4]!.trim(), sizeBytes: Number(m[1]) * 1024, freeBytes: Number(m[3]) * 1024 });
}

/**
 * GNU dd's summary: "268435456 bytes (268 MB, 256 MiB) copied, 0.42 s, 639 MB/s" (busybox: "…
 * bytes (256.0MB) copied, 0.42 seconds, 609.5MB/s"). The speed is worked out from the bytes and the
 * seconds, whatever unit dd chose.
 */
export function readDd(text: string): Read<WriteSpeed> {
  const m = /(\d+) bytes .*copied, ([\d.]+(?:e[-+]?\d+)?) s/.exec(text);
  if (!m) return readFailed(l10n.t('dd printed no summary'));
  const bytes = Number(m[1]);
  const seconds = Number(m[2]);
  if (!(bytes > 0)) return readFailed(l10n.t('dd wrote nothing'));
  return readOk({ kind: 'measured', bytesPerSecond: bytes / Math.max(seconds, 1e-3) });
}

/** Reads every section of the script's output. */
export function readHealthOutput(stdout: string, nonce: string): HealthReading {
  const s = splitSections(stdout, nonce);
  const gpus = s.get('gpus');
  const smiFound = gpus !== undefined && gpus.rc !== NOT_FOUND;
  const disk = s.get('disk');
  const write = s.get('write');
  return {
    smiFound,
    gpus: smiPart(
      gpus,
      (t) => readGpuCsv(t),
      () => readOk([]),
    ),
    version: smiPart(s.get('version'), readVersion),
    p2p: smiPart(s.get('p2p'), readGpuMatrix),
    topo: smiPart(s.get('topo'), readGpuMatrix),
    disk: !disk
      ? readFailed(l10n.t('the script did not get this far'))
      : disk.rc === 0
        ? readDf(disk.text)
        : readFailed(l10n.t('df: {0}', firstLine(disk.text))),
    write: readWrite(write),
  };
}

function readWrite(out: SectionOutput | undefined): Read<WriteSpeed> {
  if (!out) return readFailed(l10n.t('the script did not get this far'));
  if (out.rc === 3) {
    const free = /skipped: (\d+) KiB free/.exec(out.text)?.[1];
    return readOk({ kind: 'skipped', freeBytes: free === undefined ? undefined : Number(free) * 1024 });
  }
  if (out.rc === TIMED_OUT) return readOk({ kind: 'tooSlow' });
  if (out.rc !== 0) return readFailed(l10n.t('dd exited with {0}: {1}', out.rc ?? '?', firstLine(out.text)));
  return readDd(out.text);
}
