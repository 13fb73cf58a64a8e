/**
 * The numbers of a serverless endpoint or worker group as people type them (Update Endpoint, Update
 * Worker Group, a new endpoint's maximum workers): each field's box, in the grammar of
 * src/core/numbers.ts. Worker counts are whole; `target_util` is a fraction of capacity, at most 1;
 * the others are not bounded by the service's reference, so their boxes only keep out a slip.
 */
import { decimalBox, wholeNumberBox, type NumberBox } from '../numbers';

/** The most workers a box takes. */
const MAX_WORKERS = 1000;
/** The most a field without a stated bound takes: loads in units per second, times in seconds. */
const MAX_OPEN_FIELD = 1_000_000;

/** The box for one numeric field, by its API name (`cold_workers`, `target_util`, …). */
export function serverlessFieldBox(key: string): NumberBox {
  switch (key) {
    case 'cold_workers':
    case 'max_workers':
    case 'test_workers':
      return wholeNumberBox(0, MAX_WORKERS);
    case 'target_util':
      return decimalBox(0, 1, '0.9');
    case 'cold_mult':
      return decimalBox(0, 100, '2.5');
    case 'gpu_ram':
      return decimalBox(0, 1000, '24');
    default:
      return decimalBox(0, MAX_OPEN_FIELD, '30');
  }
}
