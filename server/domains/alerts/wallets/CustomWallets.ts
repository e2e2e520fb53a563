/**
 * Custom wallets (spec §4.8): whale-tier users monitor up to `ALERTS_CUSTOM_WALLET_CAP` addresses of their own.
 * An address is checked with viem (a valid address; a mixed-case one must carry a correct EIP-55 checksum), and
 * refused when it is the zero address, a token contract we know, or a labelled exchange or router (their flows
 * are every user's, not a wallet's). Added wallets are monitored by ingestion from its next block (through the
 * chain domain's `ChainWallets`); the last user removing an address stops its monitoring. The owner's label stays
 * theirs (docs/security.md, "Private wallets"): the shared feed carries the short address, and only the owner's own
 * deliveries of the wallet's records say the label (the fan-out reads it, `WalletsRepo.labels`).
 *
 * Also the internal feed endpoints (`process-tx`, `custom-wallet-tx`, `dispatch`): validated bodies go onto the
 * same streams the block listener and the other domains use, so an external scanner can feed the system.
 */
import { Effect } from "effect"
import { getAddress, isAddress, zeroAddress } from "viem"
import { STREAMS, type ChainTxMessage } from "../../../../schema/streams"
import type { DispatchRequest, InternalTxRequest } from "../../../../schema/http/alerts"
import type { AuthUser } from "../../accounts/Model"
import { ChainWallets } from "../../chain/ChainWallets"
import { Bus } from "../../../platform/infra/Bus"
import { AlertsConfig } from "../Config"
import { recordKeyOf } from "../delivery/Rows"
import { AlertInputInvalid, AlertTierRequired } from "../Errors"
import { shortAddress } from "../Format"
import { policyOf } from "../Policy"
import { AlertChanges } from "../subscriptions/Changes"
import { TooManyWallets, WalletExists, WalletNotFound, WalletNotMonitored } from "./Errors"
import { WalletsRepo } from "./WalletsRepo"

const invalid = (msg: string, input: string) => new AlertInputInvalid({ issues: [{ type: "value_error", loc: ["body", "address"], msg, input }] })

const toMessage = (r: InternalTxRequest, labelOverride?: string | null): ChainTxMessage => ({
  messageId: `internal:${recordKeyOf(r)}`,
  id: null,
  tx_hash: r.tx_hash, log_index: r.log_index, block: r.block, ts: new Date(r.ts).toISOString(), wallet: r.wallet,
  wallet_label: labelOverride !== undefined && labelOverride !== null ? labelOverride : r.wallet_label,
  token: r.token, symbol: r.symbol, category: r.category, amount: r.amount, usd: r.usd, price_usd: r.price_usd,
  counter_token: r.counter_token, counter_symbol: r.counter_symbol, venue: r.venue, source: "internal"
})

