import assert from 'node:assert/strict';
import { InstanceSchema } from '../../../src/core/api/instances';
import { sshCommand, sshEndpoint } from '../../../src/core/instances/ssh';

describe('ssh endpoint', () => {
  it('prefers the direct address when port 22 is mapped, as the CLI does', () => {
    const i = InstanceSchema.parse({ id: 1, public_ipaddr: '203.0.113.7 ', ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41022' }] }, ssh_host: 'ssh5.example.net', ssh_port: 12345 });
    assert.deepEqual(sshEndpoint(i), { host: '203.0.113.7', port: 41022, via: 'direct' });
    assert.equal(sshCommand(sshEndpoint(i)!), 'ssh -p 41022 root@203.0.113.7');
  });

  it('falls back to the proxy, and has nothing before the instance runs', () => {
    assert.deepEqual(sshEndpoint(InstanceSchema.parse({ id: 1, ssh_host: 'ssh5.example.net', ssh_port: 12345 })), { host: 'ssh5.example.net', port: 12345, via: 'proxy' });
    assert.equal(sshEndpoint(InstanceSchema.parse({ id: 1 })), undefined);
  });
});
