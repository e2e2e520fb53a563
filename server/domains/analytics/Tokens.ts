/** Token presentation shared by the read models: native ETH is recorded as WETH and shown as `ETH`. */
import { WETH } from "../chain/Reference"

export { WETH }

/** The majors of the positioning view, address → stored symbol. */
export const MAJORS: ReadonlyMap<string, string> = new Map([
  [WETH, "WETH"],
  ["0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "WBTC"],
  ["0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf", "cbBTC"]
])

/** WETH (native ETH included) is shown as `ETH`; every other token by its symbol. */
export const displaySymbol = (token: string, symbol: string) => (token === WETH ? "ETH" : symbol)

/** Addresses a `token` filter names: an address as given, `ETH`/`WETH` as WETH, otherwise by symbol (looked up). */
export const isAddress = (s: string) => /^0x[0-9a-fA-F]{40}$/.test(s)
