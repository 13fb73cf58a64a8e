// Constants the UI needs without loading the client and its schemas (they load on the first request).

export const DEFAULT_BASE_URL = 'https://console.vast.ai';

/** The service rejects longer start-up scripts; larger ones must be compressed by the caller. */
export const ONSTART_MAX_CHARS = 4048;
export const LABEL_MAX_CHARS = 1024;
