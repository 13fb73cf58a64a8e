// The variables every node of a cluster job runs with, under our names, SkyPilot's and dstack's;
// the hostfile; the snippet that reads a node's overlay address; and what is refused.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  checkMasterPort,
  clusterVariables,
  exportLines,
  interfaceAddressScript,
  parseInterfaceAddress,
  type ClusterLayout,
} from '../../../../src/core/jobs/cluster/env';
import { hostfilePath, hostfileText, writeHostfileLines } from '../../../../src/core/jobs/cluster/hostfile';

/** 2 nodes × 8 GPUs on the overlay, rendezvous on 29500. */
const TWO_BY_EIGHT: ClusterLayout = {
  nodes: [
    { address: '10.0.0.1', gpus: 8 },
    { address: '10.0.0.2', gpus: 8 },
  ],
  masterPort: 29500,
};

describe('cluster jobs: the variables of each rank', () => {
  it('gives rank 0 of 2 × 8 GPUs these variables, in this order', () => {
    assert.deepEqual(clusterVariables(TWO_BY_EIGHT, 0), [
      ['MASTER_ADDR', '10.0.0.1'],
      ['MASTER_PORT', '29500'],
      ['NODE_RANK', '0'],
      ['NNODES', '2'],
      ['NPROC_PER_NODE', '8'],
      ['WORLD_SIZE', '16'],
      ['NODE_IPS', '10.0.0.1\n10.0.0.2'],
      ['NCCL_SOCKET_IFNAME', 'eth0'],
      ['SKYPILOT_NODE_RANK', '0'],
      ['SKYPILOT_NODE_IPS', '10.0.0.1\n10.0.0.2'],
      ['SKYPILOT_NUM_NODES', '2'],
      ['SKYPILOT_NUM_GPUS_PER_NODE', '8'],
      ['DSTACK_NODE_RANK', '0'],
      ['DSTACK_NODES_IPS', '10.0.0.1\n10.0.0.2'],
      ['DSTACK_MASTER_NODE_IP', '10.0.0.1'],
      ['DSTACK_NODES_NUM', '2'],
      ['DSTACK_GPUS_PER_NODE', '8'],
      ['DSTACK_GPUS_NUM', '16'],
    ]);
  });

  it('gives rank 1 its own rank and rank 0 as the master', () => {
    const vars = new Map(clusterVariables(TWO_BY_EIGHT, 1));
    assert.equal(vars.get('NODE_RANK'), '1');
    assert.equal(vars.get('SKYPILOT_NODE_RANK'), '1');
    assert.equal(vars.get('DSTACK_NODE_RANK'), '1');
    assert.equal(vars.get('MASTER_ADDR'), '10.0.0.1');
    assert.equal(vars.get('DSTACK_MASTER_NODE_IP'), '10.0.0.1');
  });

  it('sets them as quoted exports: NODE_IPS keeps its newline inside one quoted value', () => {
    assert.deepEqual(exportLines(clusterVariables(TWO_BY_EIGHT, 1)).slice(0, 8), [
      'export MASTER_ADDR=10.0.0.1',
      'export MASTER_PORT=29500',
      'export NODE_RANK=1',
      'export NNODES=2',
      'export NPROC_PER_NODE=8',
      'export WORLD_SIZE=16',
      "export NODE_IPS='10.0.0.1\n10.0.0.2'",
      'export NCCL_SOCKET_IFNAME=eth0',
    ]);
  });

  it("counts this node's GPUs per node and every node's in the world size when nodes differ", () => {
    const mixed: ClusterLayout = { nodes: [...TWO_BY_EIGHT.nodes, { address: '10.0.0.3', gpus: 4 }], masterPort: 29500 };
    const vars = new Map(clusterVariables(mixed, 2));
    assert.equal(vars.get('NPROC_PER_NODE'), '4');
    assert.equal(vars.get('WORLD_SIZE'), '20');
    assert.equal(vars.get('DSTACK_GPUS_NUM'), '20');
    assert.equal(vars.get('NODE_IPS'), '10.0.0.1\n10.0.0.2\n10.0.0.3');
  });

  it('refuses a rendezvous port of 1000 or below, above 65535, or not a whole number', () => {
    for (const port of [0, 22, 1000, 65536, 70000, 29500.5, Number.NaN, -1]) {
      assert.throws(
        () => clusterVariables({ ...TWO_BY_EIGHT, masterPort: port }, 0),
        (e: Error) => e instanceof RangeError && e.message.startsWith('GPU Rental: ') && e.message.includes('from 1001 to 65535'),
        String(port),
      );
    }
    assert.equal(checkMasterPort(1001), 1001);
    assert.equal(checkMasterPort(65535), 65535);
  });

  it('accepts exactly the ports from 1001 to 65535 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100_000, max: 200_000 }), (port) => {
        const ok = port >= 1001 && port <= 65535;
        let accepted = true;
        try {
          checkMasterPort(port);
        } catch {
          accepted = false;
        }
        return accepted === ok;
      }),
      { seed: 26, numRuns: 500 },
    );
  });

  it('refuses an address that is not IPv4, two nodes with one address, a node without GPUs and a rank outside the cluster', () => {
    const bad = (nodes: ClusterLayout['nodes']) => () => clusterVariables({ nodes, masterPort: 29500 }, 0);
    assert.throws(bad([{ address: '10.0.0.1; rm -rf ~', gpus: 8 }]), /no usable overlay address/);
    assert.throws(bad([{ address: '10.0.0.256', gpus: 8 }]), /no usable overlay address/);
    assert.throws(bad([{ address: '', gpus: 8 }]), /no usable overlay address/);
    assert.throws(
      bad([
        { address: '10.0.0.1', gpus: 8 },
        { address: '10.0.0.1', gpus: 8 },
      ]),
      /two nodes have the overlay address 10\.0\.0\.1/,
    );
    assert.throws(bad([{ address: '10.0.0.1', gpus: 0 }]), /at least one GPU/);
    assert.throws(bad([]), /at least one node/);
    assert.throws(() => clusterVariables(TWO_BY_EIGHT, 2), /rank 2 is not a node of this 2-node cluster/);
  });
});

