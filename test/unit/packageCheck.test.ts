import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import {
  checkVsix,
  checkLocalisation,
  checkVsixFile,
  contributedFiles,
  KEYWORD_LIMIT,
  pngSize,
  readmeImages,
  readVsix,
  type VsixEntry,
} from '../../scripts/openVsx';
import { readmeFlags, readmeWithoutImages } from '../../scripts/package';

const REPO = join(__dirname, '..', '..');
const ICON = readFileSync(join(REPO, 'media', 'icon.png'));

function entry(path: string, contents: string | Buffer): VsixEntry {
  const data = Buffer.isBuffer(contents) ? contents : Buffer.from(contents);
  return { path, size: data.length, data: () => data };
}

/** A zip as vsce writes one: a local header per entry, then the central directory. */
function zip(files: Array<{ path: string; contents: string | Buffer; deflate?: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const raw = Buffer.isBuffer(f.contents) ? f.contents : Buffer.from(f.contents);
    const body = f.deflate ? deflateRawSync(raw) : raw;
    const name = Buffer.from(f.path);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(f.deflate ? 8 : 0, 8);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(f.deflate ? 8 : 0, 10);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const goodManifest = (): Record<string, unknown> => ({
  name: 'gpu-rental',
  displayName: 'GPU Rental',
  description: 'Rent cloud GPUs and open them as a remote workspace.',
  version: '0.1.0',
  publisher: 'gpu-rental',
  license: 'MIT',
  icon: 'media/icon.png',
  galleryBanner: { color: '#12516b', theme: 'dark' },
  engines: { vscode: '^1.96.0' },
  categories: ['Machine Learning', 'Data Science'],
  keywords: ['gpu', 'cuda', 'vast.ai'],
  contributes: { viewsContainers: { activitybar: [{ id: 'gpuRental', title: 'GPU Rental', icon: 'media/gpu-rental.svg' }] } },
});

/** extension.vsixmanifest as vsce writes it, cut to what the check reads. */
const vsixManifest = (
  identity = { id: 'gpu-rental', version: '0.1.0', publisher: 'gpu-rental' },
  tags = 'gpu,cuda,vast.ai,remote-menu',
): string =>
  `<PackageManifest><Metadata><Identity Language="en-US" Id="${identity.id}" Version="${identity.version}" Publisher="${identity.publisher}" />` +
  `<Tags>${tags}</Tags></Metadata></PackageManifest>`;

const goodFiles = (readme = '# GPU Rental\n\n![Offers](https://example.com/media/screenshots/offers.png)\n'): VsixEntry[] => [
  entry('extension.vsixmanifest', vsixManifest()),
  entry('[Content_Types].xml', '<Types/>'),
  entry('extension/package.json', JSON.stringify(goodManifest())),
  entry('extension/LICENSE.txt', 'MIT License'),
  entry('extension/changelog.md', '# Changelog'),
  entry('extension/readme.md', readme),
  entry('extension/media/icon.png', ICON),
  entry('extension/media/gpu-rental.svg', '<svg/>'),
  entry('extension/dist/extension.js', 'module.exports = {};'),
];

describe('the Open VSX check of a packaged extension', () => {
  it('passes a VSIX that both registries accept', () => {
    assert.deepEqual(checkVsix({ manifest: goodManifest(), files: goodFiles(), bytes: 400_000 }), []);
  });

  it('names every field and file a registry would refuse', () => {
    const manifest = {
      ...goodManifest(),
      publisher: 'Your Publisher',
      version: '1.0',
      license: undefined,
      icon: 'media/gpu-rental.svg',
      categories: ['Cloud'],
      keywords: Array.from({ length: KEYWORD_LIMIT + 1 }, (_, i) => `k${i}`),
      engines: {},
      galleryBanner: { theme: 'blue' },
      repository: 'not a url',
      enabledApiProposals: ['terminalDataWriteEvent'],
      contributes: { walkthroughs: [{ steps: [{ media: { image: 'media/walkthrough/rent.png', altText: 'Rent' } }] }] },
    };
    const files = goodFiles('![Offers](screenshots/offers.png)\n<img src="https://example.com/badge.svg">')
      .filter((f) => !/LICENSE|changelog/.test(f.path))
      .concat(entry('extension/dist/extension.js.map', '{}'));
    const problems = checkVsix({ manifest, files, bytes: 2 * 1024 * 1024 });
    const expected = [
      /publisher \(the Open VSX namespace\) "Your Publisher" may hold only letters, digits and "-"/,
      /version "1.0" is not a semantic version/,
      /extension.vsixmanifest's Version "0.1.0" differs from package.json's version/,
      /extension.vsixmanifest's Publisher "gpu-rental" differs from package.json's publisher/,
      /engines.vscode is missing/,
      /category "Cloud" is not one of VS Code's categories/,
      /keywords has 31 entries; the Marketplace takes at most 30/,
      /license is missing: Open VSX refuses an unlicensed extension/,
      /no LICENSE file in the VSIX/,
      /repository "not a url" is not an absolute URL/,
      /galleryBanner.theme "blue" must be dark or light/,
      /icon "media\/gpu-rental.svg" is an SVG; both registries need a PNG/,
      /README image "screenshots\/offers.png" is not an https URL/,
      /README image "https:\/\/example.com\/badge.svg" is an SVG/,
      /no CHANGELOG.md in the VSIX/,
      /media\/walkthrough\/rent.png, which contributes names, is not in the VSIX/,
      /enabledApiProposals is set/,
      /source maps ship in the VSIX: extension\/dist\/extension.js.map/,
      /the VSIX is 2048.0 KiB, over the 1024 KiB budget/,
    ];
    for (const pattern of expected)
      assert.ok(
        problems.some((p) => pattern.test(p)),
        `${pattern} not in:\n${problems.join('\n')}`,
      );
    assert.equal(problems.length, expected.length, problems.join('\n'));
  });

  it('refuses a pre-release tag, a vsixmanifest that disagrees, and more tags than the Marketplace takes', () => {
    const manifest = { ...goodManifest(), version: '0.2.0-beta.1' };
    const tags = Array.from({ length: KEYWORD_LIMIT }, (_, i) => `k${i}`).join(',') + ',remote-menu';
    const files = goodFiles().map((f) =>
      f.path === 'extension.vsixmanifest'
        ? entry(f.path, vsixManifest({ id: 'gpu-rental', version: '0.1.0', publisher: 'gpu-rental' }, tags))
        : f,
    );
    assert.deepEqual(checkVsix({ manifest, files, bytes: 1 }), [
      `extension.vsixmanifest's Version "0.1.0" differs from package.json's version.`,
      'the VSIX has 31 tags (keywords plus those vsce adds); the Marketplace takes at most 30.',
      'version "0.2.0-beta.1" has a pre-release or build tag, which the Marketplace refuses: package with --pre-release instead.',
    ]);
  });

  it('refuses an icon that is missing, not a PNG or too small', () => {
    const check = (icon: Buffer | undefined) => {
      const files = goodFiles().filter((f) => f.path !== 'extension/media/icon.png');
      if (icon) files.push(entry('extension/media/icon.png', icon));
      return checkVsix({ manifest: goodManifest(), files, bytes: 1 });
    };
    assert.match(check(undefined).join('\n'), /icon "media\/icon.png" is not in the VSIX/);
    assert.match(check(Buffer.from('GIF89a')).join('\n'), /icon "media\/icon.png" is not a PNG/);
    const small = Buffer.from(ICON);
    small.writeUInt32BE(64, 16);
    small.writeUInt32BE(64, 20);
    assert.match(check(small).join('\n'), /is 64×64; it should be square and at least 128×128/);
  });

  it('reads a VSIX, stored and deflated entries alike, and checks its packaged manifest', () => {
    const files = goodFiles().map((f) => ({ path: f.path, contents: f.data(), deflate: f.path.endsWith('.json') }));
    const archive = zip(files);
    const read = readVsix(archive);
    assert.deepEqual(
      read.map((f) => f.path),
      files.map((f) => f.path),
    );
    assert.equal(
      read
        .find((f) => f.path === 'extension/package.json')
        ?.data()
        .toString(),
      JSON.stringify(goodManifest()),
    );
    assert.deepEqual(checkVsixFile(archive).problems, []);
    const broken = zip(
      files.map((f) =>
        f.path === 'extension/package.json' ? { ...f, contents: JSON.stringify({ ...goodManifest(), version: 'latest' }) } : f,
      ),
    );
    assert.deepEqual(checkVsixFile(broken).problems, [
      `extension.vsixmanifest's Version "0.1.0" differs from package.json's version.`,
      'version "latest" is reserved.',
    ]);
    assert.throws(() => readVsix(Buffer.from('not a zip')), /not a zip archive/);
  });

  it('finds the README images of Markdown and HTML', () => {
    assert.deepEqual(readmeImages('![a](x.png) text ![b](<https://h/y.png> "title")\n<img alt="c" src=\'z.gif\'>'), [
      'x.png',
      'https://h/y.png',
      'z.gif',
    ]);
  });
});

describe('the localisation check of a packaged extension', () => {
  const localised = (): Record<string, unknown> => ({
    ...goodManifest(),
    l10n: './l10n',
    contributes: { commands: [{ command: 'gpuRental.refresh', title: '%command.refresh.title%', category: '%category%' }] },
  });
  const files = (nls: object | null = { 'command.refresh.title': 'Refresh', category: 'GPU Rental' }): VsixEntry[] => [
    ...goodFiles(),
    ...(nls ? [entry('extension/package.nls.json', JSON.stringify(nls))] : []),
    entry('extension/l10n/bundle.l10n.de.json', '{}'),
  ];

  it('passes %key% strings that package.nls.json has, and an l10n folder that ships', () => {
    assert.deepEqual(checkLocalisation(localised(), files()), []);
    assert.deepEqual(checkVsix({ manifest: localised(), files: files(), bytes: 1 }), []);
  });

  it('names a missing package.nls.json, a key it lacks, an l10n folder not shipped, and a placeholder listing', () => {
    assert.deepEqual(checkLocalisation(localised(), files(null)), [
      'package.nls.json is missing from the VSIX, so editors show the raw %key% strings: allow it in .vscodeignore.',
    ]);
    assert.deepEqual(checkLocalisation(localised(), files({ category: 'GPU Rental' })), [
      'package.nls.json lacks 1 key(s) package.json uses: command.refresh.title.',
    ]);
    const manifest = { ...localised(), displayName: '%displayName%', l10n: './translations' };
    assert.deepEqual(
      checkLocalisation(manifest, files({ 'command.refresh.title': 'Refresh', category: 'GPU Rental', displayName: 'GPU Rental' })),
      [
        'displayName is a %key% placeholder; Open VSX lists it unresolved: write the English text in package.json.',
        'l10n names translations/, but the VSIX has no file of it: put the l10n bundles there and allow translations/** in .vscodeignore.',
      ],
    );
    assert.deepEqual(checkLocalisation({ ...localised(), l10n: '../l10n' }, files()), [
      'l10n "../l10n" must be a folder inside the extension, such as ./l10n.',
    ]);
  });
});

describe('the packaged README and manifest', () => {
  it('leaves relative screenshots out when no images URL is given, and keeps the text', () => {
    const markdown = '# GPU Rental\n\nIntro.\n\n![Sidebar](screenshots/a.png)\n\n- **Offers**: search.\n\n![Remote](https://h/b.png)\n';
    assert.equal(readmeWithoutImages(markdown), '# GPU Rental\n\nIntro.\n\n- **Offers**: search.\n\n![Remote](https://h/b.png)\n');
  });

  it('makes the screenshots absolute under an https images URL, and refuses any other', () => {
    assert.deepEqual(readmeFlags('https://raw.example.com/org/repo/v0.1.0/'), [
      '--readme-path',
      'media/marketplace.md',
      '--baseImagesUrl',
      'https://raw.example.com/org/repo/v0.1.0/media',
    ]);
    assert.throws(() => readmeFlags('http://raw.example.com/repo'), /GPU_RENTAL_IMAGES_URL must be an https URL/);
  });

  it('media/marketplace.md links only screenshots that exist', () => {
    const markdown = readFileSync(join(REPO, 'media', 'marketplace.md'), 'utf8');
    const images = readmeImages(markdown);
    assert.ok(images.length > 0);
    for (const src of images) assert.ok(existsSync(join(REPO, 'media', src)), `media/${src} is missing`);
  });

  it("this repository's manifest, icon, license and changelog pass the check", () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(pngSize(ICON), { width: 128, height: 128 });
    // The vsixmanifest vsce would write for it, with the tag vsce adds for the remote indicator menu.
    const identity = { id: String(manifest['name']), version: String(manifest['version']), publisher: String(manifest['publisher']) };
    const tags = [...(manifest['keywords'] as string[]), 'remote-menu'].join(',');
    const files = goodFiles()
      .filter((f) => !f.path.startsWith('extension/media/') && f.path !== 'extension.vsixmanifest')
      .concat(entry('extension.vsixmanifest', vsixManifest(identity, tags)));
    // The English of its %key% strings, and the code strings' translations folder.
    const l10n = String(manifest['l10n']).replace(/^\.\//, '');
    const localised = ['package.nls.json', ...readdirSync(join(REPO, l10n)).map((f) => `${l10n}/${f}`)];
    for (const path of [String(manifest['icon']), ...contributedFiles(manifest['contributes']), ...localised]) {
      assert.ok(existsSync(join(REPO, path)), `${path} is missing`);
      files.push(entry(`extension/${path}`, readFileSync(join(REPO, path))));
    }
    assert.ok(existsSync(join(REPO, 'LICENSE')) && existsSync(join(REPO, 'CHANGELOG.md')));
    assert.deepEqual(checkVsix({ manifest, files, bytes: 1 }), []);
    assert.match(readFileSync(join(REPO, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} The GPU Rental authors\n/);
    assert.match(readFileSync(join(REPO, 'CHANGELOG.md'), 'utf8'), /\n## \[Unreleased\]\n/);
  });
});
