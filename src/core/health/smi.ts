import { l10n } from '../l10n';

/**
 * Readers for what `nvidia-smi` prints, in the formats of the real tool (driver 580; the captured
 * output is in test/fixtures/nvidia-smi/): the GPU query as CSV without header or units, `--version`,
 * and the two topology matrices (`topo -p2p r`, `topo -m`). A reader never throws: text it cannot
 * read gives a `Read` that says why, so a machine that prints garbage is "could not read", never an
 * error in the UI.
 */

/** What a reader made of its text: the value, or why there is none (a phrase a message quotes). */
export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly why: string };

export const readOk = <T>(value: T): Read<T> => ({ ok: true, value });
export const readFailed = <T>(why: string): Read<T> => ({ ok: false, why });

/**
 * The fields the health check asks for, in this order (`nvidia-smi --help-query-gpu` documents
 * each). `pcie.link.*.current` may be lower while a GPU idles; `.max` is what the GPU and the slot
 * allow together.
 */
export const GPU_FIELDS = [
  'index',
  'name',
  'memory.total',
  'driver_version',
  'pcie.link.gen.current',
  'pcie.link.gen.max',
  'pcie.link.width.current',
  'pcie.link.width.max',
  'ecc.mode.current',
  'ecc.errors.uncorrected.volatile.total',
] as const;

/** One GPU as the query reports it; a field the GPU does not report ("[N/A]", "[Not Supported]") is undefined. */
export interface GpuRow {
  index: number;
  name: string;
  /** `uuid` and `pci.bus_id`, when the query asked for them (GPU_FIELDS does not): what tells one GPU from another. */
  uuid?: string;
  busId?: string;
  /** MiB (nvidia-smi's unit for memory). */
  memoryMiB?: number;
  driver?: string;
  pcieGen?: number;
  pcieGenMax?: number;
  pcieWidth?: number;
  pcieWidthMax?: number;
  /** "Enabled", "Disabled", or undefined when the GPU has no ECC. */
  eccMode?: string;
  /** Uncorrected ECC errors since the driver loaded. */
  eccUncorrected?: number;
}

/** A value nvidia-smi prints for a field it cannot give: "[N/A]", "[Not Supported]", "[Unknown Error]", … */
function isUnavailable(value: string): boolean {
  return /^\[.*\]$/.test(value) || value === 'N/A' || value === '';
}

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || isUnavailable(value)) return undefined;
  const n = Number(value);
  return /^-?\d+(\.\d+)?$/.test(value) && Number.isFinite(n) ? n : undefined;
}

function textOf(value: string | undefined): string | undefined {
  return value === undefined || isUnavailable(value) ? undefined : value;
}

/**
 * `--query-gpu=<fields> --format=csv,noheader,nounits`: one line per GPU, the values separated by
 * ", " in the order asked. `fields` is the order asked (GPU_FIELDS unless the caller asked others;
 * `index` and `name` are needed). A line with another count of values, an index that is not a
 * number, or no line at all is not a GPU list: the query was refused ("... is not a valid field to
 * query") or something else printed.
 */
export function readGpuCsv(text: string, fields: readonly string[] = GPU_FIELDS): Read<GpuRow[]> {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return readFailed(l10n.t('nvidia-smi listed no GPU'));
  const at = (name: string) => fields.indexOf(name);
  if (at('index') < 0 || at('name') < 0) return readFailed(l10n.t('the query lacks index or name'));
  const rows: GpuRow[] = [];
  for (const line of lines) {
    const values = line.split(', ').map((v) => v.trim());
    if (values.length !== fields.length) return readFailed(l10n.t('a line has {0} values for {1} fields', values.length, fields.length));
    const get = (name: string) => (at(name) < 0 ? undefined : values[at(name)]);
    const index = numberOf(get('index'));
    const name = textOf(get('name'));
    if (index === undefined || !Number.isInteger(index) || name === undefined) return readFailed(l10n.t('a line has no GPU index or name'));
    const uuid = textOf(get('uuid'));
    const busId = textOf(get('pci.bus_id'));
    rows.push({
      index,
      name,
      ...(uuid === undefined ? {} : { uuid }),
      ...(busId === undefined ? {} : { busId }),
      memoryMiB: numberOf(get('memory.total')),
      driver: textOf(get('driver_version')),
      pcieGen: numberOf(get('pcie.link.gen.current')),
      pcieGenMax: numberOf(get('pcie.link.gen.max')),
      pcieWidth: numberOf(get('pcie.link.width.current')),
      pcieWidthMax: numberOf(get('pcie.link.width.max')),
      eccMode: textOf(get('ecc.mode.current')),
      eccUncorrected: numberOf(get('ecc.errors.uncorrected.volatile.total')),
    });
  }
  return readOk(rows);
}

/**
 * The GPUs of a list each once, and the lines that named a GPU already listed (`repeated`). One GPU
 * is one index (nvidia-smi numbers them 0, 1, … on a machine), and one UUID or PCI bus id where the
 * query asked for them: a line that repeats any of these is the same GPU again, however the rest of
 * it reads, so a GPU printed twice is never counted as two.
 */
