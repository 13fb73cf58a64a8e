import type { JobStatus } from '../../src/core/jobs/status';

/**
 * A job's status as a node's listing gives it: running since 1,000, no end, no stop at its end,
 * in /root/project, labelled train.py; `fields` say what differs.
 */
export function jobStatus(jobId: string, fields: Partial<JobStatus> = {}): JobStatus {
  return {
    jobId,
    startedAt: 1_000,
    endedAt: undefined,
    exitCode: undefined,
    alive: true,
    stopAtEnd: false,
    stopAnswer: undefined,
    cancelled: undefined,
    logBytes: 0,
    cwd: '/root/project',
    label: 'train.py',
    ...fields,
  };
}
