/**
 * Polls `check` until it returns something other than `undefined` or `false`, and resolves with that value.
 *
 * The one polling helper for unit tests, bench scripts, e2e and the integration suites. It imports neither mocha nor
 * vscode so every kind of test can use it. Rejects with an error naming `what` when `timeoutMs` passes first, so a
 * failing test says which condition never came true.
 */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