export function distinctGpus(rows: readonly GpuRow[]): { gpus: GpuRow[]; repeated: GpuRow[] } {
  const seen = new Set<string>();
  const gpus: GpuRow[] = [];
  const repeated: GpuRow[] = [];
  for (const row of rows) {
    const keys = [`index ${row.index}`, row.uuid && `uuid ${row.uuid.toLowerCase()}`, row.busId && `bus ${row.busId.toLowerCase()}`].filter(
      (k): k is string => !!k,
    );
    if (keys.some((k) => seen.has(k))) {
      repeated.push(row);
      continue;
    }
    gpus.push(row);
    for (const k of keys) seen.add(k);
  }
  return { gpus, repeated };
}

/** The driver and the newest CUDA it supports, as `nvidia-smi --version` (or the banner of plain `nvidia-smi`) says. */
export interface SmiVersion {
  driver?: string;
  /** "13.0" */
  cuda?: string;
}

/**
 * `nvidia-smi --version` prints "DRIVER version : 580.159.04" and "CUDA Version : 13.0"; the banner
 * of plain `nvidia-smi` (older drivers have no --version) says "Driver Version: 580.159.04 CUDA
 * Version: 13.0". Both read the same; neither line is "could not read".
 */
export function readVersion(text: string): Read<SmiVersion> {
  const driver = /driver version\s*:\s*(\d+(?:\.\d+)+)/i.exec(text)?.[1];
  const cuda = /cuda version\s*:\s*(\d+\.\d+)/i.exec(text)?.[1];
  if (!driver && !cuda) return readFailed(l10n.t('no driver or CUDA version in the output'));
  return readOk({ driver, cuda });
}

/** A GPU-by-GPU matrix: `cells[i][j]` is what row GPU i says of column GPU j ("X" on the diagonal). */
export interface GpuMatrix {
  /** The GPUs' indexes, in the order of the rows. */
  gpus: number[];
  cells: string[][];
}

/** Escape sequences (the header is underlined with ESC[4m … ESC[0m even into a file). */
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * The matrix of `topo -m` or `topo -p2p r|w|n`: a header of tab-separated column names (GPU0,
 * GPU1, …, then columns such as "CPU Affinity" or NIC0 that are not GPUs), then a row per device
 * ("GPU0", a tab, the cells), a blank line and the legend. Only GPU rows and GPU columns are kept.
 * A header without GPU columns, a GPU row missing a GPU column's cell, or no GPU row: could not read.
 */
export function readGpuMatrix(text: string): Read<GpuMatrix> {
  const lines = text.replace(ANSI, '').split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /(^|\t)\s*GPU\d+\s*(\t|$)/.test(l) && !/^ *GPU\d+\t/.test(l));
  if (headerAt < 0) return readFailed(l10n.t('no matrix header'));
  const columns = lines[headerAt]!.split('\t').map((c) => c.trim());
  const gpuColumns = columns.map((c, i) => ({ gpu: /^GPU(\d+)$/.exec(c)?.[1], i })).filter((c) => c.gpu !== undefined);
  if (gpuColumns.length === 0) return readFailed(l10n.t('no GPU column'));
  const gpus: number[] = [];
  const cells: string[][] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === '') break;
    const parts = line.split('\t').map((c) => c.trim());
    const row = /^GPU(\d+)$/.exec(parts[0] ?? '');
    if (!row) continue;
    // The row's name takes the header's first (empty) cell.
    const values = gpuColumns.map((c) => parts[c.i]);
    if (values.some((v) => v === undefined || v === '')) return readFailed(l10n.t('row GPU{0} lacks a cell', Number(row[1])));
    gpus.push(Number(row[1]));
    cells.push(values as string[]);
  }
  if (gpus.length === 0) return readFailed(l10n.t('no GPU row'));
  if (gpus.length !== gpuColumns.length) return readFailed(l10n.t('{0} GPU rows for {1} GPU columns', gpus.length, gpuColumns.length));
  return readOk({ gpus, cells });
}

/** A pair of GPUs whose cell is not what the check wants (P2P not "OK"). */
export interface GpuPair {
  a: number;
  b: number;
  /** The cell: "NS", "CNS", "GNS", "TNS", "U" for P2P; a link type for `topo -m`. */
  status: string;
}

/** Every pair (a < b) of the matrix with its cell (the row of a, the column of b). */
export function pairs(matrix: GpuMatrix): GpuPair[] {
  const out: GpuPair[] = [];
  matrix.gpus.forEach((a, i) =>
    matrix.gpus.forEach((b, j) => {
      if (j > i) out.push({ a, b, status: matrix.cells[i]![j]! });
    }),
  );
  return out;
}

/** The pairs between which `topo -p2p r` says peer-to-peer reads do not work (anything but "OK"). */
export function p2pOff(matrix: GpuMatrix): GpuPair[] {
  return pairs(matrix).filter((p) => p.status !== 'OK');
}

/**
 * How `topo -m` says two GPUs are linked: NVLink ("NV#", # bonded links), or a PCIe path from the
 * nearest to the farthest: PIX (one bridge), PXB (several bridges), PHB (through the host bridge),
 * NODE (between host bridges of one NUMA node), SYS (across the NUMA nodes' interconnect).
 */
export type LinkKind = 'nvlink' | 'PIX' | 'PXB' | 'PHB' | 'NODE' | 'SYS' | 'other';

export function linkKind(cell: string): LinkKind {
  if (/^NV\d+$/.test(cell)) return 'nvlink';
  return (['PIX', 'PXB', 'PHB', 'NODE', 'SYS'] as const).find((k) => k === cell) ?? 'other';
}
