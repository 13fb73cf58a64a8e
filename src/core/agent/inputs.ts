/**
 * What each language model tool accepts: the reader that turns what a model sent into typed input.
 * The JSON schema a model reads is package.json's `inputSchema` (English, as the model description:
 * text for the model, not the person); test/unit/agent/inputs.test.ts holds each reader to its
 * schema's fields, requirements and bounds. VS Code checks the input against the schema first; the
 * readers check again, as every input from outside is checked, and say in one sentence what to
 * send instead.
 */
import { l10n } from '../l10n';

/** An input a model can correct: the message says what was wrong and what to send. */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

export interface OffersInput {
  readonly query: string;
  readonly sort: 'value' | 'price' | 'reliability' | 'gpus';
  readonly limit: number;
}
export interface InstanceInput {
  readonly instanceId: number;
}
export interface JobOutputInput extends InstanceInput {
  readonly jobId: string | undefined;
  readonly lines: number;
}
/** What a rent sends besides the offer: the plan automation passes (the wizard is skipped; the confirmation is not). */
export interface RentInput {
  readonly image: string;
  readonly disk: number;
  readonly label: string;
}
export interface RentOfferInput extends RentInput {
  readonly offerId: number;
}
export interface BestMatchInput extends RentInput {
  readonly query: string;
  readonly sort: OffersInput['sort'];
}
export interface UploadInput extends InstanceInput {
  readonly folder: string | undefined;
}
export interface RunJobInput extends InstanceInput {
  readonly command: string;
  readonly uploadFirst: boolean;
  readonly stopAtEnd: boolean;
}

export const DEFAULT_AGENT_IMAGE = 'ubuntu:22.04';
export const DEFAULT_AGENT_DISK_GB = 10;
const SORTS = new Set(['value', 'price', 'reliability', 'gpus']);

type Raw = Record<string, unknown>;

function object(raw: unknown): Raw {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ToolInputError(l10n.t('The input must be a JSON object.'));
  return raw as Raw;
}

function integer(raw: Raw, name: string, min: number, max: number, fallback?: number): number {
  const value = raw[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new ToolInputError(l10n.t('{0} must be a whole number from {1} to {2}.', name, min, max));
  return value;
}

function text(raw: Raw, name: string, max: number, fallback?: string): string {
  const value = raw[name] ?? fallback;
  if (typeof value !== 'string' || value.length > max)
    throw new ToolInputError(l10n.t('{0} must be text of at most {1} characters.', name, max));
  return value;
}

function flag(raw: Raw, name: string, fallback: boolean): boolean {
  const value = raw[name] ?? fallback;
  if (typeof value !== 'boolean') throw new ToolInputError(l10n.t('{0} must be true or false.', name));
  return value;
}

function sortOf(raw: Raw): OffersInput['sort'] {
  const value = raw['sort'] ?? 'value';
  if (typeof value !== 'string' || !SORTS.has(value))
    throw new ToolInputError(l10n.t('sort must be one of value, price, reliability, gpus.'));
  return value as OffersInput['sort'];
}

export function readOffersInput(input: unknown): OffersInput {
  const raw = object(input);
  return { query: text(raw, 'query', 1000, ''), sort: sortOf(raw), limit: integer(raw, 'limit', 1, 20, 10) };
}

export function readInstanceInput(input: unknown): InstanceInput {
  return { instanceId: integer(object(input), 'instanceId', 1, Number.MAX_SAFE_INTEGER) };
}

export function readJobOutputInput(input: unknown): JobOutputInput {
  const raw = object(input);
  const jobId = raw['jobId'] === undefined ? undefined : text(raw, 'jobId', 100);
  return { ...readInstanceInput(raw), jobId: jobId || undefined, lines: integer(raw, 'lines', 1, 200, 40) };
}

/** The rent's plan: `nowMs` names an unlabelled rent. An empty or spaced image is refused (the service would refuse it later). */
function readRent(raw: Raw, nowMs: number): RentInput {
  const image = text(raw, 'image', 300, DEFAULT_AGENT_IMAGE).trim();
  if (image === '' || /\s/.test(image)) throw new ToolInputError(l10n.t('image must be a Docker image name without spaces.'));
  const given = text(raw, 'label', 100, '').trim();
  return {
    image,
    disk: integer(raw, 'disk', 1, 10_000, DEFAULT_AGENT_DISK_GB),
    label: given || `agent-${new Date(nowMs).toISOString().slice(0, 16).replace(/[-:T]/g, '')}`,
  };
}

export function readRentOfferInput(input: unknown, nowMs: number): RentOfferInput {
  const raw = object(input);
  return { offerId: integer(raw, 'offerId', 1, Number.MAX_SAFE_INTEGER), ...readRent(raw, nowMs) };
}

export function readBestMatchInput(input: unknown, nowMs: number): BestMatchInput {
  const raw = object(input);
  return { query: text(raw, 'query', 1000), sort: sortOf(raw), ...readRent(raw, nowMs) };
}

export function readUploadInput(input: unknown): UploadInput {
  const raw = object(input);
  const folder = raw['folder'] === undefined ? undefined : text(raw, 'folder', 1000).trim();
  return { ...readInstanceInput(raw), folder: folder || undefined };
}

export function readRunJobInput(input: unknown): RunJobInput {
  const raw = object(input);
  const command = text(raw, 'command', 2000).trim();
  if (command === '') throw new ToolInputError(l10n.t('command must name what to run, e.g. python3 train.py.'));
  return { ...readInstanceInput(raw), command, uploadFirst: flag(raw, 'uploadFirst', false), stopAtEnd: flag(raw, 'stopAtEnd', true) };
}
