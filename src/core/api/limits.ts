// Constants the UI needs without loading the client and its schemas (they load on the first request).

export const DEFAULT_BASE_URL = 'https://console.vast.ai';

/** The service rejects longer start-up scripts; larger ones must be compressed by the caller. */
export const ONSTART_MAX_CHARS = 4048;
export const LABEL_MAX_CHARS = 1024;

/**
 * The disk (GB) a rent asks for unless the user picks another, and so the disk a search prices
 * into `dph_total` unless told otherwise. The service's own default differs (the CLI says 5, the
 * OpenAPI 8), which is why it is always sent.
 */
export const DEFAULT_RENT_DISK_GB = 10;

/** Bids, $/hour: the least the service takes, the most a rent's `price` may be, the most a change of bid may be. */
export const BID_MIN = 0.001;
export const RENT_BID_MAX = 128;
export const CHANGE_BID_MAX = 32;
