import { formatBytes } from '../format';
import { l10n, sentences } from '../l10n';
import { visibleText } from '../text';
import { sameGpuModel } from './gpuModel';
import { WRITE_TIMEOUT_S, type HealthReading } from './probe';
import { distinctGpus, linkKind, p2pOff, pairs, type GpuRow } from './smi';

/**
 * The health check's verdict: what nvidia-smi, df and dd said, held against what the offer (or the
 * instance's record, which carries the offer's hardware) promised. What each finding weighs:
 * - **mismatch** (the machine is not what was offered; the check offers to destroy it): another GPU
 *   model, fewer GPUs, less VRAM, a driver that supports an older CUDA than offered, uncorrected ECC
 *   errors (a GPU that computes wrong results is not the GPU rented);
 * - **warning** (as offered, but slower than it should be): P2P off between GPUs, GPUs that reach
 *   each other only across CPU sockets, a PCIe link narrower than the GPU's or than offered, a PCIe
 *   generation below the offer's, a nearly full, small or slow disk, a download under half the
 *   offer's internet speed;
 * - **note**: facts (NVLink, the disk's free space and speed, the download speed, a driver other
 *   than listed), and a download that could not be measured (the URL's side may be at fault, not
 *   the machine's).
 *
 * A GPU is counted once however often nvidia-smi lists it (`distinctGpus`): the same line twice is
 * one GPU, not two. VRAM that reads as no number, or as no size a GPU has (NaN, 1e400, 0), is a
 * warning that it was not checked, and the headline says so rather than "as offered".
 *
 * Every text from the machine or the service is quoted through visibleText (core/text.ts: hidden
 * characters escaped, no link syntax, a length), and the verdict is bounded whatever the machine
 * prints: at most LISTED_MODELS other models and LISTED_PER_KIND GPUs per kind of finding are named,
 * the rest counted, and the whole text is cut at VERDICT_MAX_CHARS (the mismatches come first).
 */

/** What the offer promised, in the service's units (an Offer or an Instance record fits). */
export interface Offered {
  readonly gpu_name?: string | null;
  readonly num_gpus?: number | null;
  /** Per GPU, MB as the service says (its numbers are nvidia-smi's MiB: an RTX 4090 is 24564). */
  readonly gpu_ram?: number | null;
  readonly driver_version?: string | null;
  /** The newest CUDA the host's driver supports, e.g. 12.8. */
  readonly cuda_max_good?: number | null;
  readonly pci_gen?: number | null;
  /** PCIe lanes per GPU. */
  readonly gpu_lanes?: number | null;
  /** GB of disk rented. */
  readonly disk_space?: number | null;
  /** The machine's download speed as the service lists it, Mbit/s. */
  readonly inet_down?: number | null;
}

export type FindingLevel = 'mismatch' | 'warning' | 'note';

/** One thing the check found; `code` names what was compared (for tests and the log). */
export interface Finding {
  readonly level: FindingLevel;
  readonly code: 'unread' | 'model' | 'count' | 'vram' | 'cuda' | 'ecc' | 'p2p' | 'link' | 'pcie' | 'driver' | 'disk' | 'write' | 'inet';
  readonly text: string;
}

export interface Verdict {
  /** The GPU list was read; false: nothing about the GPUs could be judged. */
  readonly readable: boolean;
  /** Readable and no mismatch. */
  readonly matches: boolean;
  /** "2× RTX 4090": the offer's GPUs. */
  readonly offered: string;
  readonly findings: readonly Finding[];
  /** The verdict in a few sentences: the headline, then the mismatches, the warnings and the notes. */
  readonly text: string;
}

/**
 * VRAM may read this much below the offer and still be the offered card: ECC takes several percent
 * of the memory when on (nvidia-smi's own help says so), and the service's "MB" may be MiB (what it
 * lists is nvidia-smi's number) or 10^6 bytes (4.6% more than MiB). A smaller card is 30% or more below.
 */
export const VRAM_TOLERANCE = 0.07;
/** Below this a disk is flagged slow: slower than a hard disk writes. */
export const SLOW_WRITE_BYTES_PER_S = 50e6;
/** Free space under this is flagged: a checkpoint or a dataset will not fit. */
export const LOW_FREE_BYTES = 5e9;

/** More VRAM than this (2 TiB per GPU, in MiB) is no GPU's: a number this large was not read right. */
export const MAX_VRAM_MIB = 2 * 1024 * 1024;
/** Other GPU models named one by one; more are counted. */
export const LISTED_MODELS = 3;
/** GPUs named one by one for each kind of finding (VRAM, ECC, PCIe); more are counted. */
export const LISTED_PER_KIND = 3;
/** The longest verdict text, in characters: a notice adds the instance's name, its cost and a question. */
export const VERDICT_MAX_CHARS = 1200;

