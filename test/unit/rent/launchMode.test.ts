import assert from 'node:assert/strict';
import type { TemplateFields } from '../../../src/core/api/templates';
import { describeLaunch, isRentRuntype, rentRuntype, runtypeLaunchMode, templateLaunchMode } from '../../../src/core/rent/launchMode';
import { clientFor, DEMO_KEY, simulatorForSuite } from '../../support';

describe('launch mode of a rent', () => {
  describe('what a template launches in, and what the confirmation says', () => {
    it('reads the template fields the service stores', () => {
      assert.deepEqual(templateLaunchMode({ runtype: 'jupyter', use_ssh: true, jup_direct: false }), {
        kind: 'jupyter',
        direct: false,
        text: 'Jupyter and SSH via proxy',
      });
      assert.deepEqual(templateLaunchMode({ runtype: 'jupyter', jup_direct: true }), {
        kind: 'jupyter',
        direct: true,
        text: 'Jupyter and SSH on direct ports',
      });
      assert.deepEqual(templateLaunchMode({ runtype: 'ssh', ssh_direct: true, use_ssh: true }), {
        kind: 'ssh',
        direct: true,
        text: 'direct SSH',
      });
      assert.equal(templateLaunchMode({ runtype: 'ssh' }).text, 'SSH via proxy');
      assert.equal(templateLaunchMode({ runtype: 'args' }).kind, 'args');
      assert.equal(templateLaunchMode({}).kind, 'args', "a template's create default is args");
      assert.equal(templateLaunchMode({ use_ssh: true }).kind, 'ssh');
    });

    it('reads the runtype strings the CLI sends and the service reports in image_runtype', () => {
      assert.deepEqual(runtypeLaunchMode('jupyter_proxy ssh_proxy'), { kind: 'jupyter', direct: false, text: 'Jupyter and SSH via proxy' });
      assert.equal(runtypeLaunchMode('jupyter_direc ssh_direc ssh_proxy').text, 'Jupyter and SSH on direct ports');
      assert.equal(runtypeLaunchMode('ssh_direc ssh_proxy').text, 'direct SSH');
      assert.equal(runtypeLaunchMode('ssh_direct').text, 'direct SSH');
      assert.equal(runtypeLaunchMode('ssh').text, 'SSH via proxy');
      assert.equal(runtypeLaunchMode('args').kind, 'args');
    });

    it("says the template's own mode unless the user replaced it", () => {
      const jupyter = templateLaunchMode({ runtype: 'jupyter' });
      assert.equal(describeLaunch({ template: 'abc' }, jupyter), 'Jupyter and SSH via proxy, as the template says');
      assert.equal(
        describeLaunch({ template: 'abc', runtype: 'ssh_direct' }, jupyter),
        "direct SSH, instead of the template's Jupyter and SSH via proxy",
      );
      assert.equal(
        describeLaunch({ template: 'abc' }, templateLaunchMode({ runtype: 'args' })),
        "the image's own entrypoint, without SSH, as the template says: Connect cannot reach it",
      );
      assert.match(describeLaunch({ template: 'abc' }, undefined), /template's own launch mode \(the template could not be read/);
      assert.equal(describeLaunch({ image: 'x', runtype: 'ssh_proxy' } as never, undefined), 'SSH via proxy');
      assert.equal(describeLaunch({}, undefined), 'SSH via proxy');
    });

    it('sends no runtype with a template unless the user chose one; an image rent always names one', () => {
      assert.equal(rentRuntype({ template: 'abc' }), undefined);
      assert.equal(rentRuntype({ template: 'abc', runtype: 'ssh_direct' }), 'ssh_direct');
      assert.equal(rentRuntype({}), 'ssh_proxy');
      assert.equal(rentRuntype({ runtype: 'ssh_direct' }), 'ssh_direct');
    });

    it('a rent may choose Jupyter itself, through the proxy or on direct ports, and the confirmation says so', () => {
      assert.equal(rentRuntype({ runtype: 'jupyter_proxy ssh_proxy' }), 'jupyter_proxy ssh_proxy');
      assert.equal(rentRuntype({ template: 'abc', runtype: 'jupyter_direc ssh_direc ssh_proxy' }), 'jupyter_direc ssh_direc ssh_proxy');
      assert.equal(describeLaunch({ runtype: 'jupyter_proxy ssh_proxy' }, undefined), 'Jupyter and SSH via proxy');
      assert.equal(
        describeLaunch({ template: 'abc', runtype: 'jupyter_direc ssh_direc ssh_proxy' }, templateLaunchMode({ runtype: 'ssh' })),
        "Jupyter and SSH on direct ports, instead of the template's SSH via proxy",
      );
      for (const value of ['ssh_direct', 'ssh_proxy', 'jupyter_proxy ssh_proxy', 'jupyter_direc ssh_direc ssh_proxy'])
        assert.ok(isRentRuntype(value), value);
      for (const value of ['template', 'args', 'jupyter', '', undefined]) assert.ok(!isRentRuntype(value), String(value));
    });
  });

  describe('against the simulator: body scalars override, the template supplies the rest', function () {
    this.timeout(20_000);
    const sim = simulatorForSuite();

    /** The instance as the service sends it, with the fields the client does not read. */
    const record = async (id: number) =>
      (
        (await (await fetch(`${sim.url}/api/v0/instances/${id}/`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).json()) as {
          instances: { image_args: string[]; extra_env: Array<[string, string]> };
        }
      ).instances;

    /** Rents from a new template with what the wizard would send, and reads the instance back. */
    async function rentFrom(
      fields: TemplateFields & { jup_direct?: boolean },
      choice: { runtype?: 'ssh_direct' | 'ssh_proxy'; env?: Record<string, string>; onstart?: string } = {},
    ) {
      const { client } = clientFor(sim.url, DEMO_KEY);
      const template = await client.templates.create(fields);
      const [offer] = await client.offers.search({
        query: { filters: { rentable: { eq: true }, direct_port_count: { gte: 2 } }, order: [['dph_total', 'asc']], type: 'on-demand' },
        limit: 1,
      });
      const { instanceId } = await client.instances.create(offer!.id, {
        template_hash_id: template.hash_id,
        disk: 10,
        label: `lm-${fields.name}`,
        runtype: rentRuntype({ template: template.hash_id, runtype: choice.runtype }),
        env: choice.env,
        onstart: choice.onstart,
      });
      return { template, instance: await client.instances.show(instanceId) };
    }

    it('a Jupyter template rented with no runtype stays Jupyter, and the confirmation said so', async () => {
      const { template, instance } = await rentFrom({ name: 'jupyter-proxy', image: 'pytorch/pytorch', runtype: 'jupyter', use_ssh: true });
      assert.equal(instance.image_runtype, 'jupyter_proxy ssh_proxy');
      assert.deepEqual(runtypeLaunchMode(instance.image_runtype!), templateLaunchMode(template));
    });

    it('a Jupyter template with direct ports keeps them', async () => {
      const { template, instance } = await rentFrom({
        name: 'jupyter-direct',
        image: 'pytorch/pytorch',
        runtype: 'jupyter',
        use_ssh: true,
        jup_direct: true,
      });
      assert.equal(template.jup_direct, true);
      assert.equal(instance.image_runtype, 'jupyter_direc ssh_direc ssh_proxy');
      assert.deepEqual(runtypeLaunchMode(instance.image_runtype!), templateLaunchMode(template));
    });

    it('an entrypoint template runs its entrypoint with its args, not SSH', async () => {
      const { template, instance } = await rentFrom({
        name: 'entrypoint',
        image: 'vllm/vllm-openai',
        runtype: 'args',
        args_str: '--model tiny',
      });
      assert.equal(instance.image_runtype, 'args');
      assert.equal(templateLaunchMode(template).kind, 'args');
      assert.equal(instance.image_uuid, 'vllm/vllm-openai:latest', 'the image comes from the template');
      assert.deepEqual((await record(instance.id)).image_args, ['--model', 'tiny'], 'and its entrypoint args');
    });

    it('a runtype the user chose replaces the template mode; env merges by name, the body winning; a body onstart replaces the template one', async () => {
      const { instance } = await rentFrom(
        {
          name: 'jupyter-overridden',
          image: 'pytorch/pytorch',
          runtype: 'jupyter',
          use_ssh: true,
          env: '-e A=1 -e B=2',
          onstart: 'echo template',
        },
        { runtype: 'ssh_direct', env: { B: '3' }, onstart: 'echo mine' },
      );
      assert.equal(instance.image_runtype, 'ssh_direct');
      assert.equal(instance.onstart, 'echo mine');
      assert.deepEqual((await record(instance.id)).extra_env, [
        ['A', '1'],
        ['B', '3'],
      ]);
    });
  });
});
