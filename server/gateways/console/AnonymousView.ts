/**
 * What an anonymous visitor sees of whale activity, in one place for the live feed topic and the console's token
 * endpoint: trades `anonDelayMs` late (the hub delays the topic; endpoints filter by time) with wallets masked.
 */

/** `0x1234…abcd`: enough to tell wallets apart in a list, not to look one up. */
export const maskAddress = (address: string) => (address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address)

/** A trade as an anonymous visitor sees it. */
export const masked = <T extends { readonly wallet: string }>(trade: T): T => ({ ...trade, wallet: maskAddress(trade.wallet) })

/** The trades an anonymous visitor may see at `now`: none newer than the delay, wallets masked. */
export const anonymousTrades = <T extends { readonly wallet: string; readonly ts: string }>(trades: ReadonlyArray<T>, now: number, delayMs: number): Array<T> =>
  trades.filter((t) => Date.parse(t.ts) <= now - delayMs).map(masked)
