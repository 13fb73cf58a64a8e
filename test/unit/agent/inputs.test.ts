import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  readBestMatchInput,
  readJobOutputInput,
  readOffersInput,
  readRentOfferInput,
  readRunJobInput,
  readInstanceInput,
  readUploadInput,
  ToolInputError,
} from '../../../src/core/agent/inputs';
import { TOOL_NAMES, TOOLS, type ToolName } from '../../../src/core/ids';

interface ToolContribution {
  name: string;
  displayName?: string;
  userDescription?: string;
  modelDescription?: string;
  toolReferenceName?: string;
  canBeReferencedInPrompt?: boolean;
  inputSchema?: object;
  tags?: string[];
}

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: ToolContribution[] };
};
const contributed = manifest.contributes.languageModelTools;
const NOW = Date.UTC(2025, 5, 1, 12, 30);

interface Property {
  type: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: string[];
}
interface Schema {
  type: string;
  properties: Record<string, Property>;
  required?: string[];
  additionalProperties: boolean;
}
const schemaOf = (name: string) => contributed.find((t) => t.name === name)!.inputSchema as Schema;

/** A value the schema accepts for a property. */
function valid(p: Property): unknown {
  if (p.enum) return p.enum[0];
  if (p.type === 'integer') return p.minimum ?? 1;
  if (p.type === 'boolean') return true;
  return 'x';
}

const READERS: Record<ToolName, (input: unknown) => unknown> = {
  [TOOLS.searchOffers]: readOffersInput,
  [TOOLS.listInstances]: () => ({}),
  [TOOLS.jobOutput]: readJobOutputInput,
  [TOOLS.checkHealth]: readInstanceInput,
  [TOOLS.account]: () => ({}),
  [TOOLS.rentOffer]: (input) => readRentOfferInput(input, NOW),
  [TOOLS.rentBestMatch]: (input) => readBestMatchInput(input, NOW),
  [TOOLS.stopInstance]: readInstanceInput,
  [TOOLS.startInstance]: readInstanceInput,
  [TOOLS.destroyInstance]: readInstanceInput,
  [TOOLS.uploadFolder]: readUploadInput,
  [TOOLS.runJob]: readRunJobInput,
};

const READ_ONLY = [TOOLS.searchOffers, TOOLS.listInstances, TOOLS.jobOutput, TOOLS.checkHealth, TOOLS.account];