const gb = (mib: number) => `${(mib / 1024).toFixed(1)} GB`;

/** Whether a GPU's memory was read as a size a GPU can have. */
const vramRead = (mib: number | undefined): mib is number => mib !== undefined && Number.isFinite(mib) && mib > 0 && mib <= MAX_VRAM_MIB;

/** Whether the verdict could not compare the VRAM with the offer (its headline says so). */
export function vramUnchecked(verdict: Pick<Verdict, 'findings'>): boolean {
  return verdict.findings.some((f) => f.code === 'vram' && f.level === 'warning');
}

export function judge(reading: HealthReading, offered: Offered): Verdict {
  const count = offered.num_gpus ?? undefined;
  const offeredName = offered.gpu_name ? visibleText(offered.gpu_name) : undefined;
  const summary = offeredName ? (count !== undefined ? `${count}× ${offeredName}` : offeredName) : l10n.t('the offered GPUs');
  const findings: Finding[] = [];
  const add = (level: FindingLevel, code: Finding['code'], text: string) => findings.push({ level, code, text });

  if (!reading.gpus.ok) {
    add(
      'warning',
      'unread',
      reading.smiFound
        ? l10n.t('What nvidia-smi printed could not be read ({0}), so its GPUs could not be checked.', reading.gpus.why)
        : l10n.t('nvidia-smi is not on the machine, so its GPUs could not be checked.'),
    );
  } else {
    const { gpus, repeated } = distinctGpus(reading.gpus.value);
    gpuFindings(gpus, offered, add);
    if (repeated.length > 0)
      add(
        'note',
        'count',
        l10n.t(
          'nvidia-smi listed a GPU more than once ({0} repeated lines, the first for GPU {1}); each GPU is counted once.',
          repeated.length,
          repeated[0]!.index,
        ),
      );
    versionFindings(reading, offered, add);
    if (gpus.length > 1) topologyFindings(reading, add);
  }
  diskFindings(reading, offered, add);
  speedFindings(reading, offered, add);

  const readable = reading.gpus.ok;
  const matches = readable && !findings.some((f) => f.level === 'mismatch');
  const headline = !readable
    ? undefined
    : !matches
      ? l10n.t('Not what was offered ({0}).', summary)
      : vramUnchecked({ findings })
        ? l10n.t('{0} as offered, except its VRAM, which was not checked.', summary)
        : l10n.t('{0} as offered.', summary);
  const order: FindingLevel[] = ['mismatch', 'warning', 'note'];
  const text = visibleText(
    sentences(headline, ...order.flatMap((level) => findings.filter((f) => f.level === level).map((f) => f.text))),
    VERDICT_MAX_CHARS,
  );
  return { readable, matches, offered: summary, findings, text };
}

type Add = (level: FindingLevel, code: Finding['code'], text: string) => void;

function gpuFindings(gpus: readonly GpuRow[], offered: Offered, add: Add): void {
  if (offered.gpu_name) {
    const wrong = new Map<string, number>();
    for (const g of gpus) if (!sameGpuModel(offered.gpu_name, g.name)) wrong.set(g.name, (wrong.get(g.name) ?? 0) + 1);
    // The most common models first; past LISTED_MODELS, the rest are counted.
    const models = [...wrong].sort((a, b) => b[1] - a[1]);
    for (const [name, n] of models.slice(0, LISTED_MODELS))
      add('mismatch', 'model', l10n.t('It has {0}× {1}, not the offered {2}.', n, visibleText(name), visibleText(offered.gpu_name)));
    const rest = models.slice(LISTED_MODELS).reduce((sum, [, n]) => sum + n, 0);
    if (rest > 0)
      add(
        'mismatch',
        'model',
        l10n.t(
          'It has {0} more GPUs of {1} other models, not the offered {2}.',
          rest,
          models.length - LISTED_MODELS,
          visibleText(offered.gpu_name),
        ),
      );
  }
  const count = offered.num_gpus ?? undefined;
  if (count !== undefined && gpus.length < count) add('mismatch', 'count', l10n.t('GPUs found: {0} of {1} offered.', gpus.length, count));
  if (count !== undefined && gpus.length > count)
    add('note', 'count', l10n.t('GPUs found: {0}, more than the {1} offered.', gpus.length, count));
  const ram = offered.gpu_ram ?? undefined;
  // Each kind of per-GPU finding names LISTED_PER_KIND GPUs; the GPUs past them are counted.
  const named = new Map<Finding['code'], Set<number>>();
  const more = new Map<Finding['code'], { level: FindingLevel; gpus: Set<number> }>();
  const addGpu = (g: GpuRow): Add => {
    return (level, code, text) => {
      const shown = named.get(code) ?? new Set<number>();
      named.set(code, shown);
      if (shown.has(g.index) || shown.size < LISTED_PER_KIND) {
        shown.add(g.index);
        add(level, code, text);
        return;
      }
      const rest = more.get(code) ?? { level, gpus: new Set<number>() };
      rest.gpus.add(g.index);
      more.set(code, rest);
    };
  };
  const unread: number[] = [];
  for (const g of gpus) {
    const addThis = addGpu(g);
    if (ram !== undefined && !vramRead(g.memoryMiB)) unread.push(g.index);
    else if (ram !== undefined && g.memoryMiB !== undefined && g.memoryMiB < ram * (1 - VRAM_TOLERANCE))
      addThis('mismatch', 'vram', l10n.t('GPU {0} has {1} of memory; the offer says {2}.', g.index, gb(g.memoryMiB), gb(ram)));
    if (g.eccUncorrected !== undefined && g.eccUncorrected > 0)
      addThis(
        'mismatch',
        'ecc',
        l10n.t('GPU {0} reports {1} uncorrected memory (ECC) errors since boot: it may compute wrong results.', g.index, g.eccUncorrected),
      );
    pcieFindings(g, offered, addThis);
  }
  for (const [code, rest] of more) add(rest.level, code, moreGpus(code, rest.gpus.size));
  if (unread.length === 1)
    add('warning', 'vram', l10n.t('nvidia-smi gave no usable memory size for GPU {0}, so its VRAM was not checked.', unread[0]!));
  else if (unread.length > 1)
    add(
      'warning',
      'vram',
      l10n.t(
        'nvidia-smi gave no usable memory size for {0} GPUs (GPU {1} first), so their VRAM was not checked.',
        unread.length,
        unread[0]!,
      ),
    );
}