export class CustomWallets extends Effect.Service<CustomWallets>()("app/AlertCustomWallets", {
  dependencies: [WalletsRepo.Default, AlertChanges.Default, AlertsConfig.Default, ChainWallets.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WalletsRepo
    const changes = yield* AlertChanges
    const config = yield* AlertsConfig
    const chain = yield* ChainWallets
    const bus = yield* Bus
    const capOf = (user: AuthUser) => (policyOf(user.tier).customWallets ? config.customWalletCap : 0)
    const wire = (w: { id: number; address: string; label: string | null; created_at: Date }) => ({ ...w, created_at: w.created_at.toISOString() })

    return {
      list: Effect.fn("CustomWallets.list")(function* (user: AuthUser) {
        const cap = capOf(user)
        return { wallets: cap === 0 ? [] : (yield* repo.wallets(user.id)).map(wire), cap }
      }),

      add: Effect.fn("CustomWallets.add")(function* (user: AuthUser, raw: string, label: string | null) {
        const cap = capOf(user)
        if (cap === 0) return yield* new AlertTierRequired({ what: "Custom wallets", required: "whale", tier: user.tier })
        // viem: strict checks EIP-55 checksums of mixed-case input; all-lower or all-upper hex carries none.
        const mixed = /[a-f]/.test(raw.slice(2)) && /[A-F]/.test(raw.slice(2))
        if (!isAddress(raw, { strict: mixed })) return yield* invalid(mixed ? "Not a valid address (wrong EIP-55 checksum)" : "Not a valid address", raw)
        const address = getAddress(raw).toLowerCase()
        if (address === zeroAddress) return yield* invalid("The zero address cannot be monitored", raw)
        const known = yield* chain.describe(address)
        if (known.labelCategory === "exchange" || known.labelCategory === "router") {
          return yield* invalid(`${known.labelName} is a known ${known.labelCategory} address, not a wallet`, raw)
        }
        const added = yield* repo.addWallet(user.id, address, label, cap)
        if (added.kind === "cap") return yield* new TooManyWallets({ cap })
        if (added.kind === "exists") return yield* new WalletExists()
        // The label is the owner's: it stays in alert_custom_wallets and never reaches the shared tables or streams;
        // the fan-out learns it (a change of the user) for the owner's own deliveries.
        yield* chain.trackCustom(address)
        yield* changes.announce("user", user.id)
        yield* Effect.logInfo(`custom wallet ${address} added`).pipe(Effect.annotateLogs({ user: user.id }))
        return { ...wire(added.row), monitored_from: "next block", already_tracked: known.tracked !== null && known.tracked.source !== "custom" }
      }),

      remove: Effect.fn("CustomWallets.remove")(function* (user: AuthUser, id: number) {
        const address = yield* repo.removeWallet(user.id, id)
        if (address === null) return yield* new WalletNotFound({ id })
        if ((yield* repo.walletWatchers(address)) === 0) yield* chain.untrackCustom(address)
        yield* changes.announce("user", user.id)
        return { deleted: true as const, id }
      }),

      /** Whether this user monitors the address as a custom wallet, with their own label (the wallet page's privacy). */
      ownWallet: Effect.fn("CustomWallets.ownWallet")(function* (userId: number, address: string) {
        return yield* repo.ownWallet(userId, address.toLowerCase())
      }),

      /** `process-tx`: one record onto `chain.tx`. */
      processTx: Effect.fn("Feed.processTx")(function* (r: InternalTxRequest) {
        yield* bus.publish(STREAMS.chainTx, toMessage(r))
        return { accepted: 1, stream: STREAMS.chainTx }
      }),

      /** `custom-wallet-tx`: a record of a monitored custom wallet (404 when nobody monitors it). */
      customWalletTx: Effect.fn("Feed.customWalletTx")(function* (r: InternalTxRequest) {
        const custom = yield* repo.isCustomWallet(r.wallet)
        if (custom === null) return yield* new WalletNotMonitored({ wallet: r.wallet })
        // chain.tx is everyone's feed: a custom wallet goes out under its short address, not its owner's private label.
        yield* bus.publish(STREAMS.chainTx, toMessage(r, r.wallet_label ?? shortAddress(r.wallet)))
        return { accepted: 1, stream: STREAMS.chainTx }
      }),

      /** `dispatch`: a batch of records (block listener) or one domain event. */
      dispatch: Effect.fn("Feed.dispatch")(function* (body: DispatchRequest) {
        if ("records" in body) {
          yield* bus.publishMany(STREAMS.chainTx, body.records.map((r) => toMessage(r)))
          return { accepted: body.records.length, stream: STREAMS.chainTx }
        }
        const e = body.event
        const id = e._tag === "PickFlagged" ? `pick:${e.pick_id}` : e._tag === "PlaybookEventStatus" ? `playbook:${e.event_id}:${e.status}` : `index:${e.at}`
        yield* bus.publish(STREAMS.domainEvents, { ...e, messageId: `dispatch:${id}` })
        return { accepted: 1, stream: STREAMS.domainEvents }
      })
    } as const
  })
}) {}
