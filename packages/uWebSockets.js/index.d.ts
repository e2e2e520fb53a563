/** The types of the uWebSockets.js build we load: uws-pack's copy of upstream's index.d.ts for that build. */
import type { CompressOptions } from "uws-pack"
export * from "uws-pack"

// uws-pack declares the compression options as types only; the binary exports them as numbers (upstream: vars).
export declare const DISABLED: CompressOptions
export declare const SHARED_COMPRESSOR: CompressOptions
export declare const SHARED_DECOMPRESSOR: CompressOptions
