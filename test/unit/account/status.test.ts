import assert from 'node:assert/strict';
import type { User } from '../../../src/core/api/account';
import type { Instance } from '../../../src/core/api/instances';
import type { ApiError } from '../../../src/core/api/errors';
import { accountStatusView } from '../../../src/core/account/status';
import { burnRate } from '../../../src/core/instances/rates';

const user = (over: Partial<User> = {}) => ({ id: 1, email: 'me@example.com', credit: 100, ...over }) as unknown as User;
const inst = (id: number, actual: string, dph: number, storage: number, label: string) =>
  ({
    id,
    actual_status: actual,
    intended_status: 'running',
    dph_total: dph,
    storage_total_cost: storage,
    num_gpus: 1,
    gpu_name: 'RTX 4090',
    label,
  }) as unknown as Instance;
const where = 'sim';

describe('account: the status bar item', () => {
  it('signed in: the credit and the burn rate, and the projection and each share in the tooltip', () => {
    const burn = burnRate([inst(1, 'running', 2, 0.1, 'train')]);
    const v = accountStatusView({ kind: 'ready', user: user() }, { profile: undefined, where, burn });
    assert.equal(v.text, '$(account) $100.00 · $2.00/h');
    assert.match(v.tooltip, /At this rate the credit lasts \*\*2 d 2 h\*\*/);
    assert.match(v.tooltip, /\| train \(running\) \| \$2\.00 \| 100% \|/);
    assert.equal(v.background, undefined);
    assert.deepEqual(v.click, { command: 'gpuRental.instances.focus' });
    assert.equal(v.spoken, 'GPU Rental account: $100.00 credit, spending $2.00 per hour. Activate to show the instances.');
  });

  it('a failed instance flags the item until destroyed, and the tooltip says it still bills for disk', () => {
    const burn = burnRate([inst(2, 'exited', 1, 0.05, 'broken')]);
    const v = accountStatusView({ kind: 'ready', user: user() }, { profile: 'work', where, burn });
    assert.equal(v.text, '$(account) work · $100.00 · $0.050/h · $(warning) 1 failed');
    assert.equal(v.background, 'warning');
    assert.match(v.tooltip, /broken failed and still bills for disk until destroyed\./);
  });

  it('a large account: the tooltip names the ten largest, sums the rest in one row, and names ten failed', () => {
    const list = Array.from({ length: 5000 }, (_, k) => inst(k + 1, k < 12 ? 'exited' : 'running', 0.5, 0.01 + k / 1e6, `n${k + 1}`));
    const v = accountStatusView({ kind: 'ready', user: user() }, { profile: undefined, where, burn: burnRate(list) });
    const rows = v.tooltip.split('\n').filter((l) => l.startsWith('| n'));
    assert.equal(rows.length, 10);
    assert.match(
      v.tooltip,
      /\| n13 \(running\) \| \$0\.500 \| <1% \|\n[^]*\| 4,990 more instances \(listed in the Instances view\) \| \$2489\.12 \| 100% \|/,
    );
    assert.match(v.tooltip, /\$\(warning\) n12, n11, n10, n9, n8, n7, n6, n5, n4, n3 and 2 more failed and still bill for disk/);
    assert.ok(v.tooltip.length < 3000, `${v.tooltip.length} characters`);
    assert.equal(v.text, '$(account) $100.00 · $2494.12/h · $(warning) 12 failed');
  });

  it('an unknown credit reads "credit unknown", never $0.00; a key that may not read the account says why', () => {
    assert.equal(
      accountStatusView({ kind: 'ready', user: user({ credit: undefined }) }, { profile: undefined, where, burn: undefined }).text,
      '$(account) credit unknown',
    );
    const scoped = accountStatusView({ kind: 'ready', user: undefined }, { profile: undefined, where, burn: undefined });
    assert.match(scoped.tooltip, /lacks the "user_read" permission/);
    assert.match(scoped.spoken, /credit unknown \(this key may not read the account\)/);
  });

  it('each state that is not signed in says what to do, and a click does it', () => {
    const c = { profile: undefined, where, burn: undefined };
    assert.deepEqual(accountStatusView({ kind: 'noKey' }, c).click, { command: 'gpuRental.setApiKey' });
    const rejected = accountStatusView({ kind: 'rejected', error: { message: 'no' } as ApiError }, c);
    assert.equal(rejected.background, 'error');
    assert.equal(rejected.tooltip, 'GPU Rental: sim refused the API key. Click to set a new one.');
    const down = accountStatusView({ kind: 'unreachable', error: { message: 'ECONNREFUSED.' } as ApiError }, c);
    assert.equal(down.tooltip, 'GPU Rental: cannot reach sim. ECONNREFUSED. Click to retry.');
    assert.deepEqual(accountStatusView({ kind: 'badUrl', message: 'Bad URL.' }, c).click, { setting: 'gpuRental.apiUrl' });
  });
});
