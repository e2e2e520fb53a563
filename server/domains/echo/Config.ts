/** Echo's settings from the environment (its config slice). Defaults are documented in docs/domains/echo.md. */
import { Config, Context, Effect, Layer } from "effect"
import type { FillParams } from "./Fills"

export interface EchoConfigShape {
  readonly startCash: number
  readonly fill: FillParams
  /** An actor's per-user entity is passivated after this long without a command. */
  readonly idleMs: number
  /** How often settings are re-read from the database (every process). */
  readonly settingsPollMs: number
  readonly boardMinDays: number
  readonly boardMinClosed: number
  readonly maxAutoCopyRules: number
  /** `POST /api/echo/trade`: applied by the request itself under the row lock (`direct`), or sent to the user's actor (`actor`). */
  readonly httpTrades: "direct" | "actor"
}

const num = (name: string, fallback: number) => Config.number(name).pipe(Config.withDefault(fallback))

export const echoConfig = Config.all({
  startCash: num("ECHO_START_CASH", 100_000),
  delayBlocks: Config.integer("ECHO_COPY_DELAY_BLOCKS").pipe(Config.withDefault(1)),
  feeBps: num("ECHO_FEE_BPS", 30),
  impactBps: num("ECHO_IMPACT_BPS", 1000),
  maxBps: num("ECHO_MAX_SLIPPAGE_BPS", 1500),
  minLiquidityUsd: num("ECHO_MIN_LIQUIDITY_USD", 250_000),
  gasUnits: num("ECHO_GAS_UNITS", 150_000),
  baseFeeGwei: num("ECHO_BASE_FEE_GWEI", 20),
  ethUsdDefault: num("ECHO_ETH_USD_DEFAULT", 3_000),
  idleMs: Config.integer("ECHO_ACTOR_IDLE_MS").pipe(Config.withDefault(300_000)),
  settingsPollMs: Config.integer("ECHO_SETTINGS_POLL_MS").pipe(Config.withDefault(2_000)),
  boardMinDays: Config.integer("ECHO_BOARD_MIN_DAYS").pipe(Config.withDefault(3)),
  boardMinClosed: Config.integer("ECHO_BOARD_MIN_CLOSED_TRADES").pipe(Config.withDefault(5)),
  maxAutoCopyRules: Config.integer("ECHO_MAX_AUTOCOPY_WALLETS").pipe(Config.withDefault(20)),
  httpTrades: Config.literal("direct", "actor")("ECHO_HTTP_TRADES").pipe(Config.withDefault("actor" as const))
}).pipe(
  Config.map((c): EchoConfigShape => ({
    startCash: c.startCash,
    fill: {
      delayBlocks: c.delayBlocks, feeBps: c.feeBps, impactBps: c.impactBps, maxBps: c.maxBps, minLiquidityUsd: c.minLiquidityUsd,
      gasUnits: c.gasUnits, baseFeeGwei: c.baseFeeGwei, ethUsdDefault: c.ethUsdDefault
    },
    idleMs: c.idleMs,
    settingsPollMs: c.settingsPollMs,
    boardMinDays: c.boardMinDays,
    boardMinClosed: c.boardMinClosed,
    maxAutoCopyRules: c.maxAutoCopyRules,
    httpTrades: c.httpTrades
  }))
)

export class EchoConfig extends Context.Tag("app/echo/EchoConfig")<EchoConfig, EchoConfigShape>() {
  static readonly Default = Layer.effect(EchoConfig, Effect.orDie(echoConfig))
}
