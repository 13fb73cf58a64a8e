/**
 * Each instance's `nvidia-smi`: a bash stand-in on the container's PATH (and its SSH sessions') that
 * answers from the rented offer's hardware in the real tool's formats (driver 580, captured in
 * test/fixtures/nvidia-smi/): `--query-gpu=… --format=csv[,noheader][,nounits]`, `--version`, `-L`,
 * `topo -m`, `topo -p2p r|w|n`, and a short banner for no arguments. A field it does not know is
 * refused as the real tool refuses an invalid one. `POST /__control/instances/:id/gpu` makes one
 * instance's tool lie (another GPU name, GPUs missing, ECC errors, P2P off); the file the script
 * reads is rewritten at once, so a running instance answers the lie from its next call.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Offer } from './catalogue';
import { GPUS } from './hardware';

/** What an instance's nvidia-smi reports (a lie already applied). */
export interface SmiHardware {
  /** The product name as the driver gives it ("NVIDIA GeForce RTX 4090"). */
  name: string;
  count: number;
  memoryMiB: number;
  driver: string;
  /** The newest CUDA the driver supports, "12.8". */
  cuda: string;
  pcieGen: number;
  pcieWidth: number;
  /** ECC on (data-centre cards); off, the ECC fields read "[N/A]" as on a GeForce. */
  ecc: boolean;
  /** Uncorrected ECC errors on GPU 0. */
  eccErrors: number;
  /** Peer-to-peer reads between the GPUs: "OK", or "NS" (not supported) when off. */
  p2p: 'OK' | 'NS';
  /** `topo -m`'s cell between two GPUs: "NV18" for NVLink, else a PCIe path ("PHB"). */
  link: string;
  /** "9.0" */
  computeCap: string;
}

/** How one instance's tool lies (`POST /__control/instances/:id/gpu`); absent fields tell the truth. */
export interface GpuLie {
  /** The GPU name every GPU reports. */
  name?: string;
  /** How many of the offer's GPUs are not listed. */
  missing?: number;
  /** Uncorrected ECC errors on GPU 0 (ECC then reads on). */
  ecc?: number;
  /** P2P reported off ("NS") between every pair. */
  p2pOff?: boolean;
}

/** The driver's product names of the catalogue's models (hardware.ts); another model gets "NVIDIA <name>". */
const PRODUCT_NAMES: Record<string, string> = {
  'RTX 3060': 'NVIDIA GeForce RTX 3060',
  'RTX 3090': 'NVIDIA GeForce RTX 3090',
  'RTX 4090': 'NVIDIA GeForce RTX 4090',
  'RTX 5090': 'NVIDIA GeForce RTX 5090',
  'RTX A4000': 'NVIDIA RTX A4000',
  'RTX A5000': 'NVIDIA RTX A5000',
  'RTX A6000': 'NVIDIA RTX A6000',
  'RTX 6000Ada': 'NVIDIA RTX 6000 Ada Generation',
  L40S: 'NVIDIA L40S',
  'Tesla V100': 'Tesla V100-SXM2-16GB',
  'A100 PCIE': 'NVIDIA A100-PCIE-40GB',
  'A100 SXM4': 'NVIDIA A100-SXM4-80GB',
  'H100 PCIE': 'NVIDIA H100 PCIe',
  'H100 SXM': 'NVIDIA H100 80GB HBM3',
  H200: 'NVIDIA H200',
};

export function productName(offerName: string): string {
  return PRODUCT_NAMES[offerName] ?? `NVIDIA ${offerName}`;
}

/** The hardware an offer's machine reports, with `lie` over it. */
export function smiHardware(offer: Offer, lie: GpuLie = {}): SmiHardware {
  const model = GPUS.find((g) => g.name === offer.gpu_name);
  const ecc = (model?.datacenter ?? false) || (lie.ecc ?? 0) > 0;
  return {
    name: lie.name ?? productName(offer.gpu_name),
    count: Math.max(0, offer.num_gpus - (lie.missing ?? 0)),
    memoryMiB: offer.gpu_ram,
    driver: offer.driver_version,
    cuda: offer.cuda_max_good.toFixed(1),
    pcieGen: Math.floor(offer.pci_gen),
    pcieWidth: offer.gpu_lanes,
    ecc,
    eccErrors: lie.ecc ?? 0,
    p2p: lie.p2pOff ? 'NS' : 'OK',
    // NVLink 3 and 4 carry 25 GB/s a link each way.
    link: offer.bw_nvlink > 0 ? `NV${Math.max(1, Math.round(offer.bw_nvlink / 25))}` : 'PHB',
    computeCap: (offer.compute_cap / 100).toFixed(1),
  };
}

