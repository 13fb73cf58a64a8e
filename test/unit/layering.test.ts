import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

/** src/core is tested in plain Node, so the lint config must keep runtime vscode imports out of it. */
describe('layering rule', function () {
  this.timeout(60_000);
  // The files linted here do not exist, so the type-aware project service may open them on their own.
  const eslint = new ESLint({
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: {
        parserOptions: {
          projectService: { allowDefaultProject: ['src/core/example.ts', 'src/ui/example.ts', 'src/ui/commands/example.ts'] },
        },
      },
    },
  });
  const lint = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
  };

  it('rejects a runtime vscode import in src/core', async () => {
    const messages = await lint('src/core/example.ts', "import * as vscode from 'vscode';\nexport const w = vscode.window;\n");
    assert.equal(messages.length, 1);
    assert.match(messages[0]!.message, /src\/core must not import vscode at runtime/);
  });

  it('allows a type-only vscode import in src/core', async () => {
    assert.deepEqual(await lint('src/core/example.ts', "import type { Uri } from 'vscode';\nexport type U = Uri;\n"), []);
  });

  it('allows vscode outside src/core', async () => {
    assert.deepEqual(await lint('src/ui/example.ts', "import * as vscode from 'vscode';\nexport const w = vscode.window;\n"), []);
  });

  describe('one command registry', () => {
    const register = "import * as vscode from 'vscode';\nexport const d = vscode.commands.registerCommand('gpuRental.x', () => 1);\n";
    const restricted = async (filePath: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      return result!.messages.filter((m) => m.ruleId === 'no-restricted-properties');
    };

    it('rejects registerCommand in a command module', async () => {
      const messages = await restricted('src/ui/commands/example.ts', register);
      assert.equal(messages.length, 1);
      assert.match(messages[0]!.message, /Register commands only in src\/ui\/registry\.ts/);
    });

    it('rejects registerCommand anywhere else in src, also when destructured', async () => {
      assert.equal((await restricted('src/ui/example.ts', register)).length, 1);
      const destructured =
        "import * as vscode from 'vscode';\nconst { registerCommand } = vscode.commands;\nexport const r = registerCommand;\n";
      assert.equal((await restricted('src/ui/example.ts', destructured)).length, 1);
    });

    it('allows it in the registry', async () => {
      assert.deepEqual(await restricted('src/ui/registry.ts', register), []);
    });
  });

  describe('one way to stored state', () => {
    const reads =
      "import type * as vscode from 'vscode';\nexport const f = (c: vscode.ExtensionContext) => c.globalState.get('gpuRental.x');\n";
    const restricted = async (filePath: string) => {
      const [result] = await eslint.lintText(reads, { filePath });
      return result!.messages.filter((m) => m.ruleId === 'no-restricted-properties');
    };

    it('rejects globalState outside the composition root, naming StoredState', async () => {
      const messages = await restricted('src/ui/example.ts');
      assert.equal(messages.length, 1);
      assert.match(messages[0]!.message, /through StoredState/);
      assert.equal((await restricted('src/ui/registry.ts')).length, 1);
    });

    it('allows it where StoredState is built', async () => {
      assert.deepEqual(await restricted('src/ui/services.ts'), []);
    });
  });
});
