import { l10n } from '../l10n';
import { shellQuote as q } from '../shell';
import SPEED_PY from './remote/speed.py';
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
export const SECTIONS = ['gpus', 'version', 'p2p', 'topo', 'disk', 'write', 'speed'] as const;
export type Section = (typeof SECTIONS)[number];

/** The bytes the write test writes (and removes): 256 MiB, flushed to the disk before dd reports. */
export const WRITE_BYTES = 256 * 1024 * 1024;
/** The write test is skipped when the folder has less free than this, so a nearly full disk is not filled. */
export const WRITE_MIN_FREE_KIB = 1024 * 1024;
/** Seconds each part may take; the write's limit bounds the slowest disk it can measure (256 MiB in 30 s: 9 MB/s). */
export const PART_TIMEOUT_S = 15;
export const WRITE_TIMEOUT_S = 30;
/** The download test's limits: it stops after this many seconds or bytes, whichever comes first. */
export const SPEED_SECONDS = 8;
export const SPEED_MAX_BYTES = 25_000_000;
/** What the whole script may take before ssh is given up on: every part's limit, and the connection (the download runs beside them). */
export const SCRIPT_TIMEOUT_MS = (5 * PART_TIMEOUT_S + WRITE_TIMEOUT_S + 30) * 1000;

/** What a run of the script measures besides the GPUs. */
export interface ScriptOptions {
  /** The download test's URL (gpuRental.health.speedTestUrl); empty or undefined: no download test. */
  readonly speedTestUrl?: string;
  /** MiB the write test writes (default WRITE_BYTES). */
  readonly writeMiB?: number;
}

/** The section marker: text a tool cannot print by accident, with this run's nonce in it. */
function marker(nonce: string, edge: 'begin' | 'end', section: string): string {
  return `@@gpu-rental-health ${nonce} ${edge} ${section}`;
}

/** Shell text: written as bash reads it (a backslash stays a backslash), and not prose to localise. */
const sh = String.raw;

/**
 * The script, for `bash -s` or as ssh's command. `nonce` marks the sections (its letters and digits
 * are kept; the caller makes a new one per run). The folder checked is /workspace when it is writable (where
 * the service's images keep work), else the home folder.
 */
export function healthScript(nonce: string, options: ScriptOptions = {}): string {
  const writeMiB = writeMiBOf(options);
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
    sh`echo 'writing ${writeMiB} MiB'`,
    sh`timeout ${WRITE_TIMEOUT_S} dd if=/dev/zero of=${file} bs=1M count=${writeMiB} conv=fdatasync; r=$?`,
    sh`rm -f ${file}`,
    sh`exit $r`,
  ];
  const url = options.speedTestUrl?.trim() ?? '';
  // The download runs in the background while the GPUs and the disk are read (it uses the network, they do not),
  // its output kept in a file and printed as the last section.
  const speed =
    url === ''
      ? []
      : [sh`sp=$(mktemp 2>/dev/null) || sp=/tmp/.gpu-rental-speed-$$`, sh`( ${speedCommand(url)} ) >"$sp" 2>&1 &`, sh`spid=$!`];
  const speedSection =
    url === ''
      ? []
      : [
          sh`printf '%s\n' ${q(marker(mark, 'begin', 'speed'))}`,
          sh`wait "$spid"; rc=$?`,
          sh`cat "$sp"; rm -f "$sp"`,
          sh`printf '%s %s\n' ${q(marker(mark, 'end', 'speed'))} "$rc"`,
        ];
  return [
    sh`export LC_ALL=C`,
    ...speed,
    sh`dir=/workspace`,
    sh`{ [ -d "$dir" ] && [ -w "$dir" ]; } || dir=$HOME`,
    part('gpus', smi(sh`${q(`--query-gpu=${GPU_FIELDS.join(',')}`)} --format=csv,noheader,nounits`)),
    // Older drivers have no --version: the banner of plain nvidia-smi says the same.
    part('version', sh`${smi('--version')} || ${smi('')}`),
    part('p2p', smi(sh`topo -p2p r`)),
    part('topo', smi(sh`topo -m`)),
    part('disk', sh`timeout ${PART_TIMEOUT_S} df -Pk "$dir"`),
    part('write', `(${write.join('; ')})`),
    ...speedSection,
  ].join('\n');
}

function writeMiBOf(options: ScriptOptions): number {
  const mib = options.writeMiB ?? WRITE_BYTES / 1024 / 1024;
  return Number.isInteger(mib) && mib >= 1 && mib <= 4096 ? mib : WRITE_BYTES / 1024 / 1024;
}

/**
 * A URL the download test may fetch: http or https, no user name or password (nothing secret goes
 * to it), and nothing a shell reads specially (quotes, spaces, backslashes, control characters). It
 * is single-quoted as well. Undefined when it may not be used.
 */