/** One word for bash, single-quoted. */
function q(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The file the script sources: one shell assignment per fact. */
function hardwareFile(hw: SmiHardware): string {
  return (
    [
      `NAME=${q(hw.name)}`,
      `COUNT=${hw.count}`,
      `MEM=${hw.memoryMiB}`,
      `DRIVER=${q(hw.driver)}`,
      `CUDA=${q(hw.cuda)}`,
      `GEN=${hw.pcieGen}`,
      `WIDTH=${hw.pcieWidth}`,
      `ECC=${hw.ecc ? 1 : 0}`,
      `ECCERR=${hw.eccErrors}`,
      `P2P=${hw.p2p}`,
      `LINK=${q(hw.link)}`,
      `CC=${q(hw.computeCap)}`,
    ].join('\n') + '\n'
  );
}

/**
 * The stand-in. Formats as the real tool prints them (see the fixtures): CSV values joined by ", ",
 * units after a space ("81559 MiB", "0 %") unless `nounits`, the header's units in brackets; the
 * matrices tab-separated with the header underlined by ESC[4m … ESC[0m, `topo -m`'s own cell " X ".
 */
const SCRIPT = String.raw`#!/bin/bash
# The simulator's nvidia-smi (test/marketplace/nvidiaSmi.ts): answers from the hardware file beside it.
. "${'$'}{0%/*}/hardware" || exit 9
uuid() { printf 'GPU-%08x-0000-4000-8000-%012x' "$1" $(( ${'$'}{#NAME} * 7919 + $1 )); }
ul=$'\e[4m' un=$'\e[0m'
p2p_legend() {
  printf '\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n  CNS  = Chipset not supported\n  GNS  = GPU not supported\n  TNS  = Topology not supported\n  NS   = Not supported\n  U    = Unknown\n'
}
topo_legend() {
  printf '\nLegend:\n\n  X    = Self\n'
  printf '  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n'
  printf '  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n'
  printf '  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n'
  printf '  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n'
  printf '  PIX  = Connection traversing at most a single PCIe bridge\n'
  printf '  NV#  = Connection traversing a bonded set of # NVLinks\n'
}
# field NAME GPU -> "header|unit|value"
field() {
  local i=$2 na='[N/A]' e
  if [ "$ECC" = 1 ]; then e=0; [ "$i" = 0 ] && e=$ECCERR; fi
  case $1 in
    index) echo "index||$i" ;;
    name|gpu_name) echo "name||$NAME" ;;
    uuid|gpu_uuid) echo "uuid||$(uuid "$i")" ;;
    count) echo "count||$COUNT" ;;
    memory.total) echo "memory.total|MiB|$MEM" ;;
    memory.used) echo "memory.used|MiB|0" ;;
    memory.free) echo "memory.free|MiB|$MEM" ;;
    utilization.gpu) echo "utilization.gpu|%|0" ;;
    utilization.memory) echo "utilization.memory|%|0" ;;
    driver_version) echo "driver_version||$DRIVER" ;;
    pci.bus_id|gpu_bus_id) printf 'pci.bus_id||00000000:%02X:00.0\n' $((i + 1)) ;;
    pcie.link.gen.current|pcie.link.gen.gpucurrent|pcie.link.gen.max|pcie.link.gen.gpumax) echo "$1||$GEN" ;;
    pcie.link.width.current|pcie.link.width.max) echo "$1||$WIDTH" ;;
    ecc.mode.current) if [ "$ECC" = 1 ]; then echo "$1||Enabled"; else echo "$1||$na"; fi ;;
    ecc.errors.corrected.volatile.total|ecc.errors.corrected.aggregate.total) if [ "$ECC" = 1 ]; then echo "$1||0"; else echo "$1||$na"; fi ;;
    ecc.errors.uncorrected.volatile.total|ecc.errors.uncorrected.aggregate.total) if [ "$ECC" = 1 ]; then echo "$1||$e"; else echo "$1||$na"; fi ;;
    temperature.gpu) echo "temperature.gpu||34" ;;
    compute_cap) echo "compute_cap||$CC" ;;
    *) return 1 ;;
  esac
}
query() {
  local fields=$1 fmt=$2 header=1 units=1 f i line head cell
  case ",$fmt," in *,noheader,*) header=0 ;; esac
  case ",$fmt," in *,nounits,*) units=0 ;; esac
  IFS=, read -ra list <<<"$fields"
  for f in "${'$'}{list[@]}"; do
    field "$f" 0 >/dev/null || { printf 'Field "%s" is not a valid field to query.\n\n' "$f"; exit 2; }
  done
  if [ $header = 1 ]; then
    head=
    for f in "${'$'}{list[@]}"; do
      IFS='|' read -r h u v <<<"$(field "$f" 0)"
      cell=$h; [ -n "$u" ] && cell="$h [$u]"
      head=${'$'}{head:+$head, }$cell
    done
    echo "$head"
  fi
  for ((i = 0; i < COUNT; i++)); do
    line=
    for f in "${'$'}{list[@]}"; do
      IFS='|' read -r h u v <<<"$(field "$f" "$i")"
      cell=$v; [ $units = 1 ] && [ -n "$u" ] && [ "$v" != '[N/A]' ] && cell="$v $u"
      line=${'$'}{line:+$line, }$cell
    done
    echo "$line"
  done
}
matrix() {
  local kind=$1 i j row
  if [ "$kind" = m ]; then
    row=$'\t'$ul; for ((j = 0; j < COUNT; j++)); do row+="GPU$j"$'\t'; done
    echo "${'$'}{row}CPU Affinity"$'\t'"NUMA Affinity"$'\t'"GPU NUMA ID$un"
    for ((i = 0; i < COUNT; i++)); do
      row="GPU$i"
      for ((j = 0; j < COUNT; j++)); do if [ $i = $j ]; then row+=$'\t X '; else row+=$'\t'$LINK; fi; done
      echo "$row"$'\t0-15\t0\t\tN/A'
    done
    topo_legend
  else
    row=$' \t'$ul; for ((j = 0; j < COUNT; j++)); do row+="GPU$j"$'\t'; done
    echo "$row$un"
    for ((i = 0; i < COUNT; i++)); do
      row=" GPU$i"$'\t'
      for ((j = 0; j < COUNT; j++)); do if [ $i = $j ]; then row+=$'X\t'; else row+="$P2P"$'\t'; fi; done
      echo "$row"
    done
    p2p_legend
  fi
}
banner() {
  printf '+-----------------------------------------------------------------------------------------+\n'
  printf '| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|\n' "$DRIVER" "$DRIVER" "$CUDA"
  printf '+-----------------------------------------------------------------------------------------+\n'
  for ((i = 0; i < COUNT; i++)); do printf '| %3d  %-83s|\n' "$i" "$NAME"; done
}
[ "$COUNT" -gt 0 ] || { case "$1" in --version) ;; *) echo 'No devices were found'; exit 6 ;; esac; }
qf= fmt=
case $1 in
  --version) printf 'NVIDIA-SMI version  : %s\nNVML version        : %s\nDRIVER version      : %s\nCUDA Version        : %s\n' "$DRIVER" "${'$'}{DRIVER%.*}" "$DRIVER" "$CUDA" ;;
  -L) for ((i = 0; i < COUNT; i++)); do printf 'GPU %d: %s (UUID: %s)\n' "$i" "$NAME" "$(uuid "$i")"; done ;;
  topo)
    case "$2 $3" in
      '-m '|'--matrix ') matrix m ;;
      '-p2p r'|'-p2p w'|'-p2p n'|'-p2p a'|'-p2p p') matrix p ;;
      *) echo "Invalid combination of input arguments. Please run 'nvidia-smi topo -h' for help."; exit 2 ;;
    esac ;;
  '') banner ;;
  --query-gpu=*|--format=*)
    for a in "$@"; do
      case $a in --query-gpu=*) qf=${'$'}{a#*=} ;; --format=*) fmt=${'$'}{a#*=} ;; esac
    done
    [ -n "$qf" ] && [ -n "$fmt" ] || { echo "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help."; exit 2; }
    query "$qf" "$fmt" ;;
  *) echo "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help."; exit 2 ;;
esac
`;

/**
 * Writes the tool into `folder` (made when missing) with the facts it answers from. Called when the
 * instance's container starts and again whenever its lie changes.
 */
export function writeFakeSmi(folder: string, hw: SmiHardware): void {
  mkdirSync(folder, { recursive: true });
  const tool = join(folder, 'nvidia-smi');
  if (!existsSync(tool)) {
    writeFileSync(tool, SCRIPT);
    chmodSync(tool, 0o755);
  }
  // Renamed over the old one, so a call running meanwhile reads one whole file.
  writeFileSync(join(folder, 'hardware.tmp'), hardwareFile(hw));
  renameSync(join(folder, 'hardware.tmp'), join(folder, 'hardware'));
}
