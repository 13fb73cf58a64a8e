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
    async toBeHidden(): Promise<void> {
      try {
        await locator.first().waitFor({ state: 'hidden', timeout: timeoutMs });
      } catch (error) {
        throw new Error(`expected ${locator.toString()} to go away within ${timeoutMs / 1000} s`, { cause: error });
      }
    },
  };
}