export function speedTestUrl(text: string): string | undefined {
  const url = text.trim();
  // Printable ASCII only, and none of the characters a shell reads inside or around quotes.
  if (url === '' || url.length > 2000 || !/^[\x21-\x7e]+$/.test(url) || /['"`\\]/.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.username !== '' || parsed.password !== '') return undefined;
  return url;
}

/** Printed for a URL that may not be used, instead of a download. */
const INVALID_URL = sh`gpu-rental: invalid speed test url`;

/**
 * The download, with the first of curl, wget and python3 the machine has; each prints one line the
 * reader knows (`readSpeed`). At most SPEED_SECONDS and SPEED_MAX_BYTES; the body goes nowhere.
 * No header and no key is sent: only the URL the user set.
 */
function speedCommand(text: string): string {
  const url = speedTestUrl(text);
  if (url === undefined) return sh`echo ${q(INVALID_URL)}; exit 2`;
  const u = q(url);
  const max = SPEED_MAX_BYTES;
  const secs = SPEED_SECONDS;
  const clock = sh`${'$'}{EPOCHREALTIME:-$(date +%s.%N)}`;
  return [
    // The clock: bash's when the login shell is bash (finer than date's on busybox), else date's.
    sh`# shellcheck disable=SC3028 # EPOCHREALTIME is used only when the shell has it.`,
    sh`if command -v curl >/dev/null 2>&1; then`,
    sh`timeout ${secs + 2} curl -sS -L --proto '=http,https' --proto-redir '=http,https' --max-time ${secs} --max-filesize ${max} -r 0-${max - 1} -o /dev/null -w 'curl %{http_code} %{size_download} %{time_total}\n' ${u}`,
    sh`elif command -v wget >/dev/null 2>&1; then`,
    sh`t0=${clock}; n=$(timeout ${secs} wget -q -O - ${u} 2>/dev/null | head -c ${max} | wc -c); t1=${clock}; echo "wget $n $t0 $t1"`,
    sh`elif command -v python3 >/dev/null 2>&1; then`,
    sh`timeout ${secs + 2} python3 -c ${q(SPEED_PY)} ${u} ${secs} ${max}`,
    sh`else echo 'no curl, wget or python3'; exit 127; fi`,
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

/** The write test: how fast its bytes reached the disk, or why it did not run (tooSlow: `bytes` did not in WRITE_TIMEOUT_S). */
export type WriteSpeed =
  { kind: 'measured'; bytesPerSecond: number } | { kind: 'skipped'; freeBytes?: number } | { kind: 'tooSlow'; bytes: number };

/** The download test: how fast the machine fetched the URL, with which tool; `off` when no URL is set. */
export type DownloadSpeed =
  { kind: 'measured'; bitsPerSecond: number; bytes: number; seconds: number; tool: 'curl' | 'wget' | 'python' } | { kind: 'off' };

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
  /** Failed: not measured, and why (never a finding against the machine). */
  speed: Read<DownloadSpeed>;
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
    speed: readSpeed(s.get('speed')),
  };
}

/** Below this many bytes a download says little about a line's speed (it is mostly the connection's set-up). */
const MIN_SPEED_BYTES = 100_000;

/**
 * The download section: one line from curl (`curl <http code> <bytes> <seconds>`, its -w), wget
 * (`wget <bytes> <start> <end>`, the shell's clock around it) or python3 (`python <http code> <bytes>
 * <seconds>`, or `python error <what>`). A run stopped by its time limit still measured what it got.
 * Undefined section: no URL was set.
 */
export function readSpeed(out: SectionOutput | undefined): Read<DownloadSpeed> {
  if (!out) return readOk({ kind: 'off' });
  const text = out.text;
  if (text.includes(INVALID_URL)) return readFailed(l10n.t('the URL in gpuRental.health.speedTestUrl is not an http or https address'));
  if (out.rc === NOT_FOUND) return readFailed(l10n.t('the machine has no curl, wget or python3'));
  let bytes: number;
  let seconds: number;
  let tool: 'curl' | 'wget' | 'python';
  const curl = /^curl (\d{3}) (\d+) ([\d.]+)\s*$/m.exec(text);
  const wget = /^wget\s+(\d+) ([\d.]+) ([\d.]+)\s*$/m.exec(text);
  const python = /^python (\d{1,3}) (\d+) ([\d.]+)\s*$/m.exec(text);
  const status = curl?.[1] ?? python?.[1];
  if (status !== undefined && Number(status) >= 400) return readFailed(l10n.t('the server answered HTTP {0}', Number(status)));
  if (curl) [tool, bytes, seconds] = ['curl', Number(curl[2]), Number(curl[3])];
  else if (python) [tool, bytes, seconds] = ['python', Number(python[2]), Number(python[3])];
  else if (wget) [tool, bytes, seconds] = ['wget', Number(wget[1]), Number(wget[3]) - Number(wget[2])];
  else return readFailed(firstLine(text.replace(/^python error /m, '')) || l10n.t('the download printed nothing'));
  if (bytes === 0) {
    // curl says why on its own line ("curl: (6) Could not resolve host: …").
    const why = text.split('\n').find((l) => /^curl: \(\d+\)/.test(l));
    return readFailed(why ? visibleText(why.trim(), 200) : l10n.t('nothing was downloaded'));
  }
  if (bytes < MIN_SPEED_BYTES) return readFailed(l10n.t('only {0} bytes were downloaded', bytes));
  if (!(seconds > 0)) return readFailed(l10n.t('the download took no measurable time'));
  return readOk({ kind: 'measured', bitsPerSecond: (bytes * 8) / seconds, bytes, seconds, tool });
}

function readWrite(out: SectionOutput | undefined): Read<WriteSpeed> {
  if (!out) return readFailed(l10n.t('the script did not get this far'));
  if (out.rc === 3) {
    const free = /skipped: (\d+) KiB free/.exec(out.text)?.[1];
    return readOk({ kind: 'skipped', freeBytes: free === undefined ? undefined : Number(free) * 1024 });
  }
  if (out.rc === TIMED_OUT)
    return readOk({ kind: 'tooSlow', bytes: Number(/writing (\d+) MiB/.exec(out.text)?.[1] ?? WRITE_BYTES / 1048576) * 1048576 });
  if (out.rc !== 0) return readFailed(l10n.t('dd exited with {0}: {1}', out.rc ?? '?', firstLine(out.text)));
  return readDd(out.text);
}
