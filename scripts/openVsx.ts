// The checks Open VSX (and the VS Code Marketplace) make when an extension is published, run on the
// packaged VSIX offline, so `npm run package` says before an upload what the registry would refuse.
// The rules follow Open VSX's server validation (names, semantic version, field sizes and
// characters, URLs, the fixed values of markdown/qna/galleryBanner), its publishing rule that an
// extension has a license, and what both registries show: a PNG icon, a README whose images each
// registry can fetch (neither resolves a path into the VSIX), and no proposed API.
import { inflateRawSync } from 'node:zlib';

/** One file of a VSIX: its path in the archive and its uncompressed bytes. */
export interface VsixEntry {
  path: string;
  size: number;
  data: () => Buffer;
}

/**
 * Reads a VSIX (a zip) through its central directory: every entry's path and size, and its
 * contents on demand (stored or deflated, the only methods vsce writes).
 */
export function readVsix(zip: Buffer): VsixEntry[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: VsixEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`corrupt central directory at entry ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const path = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    const data = (): Buffer => {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const raw = zip.subarray(start, start + compressed);
      if (method === 0) return Buffer.from(raw);
      if (method === 8) return inflateRawSync(raw);
      throw new Error(`${path}: unsupported zip compression method ${method}`);
    };
    entries.push({ path, size, data });
  }
  return entries;
}

/** What is checked: the packaged manifest, the files of the VSIX, the archive's size. */
export interface VsixContents {
  manifest: Record<string, unknown>;
  files: VsixEntry[];
  bytes: number;
}

/** Open VSX's pattern for a namespace (the publisher) and an extension name. */
const NAME = /^[\w\-+$~]+$/;
/** The Marketplace's stricter pattern (vsce refuses anything else). */
const MARKETPLACE_NAME = /^[a-z0-9][a-z0-9-]*$/i;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const FIELD_LIMIT = 255;
const DESCRIPTION_LIMIT = 2048;
/** The Marketplace keeps at most 30 keywords (tags); vsce does not check it, the upload does. */
export const KEYWORD_LIMIT = 30;
/** This project's budget for the VSIX (the activation bench reports it too); not a registry limit. */
export const SIZE_BUDGET = 1024 * 1024;
/** VS Code's category list: the Marketplace files an extension only under these. */
export const CATEGORIES = new Set([
  'AI',
  'Azure',
  'Chat',
  'Data Science',
  'Debuggers',
  'Education',
  'Extension Packs',
  'Formatters',
  'Keymaps',
  'Language Packs',
  'Linters',
  'Machine Learning',
  'Notebooks',
  'Other',
  'Programming Languages',
  'SCM Providers',
  'Snippets',
  'Testing',
  'Themes',
  'Visualization',
]);
/** Publisher ids that mean nobody chose one. */
const PLACEHOLDER_PUBLISHERS = new Set(['publisher', 'your-publisher', 'yourpublisher', 'undefined', 'vscode-samples', 'test']);

// Control, format, private-use and separator characters: Open VSX refuses them in text fields.
const BAD_CHARACTER = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value.startsWith('git+') ? value.slice(4) : value);
    return !/^https?:$/.test(url.protocol) || url.hostname !== '';
  } catch {
    return false;
  }
}

/** The width and height of a PNG, from its IHDR chunk; undefined when the bytes are not a PNG. */
export function pngSize(png: Buffer): { width: number; height: number } | undefined {
  if (png.length < 24 || png.readUInt32BE(0) !== 0x89504e47 || png.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The image sources of a Markdown README: `![alt](src)` and `<img src="...">`. */
export function readmeImages(markdown: string): string[] {
  const images: string[] = [];
  for (const m of markdown.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) images.push(m[1] ?? '');
  for (const m of markdown.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)) images.push(m[1] ?? '');
  return images;
}

/** Files `contributes` points at (view icons, walkthrough media), which must ship in the VSIX. */
export function contributedFiles(contributes: unknown): string[] {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      if (/^(\.\/)?[\w-]+(\/[\w.-]+)*\.(png|svg|gif|jpe?g|md|css)$/i.test(value)) found.add(value.replace(/^\.\//, ''));
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(contributes);
  return [...found];
}

function attribute(xml: string, element: string, name: string): string | undefined {
  const tag = new RegExp(`<${element}\\b[^>]*>`).exec(xml)?.[0];
  return tag ? new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] : undefined;
}

/**
 * The gallery reads identity and tags from extension.vsixmanifest, not package.json: they must
 * agree, and the tags (the keywords plus those vsce adds, such as remote-menu) count toward the
 * Marketplace's limit.
 */
export function checkVsixManifest(xml: string, manifest: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [attr, key] of [
    ['Id', 'name'],
    ['Version', 'version'],
    ['Publisher', 'publisher'],
  ] as const) {
    const value = attribute(xml, 'Identity', attr);
    if (value !== text(manifest[key]))
      problems.push(`extension.vsixmanifest's ${attr} "${value ?? ''}" differs from package.json's ${key}.`);
  }
  const tags = (/<Tags>([^<]*)<\/Tags>/.exec(xml)?.[1] ?? '').split(',').filter(Boolean);
  if (tags.length > KEYWORD_LIMIT)
    problems.push(`the VSIX has ${tags.length} tags (keywords plus those vsce adds); the Marketplace takes at most ${KEYWORD_LIMIT}.`);
  return problems;
}

function findFile(files: VsixEntry[], pattern: RegExp): VsixEntry | undefined {
  return files.find((f) => pattern.test(f.path));
}

/**
 * Every reason Open VSX or the Marketplace would refuse this VSIX, or show it broken; an empty
 * list means it passes. Each message names the field or file and what to change.
 */
export function checkVsix({ manifest, files, bytes }: VsixContents, budget = SIZE_BUDGET): string[] {
  const problems: string[] = [];
  const field = (name: string, value: string | undefined, limit = FIELD_LIMIT): void => {
    if (value === undefined) return;
    if (value.length > limit) problems.push(`${name} is ${value.length} characters; the limit is ${limit}.`);
    if (BAD_CHARACTER.test(value)) problems.push(`${name} holds a control or invisible character.`);
  };

  for (const required of ['extension.vsixmanifest', '[Content_Types].xml', 'extension/package.json']) {
    if (!files.some((f) => f.path === required)) problems.push(`${required} is missing from the VSIX: package it with vsce.`);
  }
  const vsixManifest = files.find((f) => f.path === 'extension.vsixmanifest');
  if (vsixManifest) problems.push(...checkVsixManifest(vsixManifest.data().toString('utf8'), manifest));

  const publisher = text(manifest['publisher']);
  const name = text(manifest['name']);
  for (const [label, value] of [
    ['publisher (the Open VSX namespace)', publisher],
    ['name', name],
  ] as const) {
    if (!value) problems.push(`${label} is empty.`);
    else if (!NAME.test(value) || !MARKETPLACE_NAME.test(value))
      problems.push(`${label} "${value}" may hold only letters, digits and "-".`);
    else field(label, value);
  }
  if (publisher && PLACEHOLDER_PUBLISHERS.has(publisher.toLowerCase())) problems.push(`publisher "${publisher}" is a placeholder.`);

  const version = text(manifest['version']);
  if (!version) problems.push('version is empty.');
  else if (['latest', 'pre-release', 'reviews'].includes(version)) problems.push(`version "${version}" is reserved.`);
  else if (!SEMVER.test(version)) problems.push(`version "${version}" is not a semantic version (MAJOR.MINOR.PATCH).`);
  else if (/[-+]/.test(version))
    problems.push(
      `version "${version}" has a pre-release or build tag, which the Marketplace refuses: package with --pre-release instead.`,
    );

  const engines = manifest['engines'] as Record<string, unknown> | undefined;
  const vscodeEngine = text(engines?.['vscode']);
  if (!vscodeEngine) problems.push('engines.vscode is missing: editors cannot tell which versions it runs on.');
  else if (!/^\^?\d+\.\d+\.\d+/.test(vscodeEngine) && vscodeEngine !== '*')
    problems.push(`engines.vscode "${vscodeEngine}" is not a version range such as ^1.96.0.`);

  field('displayName', text(manifest['displayName']));
  const description = text(manifest['description']);
  if (!description) problems.push('description is empty: both registries show it under the name.');
  field('description', description, DESCRIPTION_LIMIT);
  const categories = Array.isArray(manifest['categories']) ? (manifest['categories'] as unknown[]) : [];
  const keywords = Array.isArray(manifest['keywords']) ? (manifest['keywords'] as unknown[]) : [];
  categories.forEach((c, i) => field(`categories[${i}]`, text(c) ?? ''));
  for (const c of categories) if (!CATEGORIES.has(String(c))) problems.push(`category "${String(c)}" is not one of VS Code's categories.`);
  if (categories.length === 0) problems.push('categories is empty: the extension is filed under none.');
  keywords.forEach((k, i) => field(`keywords[${i}]`, text(k) ?? ''));
  if (keywords.length > KEYWORD_LIMIT)
    problems.push(`keywords has ${keywords.length} entries; the Marketplace takes at most ${KEYWORD_LIMIT}.`);

  // open-vsx.org refuses an extension without a license; the file is what a user reads.
  const license = text(manifest['license']);
  if (!license || /^unlicen[sc]ed$/i.test(license)) problems.push('license is missing: Open VSX refuses an unlicensed extension.');
  field('license', license);
  if (!findFile(files, /^extension\/licen[sc]e(\.(md|txt))?$/i)) problems.push('no LICENSE file in the VSIX: allow it in .vscodeignore.');

  for (const key of ['homepage', 'bugs'] as const) {
    const value = text(manifest[key]) ?? text((manifest[key] as Record<string, unknown> | undefined)?.['url']);
    if (value !== undefined && !isUrl(value)) problems.push(`${key} "${value}" is not an absolute URL.`);
    field(key, value);
  }
  const repository = text(manifest['repository']) ?? text((manifest['repository'] as Record<string, unknown> | undefined)?.['url']);
  if (repository !== undefined && !isUrl(repository)) problems.push(`repository "${repository}" is not an absolute URL.`);
  field('repository', repository);

  const markdown = text(manifest['markdown']);
  if (markdown !== undefined && !['github', 'standard'].includes(markdown))
    problems.push(`markdown "${markdown}" must be github or standard.`);
  const qna = manifest['qna'];
  if (qna !== undefined && qna !== false && qna !== 'marketplace' && !(typeof qna === 'string' && isUrl(qna)))
    problems.push(`qna must be "marketplace", false or a URL.`);
  const banner = manifest['galleryBanner'] as Record<string, unknown> | undefined;
  const theme = text(banner?.['theme']);
  if (theme !== undefined && !['dark', 'light'].includes(theme)) problems.push(`galleryBanner.theme "${theme}" must be dark or light.`);
  field('galleryBanner.color', text(banner?.['color']), 16);

  const icon = text(manifest['icon']);
  if (!icon) problems.push('icon is missing: both registries show a blank tile.');
  else if (/\.svg$/i.test(icon)) problems.push(`icon "${icon}" is an SVG; both registries need a PNG.`);
  else {
    const file = files.find((f) => f.path === `extension/${icon.replace(/^\.\//, '')}`);
    const size = file ? pngSize(file.data()) : undefined;
    if (!file) problems.push(`icon "${icon}" is not in the VSIX: allow it in .vscodeignore.`);
    else if (!size) problems.push(`icon "${icon}" is not a PNG.`);
    else if (size.width !== size.height || size.width < 128)
      problems.push(`icon "${icon}" is ${size.width}×${size.height}; it should be square and at least 128×128.`);
  }

  const readme = findFile(files, /^extension\/readme\.md$/i);
  if (!readme) problems.push('no README in the VSIX: the extension page would be empty.');
  else {
    for (const src of readmeImages(readme.data().toString('utf8'))) {
      if (!/^https:\/\//i.test(src))
        problems.push(`README image "${src}" is not an https URL; neither registry resolves it into the VSIX.`);
      else if (/\.svg(\?|#|$)/i.test(src)) problems.push(`README image "${src}" is an SVG, which the Marketplace refuses.`);
    }
  }
  if (!findFile(files, /^extension\/changelog\.md$/i)) problems.push('no CHANGELOG.md in the VSIX: the Changelog tab would be empty.');

  for (const path of contributedFiles(manifest['contributes'])) {
    if (!files.some((f) => f.path === `extension/${path}`))
      problems.push(`${path}, which contributes names, is not in the VSIX: allow it in .vscodeignore.`);
  }
  problems.push(...checkLocalisation(manifest, files));
  if (Array.isArray(manifest['enabledApiProposals']) && manifest['enabledApiProposals'].length > 0)
    problems.push('enabledApiProposals is set: proposed API cannot be published.');
  const shipped = files.filter((f) => /^extension\/(node_modules\/|src\/|test\/)|\.map$/.test(f.path)).map((f) => f.path);
  if (shipped.length > 0) problems.push(`sources, tests or source maps ship in the VSIX: ${shipped.slice(0, 5).join(', ')}.`);
  if (bytes > budget) problems.push(`the VSIX is ${(bytes / 1024).toFixed(1)} KiB, over the ${(budget / 1024).toFixed(0)} KiB budget.`);
  return problems;
}

/** A manifest string VS Code replaces from package.nls.json: the whole value is `%key%`. */
const PLACEHOLDER = /^%([\w.:-]+)%$/;

/** Every `%key%` placeholder in a manifest value. */
export function placeholders(value: unknown): string[] {
  if (typeof value === 'string') {
    const key = PLACEHOLDER.exec(value)?.[1];
    return key === undefined ? [] : [key];
  }
  if (Array.isArray(value)) return value.flatMap(placeholders);
  if (value && typeof value === 'object') return Object.values(value).flatMap(placeholders);
  return [];
}

/**
 * The manifest's `%key%` strings need package.nls.json in the VSIX (VS Code shows a missing one as
 * the raw key), and the `l10n` folder must ship. displayName and description stay plain text: both
 * registries list them, and Open VSX does not reliably resolve a placeholder there.
 */
export function checkLocalisation(manifest: Record<string, unknown>, files: VsixEntry[]): string[] {
  const problems: string[] = [];
  for (const key of ['displayName', 'description'] as const)
    if (placeholders(manifest[key]).length > 0)
      problems.push(`${key} is a %key% placeholder; Open VSX lists it unresolved: write the English text in package.json.`);
  const keys = [...new Set(placeholders(manifest))];
  if (keys.length > 0) {
    const nls = files.find((f) => f.path === 'extension/package.nls.json');
    if (!nls) problems.push('package.nls.json is missing from the VSIX, so editors show the raw %key% strings: allow it in .vscodeignore.');
    else {
      let english: Record<string, unknown> = {};
      try {
        english = JSON.parse(nls.data().toString('utf8')) as Record<string, unknown>;
      } catch {
        problems.push('package.nls.json in the VSIX is not valid JSON.');
      }
      const missing = keys.filter((k) => typeof english[k] !== 'string');
      if (missing.length > 0)
        problems.push(`package.nls.json lacks ${missing.length} key(s) package.json uses: ${missing.slice(0, 5).join(', ')}.`);
    }
  }
  const l10n = text(manifest['l10n']);
  if (l10n !== undefined) {
    const folder = l10n.replace(/^\.\//, '').replace(/\/+$/, '');
    if (folder === '' || folder.startsWith('/') || folder.split('/').includes('..'))
      problems.push(`l10n "${l10n}" must be a folder inside the extension, such as ./l10n.`);
    else if (!files.some((f) => f.path.startsWith(`extension/${folder}/`)))
      problems.push(
        `l10n names ${folder}/, but the VSIX has no file of it: put the l10n bundles there and allow ${folder}/** in .vscodeignore.`,
      );
  }
  return problems;
}

/** The check of a VSIX file's bytes: its packaged package.json, files and size. */
export function checkVsixFile(zip: Buffer, budget = SIZE_BUDGET): { files: VsixEntry[]; problems: string[] } {
  const files = readVsix(zip);
  const packageJson = files.find((f) => f.path === 'extension/package.json');
  const manifest = packageJson ? (JSON.parse(packageJson.data().toString('utf8')) as Record<string, unknown>) : {};
  return { files, problems: checkVsix({ manifest, files, bytes: zip.length }, budget) };
}
