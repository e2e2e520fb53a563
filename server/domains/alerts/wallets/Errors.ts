/** Expected failures of custom wallets and the internal feed, each with its HTTP answer (merged by ../Errors.ts). */
import { Data } from "effect"
import { Conflict, NotFound, errorMap } from "../../../platform/http/Errors"

export class TooManyWallets extends Data.TaggedError("TooManyWallets")<{ readonly cap: number }> {}
export class WalletExists extends Data.TaggedError("WalletExists")<{}> {}
export class WalletNotFound extends Data.TaggedError("WalletNotFound")<{ readonly id: number }> {}
export class WalletNotMonitored extends Data.TaggedError("WalletNotMonitored")<{ readonly wallet: string }> {}

export const WalletErrors = errorMap<TooManyWallets | WalletExists | WalletNotFound | WalletNotMonitored>()({
  TooManyWallets: (e) => new Conflict({ message: `At most ${e.cap} custom wallets`, code: "too_many_wallets", extra: { cap: e.cap } }),
  WalletExists: () => new Conflict({ message: "This wallet is already monitored", code: "wallet_exists" }),
  WalletNotFound: (e) => new NotFound({ message: `No custom wallet ${e.id}`, code: "wallet_not_found" }),
  WalletNotMonitored: (e) => new NotFound({ message: `${e.wallet} is not a monitored custom wallet`, code: "wallet_not_monitored" })
})