describe('the language model tools: what they accept', () => {
  it('package.json declares exactly the tools the extension registers', () => {
    assert.deepEqual(
      contributed.map((t) => t.name),
      [...TOOL_NAMES],
    );
  });

  it('gives every tool a model description, a display name and a user description (the last two localised)', () => {
    for (const t of contributed) {
      assert.ok((t.modelDescription ?? '').length > 100, `${t.name}: a model description that says what it does and returns`);
      assert.match(t.displayName ?? '', /^%tool\.\w+\.displayName%$/);
      assert.match(t.userDescription ?? '', /^%tool\.\w+\.userDescription%$/);
      assert.ok(/^[\w-]+$/.test(t.name) && !/^(copilot_|vscode_)/.test(t.name), `${t.name}: a name VS Code accepts`);
    }
  });

  it('lets a prompt reference only the read-only tools, each by a short name', () => {
    const referenced = contributed.filter((t) => t.canBeReferencedInPrompt);
    assert.deepEqual(
      referenced.map((t) => t.name),
      READ_ONLY,
    );
    for (const t of referenced) assert.match(t.toolReferenceName ?? '', /^gpu[A-Z]\w+$/);
    assert.deepEqual(
      referenced.map((t) => t.toolReferenceName),
      ['gpuOffers', 'gpuInstances', 'gpuJobOutput', 'gpuHealth', 'gpuAccount'],
    );
  });

  it("holds each reader to its tool's schema: every field it declares, every field it requires, every bound", () => {
    for (const t of contributed) {
      const schema = t.inputSchema as Schema;
      assert.equal(schema.type, 'object', t.name);
      assert.equal(schema.additionalProperties, false, `${t.name} takes no field it does not declare`);
      const read = READERS[t.name as ToolName];
      const full = Object.fromEntries(Object.entries(schema.properties).map(([k, p]) => [k, valid(p)]));
      const out = read(full) as Record<string, unknown>;
      for (const k of Object.keys(schema.properties)) assert.ok(k in out, `${t.name}: the reader reads ${k}`);
      for (const k of schema.required ?? []) {
        const { [k]: _gone, ...without } = full;
        assert.throws(() => read(without), ToolInputError, `${t.name} requires ${k}`);
      }
      for (const [k, p] of Object.entries(schema.properties)) {
        if (p.maximum !== undefined) {
          assert.doesNotThrow(() => read({ ...full, [k]: p.maximum }), `${t.name}.${k} accepts its maximum`);
          assert.throws(() => read({ ...full, [k]: p.maximum! + 1 }), ToolInputError, `${t.name}.${k} refuses past its maximum`);
        }
        if (p.minimum !== undefined)
          assert.throws(() => read({ ...full, [k]: p.minimum! - 1 }), ToolInputError, `${t.name}.${k} refuses below its minimum`);
        if (p.maxLength !== undefined)
          assert.throws(
            () => read({ ...full, [k]: 'x'.repeat(p.maxLength! + 1) }),
            ToolInputError,
            `${t.name}.${k} refuses past its length`,
          );
        for (const e of p.enum ?? []) assert.doesNotThrow(() => read({ ...full, [k]: e }), `${t.name}.${k} accepts ${e}`);
        if (p.enum) assert.throws(() => read({ ...full, [k]: 'other' }), ToolInputError, `${t.name}.${k} refuses a value not listed`);
      }
    }
    assert.deepEqual(schemaOf(TOOLS.rentOffer).required, ['offerId']);
    assert.deepEqual(schemaOf(TOOLS.destroyInstance).required, ['instanceId']);
  });

  it('reads an offer search with its defaults, and refuses what the schema refuses', () => {
    assert.deepEqual(readOffersInput({}), { query: '', sort: 'value', limit: 10 });
    assert.deepEqual(readOffersInput({ query: 'num_gpus>=2', sort: 'price', limit: 3 }), { query: 'num_gpus>=2', sort: 'price', limit: 3 });
    assert.throws(
      () => readOffersInput({ limit: 21 }),
      (e: Error) => e instanceof ToolInputError && /limit must be a whole number from 1 to 20/.test(e.message),
    );
    assert.throws(() => readOffersInput({ sort: 'cheap' }), /sort must be one of value, price, reliability, gpus/);
    assert.throws(() => readOffersInput('gpu_name=RTX_4090'), /must be a JSON object/);
    assert.throws(() => readOffersInput(null), /must be a JSON object/);
  });

  it('reads a rent: the plan automation passes, with a default image, disk and a dated label', () => {
    assert.deepEqual(readRentOfferInput({ offerId: 7 }, NOW), { offerId: 7, image: 'ubuntu:22.04', disk: 10, label: 'agent-202506011230' });
    assert.deepEqual(readRentOfferInput({ offerId: 7, image: ' pytorch/pytorch ', disk: 40, label: 'train' }, NOW), {
      offerId: 7,
      image: 'pytorch/pytorch',
      disk: 40,
      label: 'train',
    });
    assert.throws(() => readRentOfferInput({}, NOW), /offerId must be a whole number/);
    assert.throws(() => readRentOfferInput({ offerId: 1.5 }, NOW), /offerId must be a whole number/);
    assert.throws(() => readRentOfferInput({ offerId: 7, image: 'a b' }, NOW), /image must be a Docker image name without spaces/);
    assert.throws(() => readRentOfferInput({ offerId: 7, disk: 0 }, NOW), /disk must be a whole number from 1 to 10000/);
    assert.deepEqual(readBestMatchInput({ query: 'gpu_name=RTX_4090' }, NOW), {
      query: 'gpu_name=RTX_4090',
      sort: 'value',
      image: 'ubuntu:22.04',
      disk: 10,
      label: 'agent-202506011230',
    });
    assert.throws(() => readBestMatchInput({}, NOW), /query must be text/);
  });

  it('reads a job: the command trimmed, stop at the end unless told otherwise', () => {
    assert.deepEqual(readRunJobInput({ instanceId: 3, command: ' python3 train.py ' }), {
      instanceId: 3,
      command: 'python3 train.py',
      uploadFirst: false,
      stopAtEnd: true,
    });
    assert.throws(() => readRunJobInput({ instanceId: 3, command: '  ' }), /command must name what to run/);
    assert.throws(() => readRunJobInput({ instanceId: 3, command: 'x', stopAtEnd: 'no' }), /stopAtEnd must be true or false/);
    assert.deepEqual(readJobOutputInput({ instanceId: 3 }), { instanceId: 3, jobId: undefined, lines: 40 });
    assert.deepEqual(readUploadInput({ instanceId: 3, folder: ' data ' }), { instanceId: 3, folder: 'data' });
    assert.deepEqual(readUploadInput({ instanceId: 3 }), { instanceId: 3, folder: undefined });
  });
});