/** The GPUs with a finding of one kind past the LISTED_PER_KIND named. */
function moreGpus(code: Finding['code'], n: number): string {
  switch (code) {
    case 'vram':
      return l10n.t('More GPUs with less memory than offered: {0}.', n);
    case 'ecc':
      return l10n.t('More GPUs with uncorrected memory (ECC) errors: {0}.', n);
    default:
      return l10n.t('More GPUs with a slower PCIe link: {0}.', n);
  }
}

function pcieFindings(g: GpuRow, offered: Offered, add: Add): void {
  // The current width and generation may drop while a GPU idles (nvidia-smi's help); a narrower link than
  // the slot allows is how a riser or a half-wired slot shows, so the width is flagged, the generation only
  // against its maximum.
  if (g.pcieWidth !== undefined && g.pcieWidthMax !== undefined && g.pcieWidth < g.pcieWidthMax)
    add(
      'warning',
      'pcie',
      l10n.t('GPU {0} runs its PCIe link at x{1} of x{2}: data reaches it more slowly.', g.index, g.pcieWidth, g.pcieWidthMax),
    );
  else if (offered.gpu_lanes && g.pcieWidthMax !== undefined && g.pcieWidthMax < offered.gpu_lanes)
    add('warning', 'pcie', l10n.t('GPU {0} has a PCIe link of x{1}; the offer says x{2}.', g.index, g.pcieWidthMax, offered.gpu_lanes));
  if (offered.pci_gen && g.pcieGenMax !== undefined && g.pcieGenMax < Math.floor(offered.pci_gen))
    add(
      'warning',
      'pcie',
      l10n.t('GPU {0} has PCIe gen {1} at most; the offer says gen {2}.', g.index, g.pcieGenMax, Math.floor(offered.pci_gen)),
    );
}

/** "12.8" → [12, 8]; compares numerically, so 12.10 is newer than 12.9. */
function cudaParts(v: string | number): [number, number] {
  const [major = '0', minor = '0'] = String(v).split('.');
  return [Number(major), Number(minor)];
}

function versionFindings(reading: HealthReading, offered: Offered, add: Add): void {
  const version = reading.version.ok ? reading.version.value : undefined;
  if (offered.cuda_max_good) {
    if (!version?.cuda) add('note', 'cuda', l10n.t('Its CUDA version could not be read.'));
    else {
      const [am, an] = cudaParts(version.cuda);
      // The service lists 12.8 as a float: one decimal is the minor version.
      const [om, on] = cudaParts(offered.cuda_max_good.toFixed(1));
      if (am < om || (am === om && an < on))
        add(
          'mismatch',
          'cuda',
          l10n.t('Its driver supports CUDA up to {0}; the offer says {1}.', version.cuda, offered.cuda_max_good.toFixed(1)),
        );
    }
  }
  const driver = version?.driver ?? (reading.gpus.ok ? reading.gpus.value[0]?.driver : undefined);
  if (offered.driver_version && driver && driver !== offered.driver_version)
    add('note', 'driver', l10n.t('Its driver is {0}; the offer says {1}.', visibleText(driver), visibleText(offered.driver_version)));
}

