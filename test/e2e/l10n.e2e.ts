// The packaged extension in a VS Code whose display language is not English: a user sees the
// translation of the manifest (package.nls.<language>.json), of the UI's messages and of the
// messages src/core builds (routed to vscode.l10n.t by src/ui/l10n.ts), and English for a message
// the translation lacks. The translation is the pseudo one of test/harness/pseudoLocale.ts
// (`⟦message⟧`), written into the installed extension at test time.
import type { Locator } from 'playwright-core';
import { extensionHostLog } from '../../scripts/codeServer';
import {
  installedExtensionDir,
  pseudo,
  PSEUDO_LOCALE,
  pseudoLanguagePackVsix,
  registerPseudoLanguagePack,
  writePseudoTranslation,
} from '../harness/pseudoLocale';
import { DEMO_KEY } from '../support/keys';
import { expect } from './expect';
import { openWorkbench, PRICED, type Workbench } from './workbench';

/** Built in src/core (offers/search.ts, the Offers filter row): shown translated only if core's l10n.t reaches vscode.l10n.t. */
const CORE_MESSAGE = 'rentable, verified machines';
/** Built in src/core (offers/present.ts, an offer's tooltip). */
const CORE_TOOLTIP_MESSAGE = 'Disk space';
/** Also on the Offers filter row (offers/search.ts), left out of the translation: it must show in English. */
const MISSING_MESSAGE = 'prices include {0} disk';
/** src/ui/status/accountStatus.ts: the credit item's tooltip. */
const UI_MESSAGE = 'Signed in as {0}';
/** src/ui/status/accountStatus.ts: what a screen reader says for the credit item. */
const UI_SPOKEN = 'GPU Rental account: {0}';
/** package.nls.json keys left out of the translation: the Account view keeps its English name. */
const MISSING_MANIFEST_KEY = 'view.gpuRental.account.name';

describe('localisation: the extension in a display language other than English (qps-ploc)', function () {
  this.timeout(300_000);
  let wb: Workbench | undefined;
  let translation: { messages: Record<string, string>; manifest: Record<string, string> } | undefined;
  const workbench = () => {
    if (!wb || !translation) throw new Error('the workbench did not open');
    return { wb, translation };
  };
  /** The translation of a message, failing when the bundle no longer has it (the message was reworded). */
  const translated = (message: string): string => {
    const text = workbench().translation.messages[message];
    if (text === undefined) throw new Error(`l10n/bundle.l10n.json has no message "${message}": pick one it has`);
    return text.trim();
  };
  const nls = (key: string): string => {
    const text = workbench().translation.manifest[key];
    if (text === undefined) throw new Error(`package.nls.json has no key "${key}"`);
    return text;
  };
  /** What a message looks like once its placeholders are filled in. */
  const shown = (message: string): RegExp =>
    new RegExp(
      message
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\{\d+\}/g, '.*?')
        .replace(/[{}]/g, '\\$&'),
    );
  const section = (name: string): Locator =>
    workbench()
      .wb.page.locator('.pane')
      .filter({ has: workbench().wb.page.locator(`.pane-header h3.title:text-is("${name}")`) });

  before(async () => {
    wb = await openWorkbench({
      bootSeconds: 2,
      env: { GPU_RENTAL_API_KEY: DEMO_KEY },
      locale: PSEUDO_LOCALE,
      install: [pseudoLanguagePackVsix()],
      beforeLoad: (server) => {
        translation = writePseudoTranslation(installedExtensionDir(server.extensionsDir), {
          messages: [MISSING_MESSAGE],
          manifest: [MISSING_MANIFEST_KEY],
        });
        registerPseudoLanguagePack(server.userDataDir, server.extensionsDir);
      },
    });
    const container = pseudo('GPU Rental');
    await wb.page
      .locator(`.activitybar .action-item a[aria-label^="${container}"], .activitybar .action-item[aria-label^="${container}"]`)
      .first()
      .click();
  });
  after(() => wb?.close());
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && wb) await wb.shot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });

  it('runs the workbench, and so the extension host, in qps-ploc', async () => {
    const { wb } = workbench();
    // What the browser workbench runs in is what it hands the extension host as vscode.env.language.
    const language = await wb.page.evaluate(() => (globalThis as { _VSCODE_NLS_LANGUAGE?: string })._VSCODE_NLS_LANGUAGE);
    if (language !== PSEUDO_LOCALE) throw new Error(`the workbench runs in "${String(language)}", not ${PSEUDO_LOCALE}`);
  });

  it('shows the manifest translated: view names and command titles', async () => {
    const { wb } = workbench();
    await expect(section(nls('view.gpuRental.instances.name'))).toBeVisible();
    await expect(section(nls('view.gpuRental.offers.name'))).toBeVisible();
    await wb.runCommand(`${nls('category')}: ${nls('command.gpuRental.refresh.title')}`);
  });

  it('falls back to English for a manifest string the translation lacks', async () => {
    await expect(section('Account')).toBeVisible();
  });

  it('shows a message built in src/core translated, next to an untranslated one in English', async () => {
    const { wb } = workbench();
    const offers = section(nls('view.gpuRental.offers.name'));
    const filters = offers.locator('.monaco-list-row').filter({ hasText: translated(CORE_MESSAGE) });
    await expect(filters, 60_000).toBeVisible();
    // The message the translation lacks: English, not marked.
    await expect(filters).toContainText(/ · prices include \d+ GB disk/);
    // An offer's tooltip (src/core/offers/present.ts).
    // A row drawn again while the hover waits (its price context arriving) cancels the hover: point again.
    const tooltip = wb.page.locator('.monaco-hover').filter({ hasText: translated(CORE_TOOLTIP_MESSAGE) });
    const deadline = Date.now() + 30_000;
    for (;;) {
      await offers.locator('.monaco-list-row').filter({ hasText: PRICED }).nth(1).hover();
      const shown = await tooltip.waitFor({ timeout: 4_000 }).then(
        () => true,
        () => false,
      );
      if (shown) break;
      if (Date.now() > deadline) throw new Error(`no offer tooltip showed "${translated(CORE_TOOLTIP_MESSAGE)}"`);
      await wb.page.mouse.move(700, 300);
    }
    await wb.shot('e2e-l10n-pseudo', true);
  });

  it("looked the missing message up in the extension's bundle (the extension host's log says so)", async () => {
    // vscode.l10n.t logs each message its bundle lacks: proof that the extension host read
    // bundle.l10n.qps-ploc.json for this extension, and that English came from the fallback.
    const missing = `no string found in i18n bundle that has the key: ${MISSING_MESSAGE}`;
    const deadline = Date.now() + 20_000;
    while (!extensionHostLog(workbench().wb.server, 1_000_000).includes(missing)) {
      if (Date.now() > deadline) throw new Error(`the extension host's log never says "${missing}"`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  it('shows a message of src/ui translated: the credit item, spoken and in its tooltip', async () => {
    const { wb } = workbench();
    // No profile, so the message without one; {0} is the credit.
    const spoken = translated(UI_SPOKEN).split('{0}')[0]!;
    await expect(wb.page.locator(`.statusbar [aria-label*="${spoken}"]`)).toBeVisible();
    await wb
      .statusBar(/\$250\.00/)
      .first()
      .hover();
    await expect(wb.page.locator('.monaco-hover').filter({ hasText: shown(translated(UI_MESSAGE)) })).toBeVisible();
  });
});
