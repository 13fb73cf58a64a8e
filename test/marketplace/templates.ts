/** Template records: seeding, hashing, and turning a template's docker-flag env into pairs. */
import { createHash } from 'node:crypto';
import type { TemplateRecord } from './model';

/** Creator id of the service's own public templates. */
export const PUBLIC_CREATOR = 1;

/** Fields a caller may set when creating or editing a template. */
export const TEMPLATE_FIELDS = [
  'name',
  'image',
  'tag',
  'desc',
  'readme',
  'readme_visible',
  'env',
  'onstart',
  'runtype',
  'args_str',
  'ssh_direct',
  'use_ssh',
  'jup_direct',
  'jupyter_dir',
  'use_jupyter_lab',
  'docker_login_repo',
  'docker_login_user',
  'docker_login_pass',
  'href',
  'repo',
  'extra_filters',
  'recommended_disk_space',
  'private',
  'volume_info',
] as const;

/** What makes two templates identical (for create's "return the existing one"). */
export function contentKey(t: Omit<TemplateRecord, 'id' | 'hash_id' | 'created_at' | 'count_created'>): string {
  return JSON.stringify(TEMPLATE_FIELDS.map((f) => t[f as keyof typeof t] ?? null)) + `#${t.creator_id}`;
}

/** A 32-hex hash; `revision` makes every edit produce a new one even when content repeats. */
export function templateHash(content: string, revision: number): string {
  return createHash('md5').update(`${content}|${revision}`).digest('hex');
}

export function blankTemplate(id: number, creatorId: number, name: string, image: string, createdAtSec: number): TemplateRecord {
  return {
    id,
    hash_id: '',
    creator_id: creatorId,
    name,
    image,
    tag: 'latest',
    desc: null,
    readme: null,
    readme_visible: true,
    env: '',
    onstart: null,
    runtype: 'args',
    args_str: null,
    ssh_direct: false,
    use_ssh: false,
    jup_direct: false,
    jupyter_dir: null,
    use_jupyter_lab: false,
    docker_login_repo: null,
    docker_login_user: null,
    docker_login_pass: null,
    href: null,
    repo: null,
    extra_filters: {},
    recommended_disk_space: 8,
    private: false,
    volume_info: null,
    created_at: createdAtSec,
    count_created: 0,
    recommended: false,
  };
}

/** The public templates every catalogue starts with. */
export function seedTemplates(revision: number): TemplateRecord[] {
  const at = 1767225600; // 2026-01-01
  const specs: Array<Partial<TemplateRecord> & { id: number; name: string; image: string }> = [
    {
      id: 101,
      name: 'PyTorch (CUDA)',
      image: 'pytorch/pytorch',
      tag: '2.5.1-cuda12.4-cudnn9-devel',
      desc: 'PyTorch with CUDA and cuDNN, SSH access.',
      env: '-e JUPYTER_DIR=/ -p 8888:8888',
      runtype: 'ssh',
      ssh_direct: true,
      use_ssh: true,
      recommended_disk_space: 32,
      extra_filters: { cuda_max_good: { gte: 12.4 } },
      recommended: true,
    },
    {
      id: 102,
      name: 'NVIDIA CUDA',
      image: 'nvidia/cuda',
      tag: '12.4.1-cudnn-devel-ubuntu22.04',
      desc: 'Plain CUDA development image.',
      runtype: 'ssh',
      ssh_direct: true,
      use_ssh: true,
      recommended_disk_space: 16,
      recommended: true,
    },
    {
      id: 103,
      name: 'Jupyter (PyTorch)',
      image: 'pytorch/pytorch',
      tag: '2.5.1-cuda12.4-cudnn9-runtime',
      desc: 'JupyterLab on PyTorch.',
      runtype: 'jupyter',
      jup_direct: true,
      use_ssh: true,
      use_jupyter_lab: true,
      jupyter_dir: '/',
      recommended_disk_space: 32,
    },
    {
      id: 104,
      name: 'vLLM OpenAI server',
      image: 'vllm/vllm-openai',
      tag: 'latest',
      desc: 'OpenAI-compatible inference server.',
      env: '-e MODEL_NAME=Qwen/Qwen2.5-7B-Instruct -p 8000:8000',
      runtype: 'args',
      args_str: '--model Qwen/Qwen2.5-7B-Instruct',
      recommended_disk_space: 64,
      extra_filters: { gpu_ram: { gte: 24000 } },
    },
    {
      id: 105,
      name: 'Ubuntu 22.04',
      image: 'ubuntu',
      tag: '22.04',
      desc: 'Minimal Ubuntu with SSH.',
      runtype: 'ssh',
      use_ssh: true,
      ssh_direct: true,
      onstart: 'apt-get update -qq',
      recommended_disk_space: 10,
    },
  ];
  return specs.map((s) => {
    const t: TemplateRecord = { ...blankTemplate(s.id, PUBLIC_CREATOR, s.name, s.image, at), ...s };
    t.hash_id = templateHash(contentKey(t), revision);
    return t;
  });
}

/**
 * Reads a docker-flag string (`-e A=1 -e "B=two words" -p 8000:8000`) into `[name, value]`
 * pairs: `-e` entries become variables, other flags keep their flag text as the name with "1".
 */
export function parseEnvFlags(text: string): Array<[string, string]> {
  const tokens = text.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  const unquote = (s: string) => s.replace(/^(["'])(.*)\1$/, '$2');
  const out: Array<[string, string]> = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === '-e' || token === '--env') {
      const pair = unquote(tokens[++i] ?? '');
      const eq = pair.indexOf('=');
      if (eq > 0) out.push([pair.slice(0, eq), pair.slice(eq + 1)]);
    } else if (token.startsWith('-') && i + 1 < tokens.length && !tokens[i + 1]!.startsWith('-')) {
      out.push([`${token} ${unquote(tokens[++i]!)}`, '1']);
    } else if (token.startsWith('-')) {
      out.push([token, '1']);
    }
  }
  return out;
}

/** Merges env pairs; later sources win by name. */
export function mergeEnv(...sources: Array<Array<[string, string]>>): Array<[string, string]> {
  const map = new Map<string, string>();
  for (const source of sources) for (const [k, v] of source) map.set(k, v);
  return [...map.entries()];
}
