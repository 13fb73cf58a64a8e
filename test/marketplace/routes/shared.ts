/** Lookups shared by the instance, SSH and volume routes. */
import type { Offer } from '../catalogue';
import type { Contract, InstanceState } from '../model';
import { fail, type Ctx } from '../router';

/** The caller's instance, brought up to date with the clock; otherwise the given 404. */
export function ownInstance(ctx: Ctx, id: number, error = 'not_found'): { inst: InstanceState; contract: Contract } {
  const found = ctx.sim.live(id);
  if (!found || found.inst.accountId !== ctx.account.id) throw fail(404, error, `Instance ${id} not found.`);
  return found;
}

export function offerOf(ctx: Ctx, inst: InstanceState): Offer {
  const offer = ctx.sim.offerById.get(inst.offerId);
  if (!offer) throw new Error(`instance ${inst.id} refers to unknown offer ${inst.offerId}`);
  return offer;
}

/** The instance an instance API key may touch through a route with `:id`. */
export const ownIdOnly = (ctx: Ctx, instanceId: number): boolean => ctx.params.id === String(instanceId);

const KEY_PATTERN =
  /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\s+[A-Za-z0-9+/]+={0,3}(\s+.*)?$/;

/** Whether text is one OpenSSH public key line. */
export function isPublicKey(text: unknown): text is string {
  return typeof text === 'string' && !text.trim().includes('\n') && KEY_PATTERN.test(text.trim());
}

/** The comment of a public key, used as its name. */
export function keyComment(text: string): string | undefined {
  return text.trim().split(/\s+/).slice(2).join(' ') || undefined;
}