function topologyFindings(reading: HealthReading, add: Add): void {
  if (!reading.p2p.ok) add('note', 'p2p', l10n.t('Whether its GPUs reach each other directly (P2P) could not be read.'));
  else {
    const off = p2pOff(reading.p2p.value);
    const all = pairs(reading.p2p.value).length;
    const distinct = [...new Set(off.map((p) => visibleText(p.status, 8)))];
    const statuses = distinct.slice(0, 4).join(', ') + (distinct.length > 4 ? ', …' : '');
    const listed =
      off
        .slice(0, 4)
        .map((p) => l10n.t('GPU{0}–GPU{1} {2}', p.a, p.b, visibleText(p.status, 8)))
        .join(', ') + (off.length > 4 ? ', …' : '');
    if (off.length > 0 && off.length === all)
      add('warning', 'p2p', l10n.t('P2P is off between its GPUs ({0}), so multi-GPU training will be slow.', statuses));
    else if (off.length > 0)
      add('warning', 'p2p', l10n.t('P2P is off between some of its GPUs ({0}), so multi-GPU training will be slower.', listed));
  }
  if (!reading.topo.ok) return;
  const kinds = pairs(reading.topo.value).map((p) => linkKind(p.status));
  if (kinds.length > 0 && kinds.every((k) => k === 'nvlink')) add('note', 'link', l10n.t('Its GPUs are linked by NVLink.'));
  else if (kinds.includes('SYS'))
    add('warning', 'link', l10n.t('Some of its GPUs reach each other only across CPU sockets (SYS), which slows multi-GPU training.'));
}

function diskFindings(reading: HealthReading, offered: Offered, add: Add): void {
  const write = reading.write.ok ? reading.write.value : undefined;
  if (reading.disk.ok) {
    const d = reading.disk.value;
    const folder = visibleText(d.folder, 60);
    if (d.freeBytes < LOW_FREE_BYTES)
      add('warning', 'disk', l10n.t('Its disk has only {0} free at {1}.', formatBytes(d.freeBytes), folder));
    else add('note', 'disk', l10n.t('Its disk has {0} free of {1} at {2}.', formatBytes(d.freeBytes), formatBytes(d.sizeBytes), folder));
    if (offered.disk_space && d.sizeBytes < offered.disk_space * 1e9 * 0.9)
      add('warning', 'disk', l10n.t('Its disk holds {0}; {1} GB was rented.', formatBytes(d.sizeBytes), Math.round(offered.disk_space)));
  }
  if (write?.kind === 'measured') {
    const speed = formatBytes(write.bytesPerSecond);
    if (write.bytesPerSecond < SLOW_WRITE_BYTES_PER_S)
      add('warning', 'write', l10n.t('It writes only {0}/s to its disk: saving checkpoints will be slow.', speed));
    else add('note', 'write', l10n.t('It writes {0}/s to its disk.', speed));
  } else if (write?.kind === 'tooSlow') {
    add(
      'warning',
      'write',
      l10n.t('It wrote less than {0} to its disk in {1} s: saving checkpoints will be slow.', formatBytes(write.bytes), WRITE_TIMEOUT_S),
    );
  }
}

/** Under this share of the offer's internet speed a download is flagged. */
export const SLOW_DOWNLOAD_SHARE = 0.5;

/** "850 Mbit/s": whole numbers from 10 up, one decimal below. */
function mbits(bitsPerSecond: number): string {
  const m = bitsPerSecond / 1e6;
  return m >= 10 ? String(Math.round(m)) : m.toFixed(1);
}

function speedFindings(reading: HealthReading, offered: Offered, add: Add): void {
  if (!reading.speed.ok) {
    add('note', 'inet', l10n.t('Internet speed: not measured ({0}).', reading.speed.why));
    return;
  }
  const speed = reading.speed.value;
  if (speed.kind !== 'measured') return;
  const listed = offered.inet_down ?? undefined;
  const measured = mbits(speed.bitsPerSecond);
  if (listed === undefined || !(listed > 0)) add('note', 'inet', l10n.t('It downloads at {0} Mbit/s.', measured));
  else if (speed.bitsPerSecond / 1e6 < listed * SLOW_DOWNLOAD_SHARE)
    add(
      'warning',
      'inet',
      l10n.t(
        'It downloads at only {0} Mbit/s, under half the {1} Mbit/s offered: datasets and images will be slow to fetch.',
        measured,
        mbits(listed * 1e6),
      ),
    );
  else add('note', 'inet', l10n.t('It downloads at {0} Mbit/s ({1} Mbit/s offered).', measured, mbits(listed * 1e6)));
}