describe('cluster jobs: the hostfile', () => {
  it('has one "<address> slots=<GPUs>" line per node, rank 0 first', () => {
    assert.equal(hostfileText(TWO_BY_EIGHT), '10.0.0.1 slots=8\n10.0.0.2 slots=8\n');
  });

  it("is written into the job's folder, its path in GPU_RENTAL_HOSTFILE", () => {
    assert.equal(hostfilePath('20261124-001611-k3f9q2'), '"${HOME:-/root}/.gpu-rental/jobs"/20261124-001611-k3f9q2/hostfile');
    assert.deepEqual(writeHostfileLines(TWO_BY_EIGHT, '20261124-001611-k3f9q2', '/tmp/my jobs'), [
      "export GPU_RENTAL_HOSTFILE='/tmp/my jobs'/20261124-001611-k3f9q2/hostfile",
      "printf '%s\\n' '10.0.0.1 slots=8' '10.0.0.2 slots=8' >\"$GPU_RENTAL_HOSTFILE\"",
    ]);
  });

  it('refuses a job id the extension could not have made', () => {
    assert.throws(() => hostfilePath('../x'), /not a job id/);
  });
});

describe("cluster jobs: reading a node's overlay address", () => {
  it('is this POSIX sh snippet: ip, else ifconfig, else python3, for the interface it is given', () => {
    const script = interfaceAddressScript();
    assert.ok(script.startsWith('i=eth0\n'), script);
    // The body is static (remote/interface-address.sh): only the interface's name changes.
    assert.equal(interfaceAddressScript('lo'), `i=lo\n${script.slice('i=eth0\n'.length)}`);
    const lines = script.split('\n').filter((l) => l.startsWith('a=') || l.startsWith('[ -n "$a" ]') || l.startsWith('printf'));
    assert.match(lines[0]!, /^a=\$\(ip -4 -o addr show dev "\$i" 2>\/dev\/null \| awk /);
    assert.match(lines[1]!, /^\[ -n "\$a" \] \|\| a=\$\(ifconfig "\$i" 2>\/dev\/null \| awk /);
    assert.match(
      lines[2]!,
      /^\[ -n "\$a" \] \|\| a=\$\(python3 -c '.*struct\.pack\("256s", sys\.argv\[1\]\.encode\(\)\).*' "\$i" 2>\/dev\/null\)$/,
    );
    assert.equal(lines[3], 'printf \'%s\\n\' "$a"');
    assert.equal(lines.length, 4);
  });

  it('refuses an interface name that could carry shell words', () => {
    assert.throws(() => interfaceAddressScript('eth0; reboot'), /is not the name of a network interface/);
  });

  it('takes only an IPv4 address from what the snippet printed', () => {
    assert.equal(parseInterfaceAddress('10.0.0.2\n'), '10.0.0.2');
    assert.equal(parseInterfaceAddress('\n'), undefined);
    assert.equal(parseInterfaceAddress('10.0.0.2 extra\n'), undefined);
    assert.equal(parseInterfaceAddress('$(reboot)\n'), undefined);
  });
});
