/**
 * The chain domain's settings (its config slice): ingestion (server/domains/chain, actors/block-listener, the
 * backfill command) and the demo chain. Read once, through Effect's `Config`; a bad combination fails the start
 * naming the variable.
 */
import { Config, ConfigError, Effect, Either, Option } from "effect"

const optionalString = (name: string) => Config.option(Config.nonEmptyString(name)).pipe(Config.map(Option.getOrUndefined))

const CHAIN_SOURCES = ["rpc", "demo", "replay"] as const

export const chainSettings = Config.all({
  sourceSetting: optionalString("CHAIN_SOURCE"),
  rpcUrl: optionalString("ETH_RPC_URL"),
  replayDir: optionalString("CHAIN_REPLAY_DIR"),
  /** How often the head is polled when the listener is caught up. */
  pollMs: Config.integer("CHAIN_POLL_MS").pipe(Config.withDefault(2_000)),
  /** Blocks to stay behind the head (0: follow the head; reorgs are rolled back either way). */
  confirmations: Config.integer("CHAIN_CONFIRMATIONS").pipe(Config.withDefault(0)),
  /** Where a listener without a checkpoint starts: a block number, or -K for K blocks before the head. */
  startBlock: Config.option(Config.integer("CHAIN_START_BLOCK")).pipe(Config.map(Option.getOrUndefined)),
  /** Back-off of failing RPC calls: first delay, doubling up to the cap, forever (a block is never skipped). */
  retryBaseMs: Config.integer("CHAIN_RETRY_BASE_MS").pipe(Config.withDefault(500)),
  retryMaxMs: Config.integer("CHAIN_RETRY_MAX_MS").pipe(Config.withDefault(30_000)),
  /** How often the listener, when caught up, reads again the tokens stored as unknown that are due (TokenRereads.ts). */
  tokenRereadMs: Config.integer("CHAIN_TOKEN_REREAD_MS").pipe(Config.withDefault(60_000)),
  /** Blocks fetched ahead while catching up or backfilling (0: one block at a time). */
  prefetchBlocks: Config.integer("CHAIN_PREFETCH_BLOCKS").pipe(Config.withDefault(8)),
  /** Demo chain: time between blocks, generator seed, and the history a first start ingests (blocks). */
  demoBlockMs: Config.integer("DEMO_BLOCK_MS").pipe(Config.withDefault(12_000)),
  demoSeed: Config.integer("DEMO_SEED").pipe(Config.withDefault(1)),
  demoHistoryBlocks: Config.integer("DEMO_HISTORY_BLOCKS").pipe(Config.withDefault(300)),
  /** Call traces for native ETH paid through contracts: auto (probe the node once), on (required), off. */
  traces: Config.literal("auto", "on", "off")("CHAIN_TRACES").pipe(Config.withDefault("auto" as const)),
  /** Demo chain: days of generated whale history a first start stores in the background (0: none). */
  demoHistoryDays: Config.integer("DEMO_HISTORY_DAYS").pipe(Config.withDefault(120))
}).pipe(
  Config.mapOrFail(({ sourceSetting, ...s }) => {
    const source = sourceSetting ?? (s.rpcUrl !== undefined ? "rpc" : "demo")
    if (!(CHAIN_SOURCES as ReadonlyArray<string>).includes(source)) {
      return Either.left(ConfigError.InvalidData(["CHAIN_SOURCE"], `unknown chain source ${source}; known: ${CHAIN_SOURCES.join(", ")}`))
    }
    if (source === "rpc" && s.rpcUrl === undefined) return Either.left(ConfigError.MissingData(["ETH_RPC_URL"], "CHAIN_SOURCE=rpc needs ETH_RPC_URL"))
    if (source === "replay" && s.replayDir === undefined) return Either.left(ConfigError.MissingData(["CHAIN_REPLAY_DIR"], "CHAIN_SOURCE=replay needs CHAIN_REPLAY_DIR"))
    return Either.right({ ...s, source: source as (typeof CHAIN_SOURCES)[number], sourceExplicit: sourceSetting !== undefined })
  })
)

export type ChainSettings = Config.Config.Success<typeof chainSettings>

export class ChainConfig extends Effect.Service<ChainConfig>()("app/chain/ChainConfig", {
  effect: chainSettings
}) {}
