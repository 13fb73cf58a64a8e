import { l10n } from '../l10n';

/*
 * Which VS Code server an instance installs for Open in Browser, from where, and the sha256 it must
 * have. The instance downloads the tarball itself (never this machine); this machine only learns
 * the checksum, from a pin in the user's settings or from a checksum URL, so that a mirror (or a
 * host) that serves other bytes is refused on the instance before anything is unpacked.
 */

/** The code-server release installed by default (MIT; extensions from Open VSX). */
export const CODE_SERVER_VERSION = '4.139.1';

/** code-server's release tarball on GitHub; `${version}` and `${arch}` are filled in. */
export const DEFAULT_DOWNLOAD_URL =
  'https://github.com/coder/code-server/releases/download/v${version}/code-server-${version}-linux-${arch}.tar.gz';

/**
 * The default build's checksum: GitHub's release API, whose asset records carry a `digest`
 * ("sha256:<hex>") computed by GitHub at upload.
 */
export const DEFAULT_CHECKSUM_URL = 'https://api.github.com/repos/coder/code-server/releases/tags/v${version}';

/** The architectures code-server publishes Linux builds for, by `uname -m`. */
const ARCHES: Record<string, string> = { x86_64: 'amd64', amd64: 'amd64', aarch64: 'arm64', arm64: 'arm64' };

/** What the user's settings say about the build (all optional; empty means the default). */
export interface ReleaseSettings {
  readonly version?: string;
  readonly downloadUrl?: string;
  readonly checksumUrl?: string;
  /** Pinned sha256 by architecture (amd64, arm64): no checksum URL is read for a pinned one. */
  readonly sha256?: Readonly<Record<string, unknown>>;
}

/** The build for one instance: what it downloads, what it unpacks to, and where its checksum comes from. */
export interface Release {
  readonly version: string;
  /** `amd64` or `arm64`. */
  readonly arch: string;
  readonly url: string;
  /** The tarball's file name (the last path segment of `url`). */
  readonly fileName: string;
  /** The folder it is installed as on the instance. */
  readonly folderName: string;
  /** A pinned sha256 (lower-case hex), when the settings hold one for this architecture. */
  readonly pinnedSha256?: string;
  /** Where this machine reads the checksum when none is pinned. */
  readonly checksumUrl: string;
}

/** An error the user fixes in their settings or by choosing another instance: the text says how. */
export class ReleaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseError';
  }
}

/** The build's version: the setting's, else the pinned one; throws a ReleaseError for one that is not a version. */
export function releaseVersion(settings: Pick<ReleaseSettings, 'version'>): string {
  const version = (settings.version ?? '').trim() || CODE_SERVER_VERSION;
  if (!/^[0-9A-Za-z][0-9A-Za-z.+-]{0,40}$/.test(version)) {
    throw new ReleaseError(l10n.t('"{0}" is not a version for gpuRental.browserWorkspace.version.', version.slice(0, 60)));
  }
  return version;
}

/** `amd64` or `arm64` for what `uname -m` printed, or undefined when code-server has no Linux build for it. */
export function releaseArch(machine: string): string | undefined {
  return ARCHES[machine.trim()];
}

/** The build for an instance whose `uname -m` is `machine`; throws a ReleaseError the user can act on. */
export function releaseFor(settings: ReleaseSettings, machine: string): Release {
  const arch = releaseArch(machine);
  if (!arch) {
    throw new ReleaseError(
      l10n.t(
        'The instance is a {0} machine, and code-server publishes Linux builds only for x86_64 and arm64. Connect with Remote-SSH or an SSH terminal instead.',
        JSON.stringify(machine.trim().slice(0, 40)),
      ),
    );
  }
  const version = releaseVersion(settings);
  const template = (settings.downloadUrl ?? '').trim() || DEFAULT_DOWNLOAD_URL;
  const url = fill(template, version, arch, 'gpuRental.browserWorkspace.downloadUrl');
  const fileName = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*\.(tar\.gz|tgz)$/.test(fileName)) {
    throw new ReleaseError(l10n.t('{0} does not name a .tar.gz file: gpuRental.browserWorkspace.downloadUrl must end in one.', url));
  }
  const checksumTemplate = (settings.checksumUrl ?? '').trim();
  const checksumUrl = checksumTemplate
    ? fill(checksumTemplate, version, arch, 'gpuRental.browserWorkspace.checksumUrl')
    : template === DEFAULT_DOWNLOAD_URL
      ? fill(DEFAULT_CHECKSUM_URL, version, arch, 'gpuRental.browserWorkspace.checksumUrl')
      : `${url}.sha256`;
  const pinned = settings.sha256?.[arch];
  if (pinned !== undefined && (typeof pinned !== 'string' || !/^[0-9a-fA-F]{64}$/.test(pinned.trim()))) {
    throw new ReleaseError(l10n.t('gpuRental.browserWorkspace.sha256 holds no sha256 (64 hexadecimal digits) for {0}.', arch));
  }
  return {
    version,
    arch,
    url,
    fileName,
    folderName: `code-server-${version}-linux-${arch}`,
    checksumUrl,
    ...(typeof pinned === 'string' ? { pinnedSha256: pinned.trim().toLowerCase() } : {}),
  };
}

/** A template with its variables filled in, checked to be an http(s) URL with nothing a shell or curl reads specially. */
function fill(template: string, version: string, arch: string, setting: string): string {
  const url = template.replace(/\$\{version\}/g, version).replace(/\$\{arch\}/g, arch);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ReleaseError(l10n.t('{0} is not a URL: check {1}.', JSON.stringify(url.slice(0, 200)), setting));
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || /[\s'"`$\\]/.test(url) || parsed.username || parsed.password) {
    throw new ReleaseError(
      l10n.t('{0} is not an http or https URL without credentials: check {1}.', JSON.stringify(url.slice(0, 200)), setting),
    );
  }
  return parsed.href;
}

/**
 * The sha256 of `fileName` in a checksum answer: a GitHub release's JSON (the asset of that name,
 * its `digest`), or sha256sum's text (the line naming the file, or a lone digest). Undefined when
 * the answer names none.
 */
export function parseChecksum(body: string, fileName: string): string | undefined {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as { assets?: unknown };
      const assets = Array.isArray(json.assets) ? (json.assets as unknown[]) : [];
      for (const asset of assets) {
        if (typeof asset !== 'object' || asset === null) continue;
        const { name, digest } = asset as { name?: unknown; digest?: unknown };
        if (name !== fileName || typeof digest !== 'string') continue;
        const m = /^sha256:([0-9a-fA-F]{64})$/.exec(digest);
        return m ? m[1]!.toLowerCase() : undefined;
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  for (const line of lines) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(.+)$/.exec(line);
    if (m && (m[2] === fileName || m[2]!.endsWith(`/${fileName}`))) return m[1]!.toLowerCase();
  }
  if (lines.length === 1) {
    const lone = /^([0-9a-fA-F]{64})(\s.*)?$/.exec(lines[0]!);
    if (lone && !lone[2]?.trim()) return lone[1]!.toLowerCase();
  }
  return undefined;
}
