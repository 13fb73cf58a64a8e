/**
 * What the Notify Me flow tests share: the extension's real client against the stub service
 * (stubService.ts), a vault over a Map standing in for SecretStorage, a scripted user, and every
 * place a secret could leak to, gathered for one check.
 */
import assert from 'node:assert/strict';
import type { ManyPrompt, NotifyDeps, NotifyOutcome } from '../../../src/core/notify/flowParts';
import { NotifyVault, type NotifyScope, type SecretStore } from '../../../src/core/notify/vault';
import { clientFor, MemoryLogger } from '../../support';
import { scriptedAsk, type Answer } from '../../support/scriptedAsk';
import type { StubService } from './stubService';

/** SecretStorage in a Map; `failing` makes every write fail (a keychain that refuses). */
export class MapSecrets implements SecretStore {
  readonly values = new Map<string, string>();
  failing = false;
  get(key: string) {
    return Promise.resolve(this.values.get(key));
  }
  store(key: string, value: string) {
    if (this.failing) return Promise.reject(new Error('the keychain is locked'));
    this.values.set(key, value);
    return Promise.resolve();
  }
  delete(key: string) {
    this.values.delete(key);
    return Promise.resolve();
  }
}

/** A user's answers to the several-item picks, in order: the values to pick, or 'ticked' (what the pick ticked), or undefined (dismissed). */
export type ManyAnswer = readonly string[] | 'ticked' | undefined;

export interface Kit {
  d: NotifyDeps;
  ask: ReturnType<typeof scriptedAsk>;
  /** Every several-item pick shown. */
  many: ManyPrompt<unknown>[];
  /** What reached the clipboard. */
  copied: string[];
  logger: MemoryLogger;
  /** The client's own log (the transport's lines). */
  clientLog: MemoryLogger;
  secrets: MapSecrets;
  vault: NotifyVault;
  scope: NotifyScope;
}

/** The deps of a flow against `service` (the stub, or the simulator with its key). */
export function kit(
  service: Pick<StubService, 'url'>,
  answers: Answer[],
  manyAnswers: ManyAnswer[] = [],
  profileId = 'default',
  key = 'stub-key',
): Kit {
  const { client, logger: clientLog } = clientFor(service.url, key);
  const ask = scriptedAsk(answers);
  const many: ManyPrompt<unknown>[] = [];
  const copied: string[] = [];
  const logger = new MemoryLogger();
  const secrets = new MapSecrets();
  const vault = new NotifyVault(secrets, () => 1_000 + many.length);
  const scope = { baseUrl: service.url, profileId };
  const queue = [...manyAnswers];
  const pickMany = <T>(prompt: ManyPrompt<T>): Promise<T[] | undefined> => {
    many.push(prompt as ManyPrompt<unknown>);
    assert.ok(queue.length > 0, `the flow asked "${prompt.title}" but the script has no answer`);
    const answer = queue.shift();
    if (answer === undefined) return Promise.resolve(undefined);
    if (answer === 'ticked') return Promise.resolve(prompt.items.filter((i) => i.picked).map((i) => i.value));
    return Promise.resolve(
      answer.map((v) => {
        const item = prompt.items.find((i) => i.value === v);
        assert.ok(item, `the pick offers no ${v}`);
        return item.value;
      }),
    );
  };
  const d: NotifyDeps = {
    ask,
    webhooks: client.webhooks,
    vault,
    scope,
    pickMany,
    copy: (text) => (copied.push(text), Promise.resolve()),
    logger,
  };
  return { d, ask, many, copied, logger, clientLog, secrets, vault, scope };
}

/**
 * Fails when `secret` (or any run of 12 of its characters) shows anywhere a person or a log could
 * see it but the one dialog that reveals it: a log line, a notice, a question's text, a pick, an
 * error's message. `revealedOnce` says how many dialogs may carry it as their detail.
 */
export function assertNeverShown(
  k: Kit,
  secret: string,
  outcomes: ReadonlyArray<NotifyOutcome<unknown>>,
  revealedOnce = 1,
  errors: unknown[] = [],
) {
  const runs = (text: string) => {
    for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return true;
    return false;
  };
  const reveals = k.ask.asked.filter((a) => a.kind === 'choose' && a.detail === secret);
  assert.equal(reveals.length, revealedOnce, 'the secret is shown once, as the detail of the dialog with Copy');
  const seen = [
    ...k.logger.lines,
    ...k.clientLog.lines,
    ...outcomes.map((o) => `${o.notice?.text ?? ''} ${JSON.stringify(o.value) ?? ''}`),
    ...k.ask.asked.map((a) => `${a.text}\n${a.kind === 'choose' && a.detail === secret ? '' : a.detail}\n${(a.options ?? []).join(' ')}`),
    ...k.many.map((m) => JSON.stringify(m)),
    ...errors.map((e) => (e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e))),
  ];
  const leaks = seen.filter(runs);
  assert.deepEqual(leaks, [], 'the secret reached a log, a notice, a question or an error');
}
