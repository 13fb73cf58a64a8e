import type * as vscode from 'vscode';
import type { Logger } from '../../core/log';

/** Core code logs through this; the user reads it with "GPU Rental: Show Logs". Nothing secret is passed in. */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    debug: (message) => channel.debug(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message) => channel.error(message),
  };
}
