import type { Locator } from 'playwright-core';

/** Waits for what a person would see, with a message that says what was missing. */
export function expect(locator: Locator, timeoutMs = 20_000) {
  return {
    async toBeVisible(): Promise<void> {
      try {
        await locator.first().waitFor({ state: 'visible', timeout: timeoutMs });
      } catch (error) {
        throw new Error(`expected to see ${locator.toString()} within ${timeoutMs / 1000} s`, { cause: error });
      }
    },
    /** Polls the element's text until it matches (a terminal's rows change as output arrives). */
    async toContainText(pattern: RegExp): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        last = await locator
          .first()
          .innerText({ timeout: 1_000 })
          .catch(() => last);
        if (pattern.test(last)) return;
        if (Date.now() > deadline)
          throw new Error(
            `expected ${locator.toString()} to contain ${pattern} within ${timeoutMs / 1000} s; it showed:\n${last.slice(-600)}`,
          );
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async toBeHidden(): Promise<void> {
      try {
        await locator.first().waitFor({ state: 'hidden', timeout: timeoutMs });
      } catch (error) {
        throw new Error(`expected ${locator.toString()} to go away within ${timeoutMs / 1000} s`, { cause: error });
      }
    },
  };
}
