/** The picks one wallet flagged (the wallet page): newest first, with the wallet's own first exit after each flag. */
import { Effect } from "effect"
import type { WalletPick } from "../../../schema/http/wallets"
import { WalletPicksRepo } from "./WalletPicksRepo"

export class WalletPicks extends Effect.Service<WalletPicks>()("app/picks/WalletPicks", {
  dependencies: [WalletPicksRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WalletPicksRepo
    return {
      ofWallet: Effect.fn("WalletPicks.ofWallet")(function* (wallet: string, limit = 50) {
        return (yield* repo.ofWallet(wallet, limit)).map((r): WalletPick => ({
          id: r.id, token: r.token, symbol: r.symbol, flagged_at: r.flagged_at.toISOString(), status: r.status, whales: r.whales,
          conviction: r.conviction, close_return: r.close_return, peak_return: r.peak_return,
          exit: r.exit_at === null ? null : { at: r.exit_at.toISOString(), route: r.exit_route ?? "", move: r.exit_move }
        }))
      })
    } as const
  })
}) {}
