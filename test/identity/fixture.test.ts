/**
 * The identity engine on real blocks: mainnet 17173049–17173050 replayed over JSON-RPC (test/support/rpcReplay.ts),
 * read through the real viem source (blocks, logs with the swap events, eth_getCode) exactly as the listener's tap
 * reads them. Nothing is stored (the service-level tests do that).
 *
 * The expected sandwiches were found by hand in the fixture's logs (expected_logs.json), before the rule existed:
 * per pool, the same contract called by the same EOA buys, another sender's transaction swaps the same way in the
 * same pool, then the same contract swaps back, paying into the pool the token the front-run took out of it, within
 * 1 % of that amount (checked below from the raw logs: exact for the first, 1 wei less for the third, 0.9 % less
 * WETH for the second, whose searcher also ended with more tokens than it sold). Both searcher contracts are also tagged as MEV bots in
 * the shared address-label fixture (dawsbot mev-bot list: "jaredfromsubway: MEV Bot", "MEV Bot: 0x1b2…179") —
 * a cross-check only: the engine is given no MEV label. These blocks hold no CoW settlement and no Curve exchange
 * (asserted below); those paths are covered by test/identity/unit.rules.test.ts.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EtlLog, EtlTransaction, readJsonLines } from "../../server/domains/chain/Etl"
import { TOPICS } from "../../server/domains/chain/LogTopics"
import { makeRpcSource } from "../../server/domains/chain/RpcSource"
import { IdentityBook } from "../../server/domains/identity/Book"
import { observeBlock } from "../../server/domains/identity/Engine"
import { loadLabelBook } from "../../server/domains/identity/Labels"
import type { Identity } from "../../server/domains/identity/Types"
import { BLOCKS, chainFixtures, SET } from "../support/chainFixture"
import { fixturePath } from "../support/fixtures"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"

const fx = chainFixtures()

/** The sandwiches of these blocks: pool, front-run, victim(s), back-run (see the header for how they were found). */
const SANDWICHES = [
  { pool: "0x7054b0f980a7eb5b3a6b3446f3c947d80162775c", front: "0xeb107a40ba73a50c79a9f2026e902d758d1c5e5e211f7a7db1b294f88f118dd0", victims: ["0xec7cc4df1ff542793053335700f18d59c3f870e1e4820a42d558c76db832bd14"], back: "0xfb6562bc2ebde7ca21528e88bd9f5506949754e0880e79778007bc95819adb10" },
  { pool: "0x0f23d49bc92ec52ff591d091b3e16c937034496e", front: "0xa0d65880e1b8cb020dbe5ad2ff46e634ee7f6180f01b2aa5ea95d41f417a031f", victims: ["0x550f63a5c8e5437c8aa05ce68c846a5aae19aee6f207672769e4350e7e3b90e5"], back: "0xd801359cc74a7cf535c43f0df29eff82135bc38c282e1d4882eac7f95513394f" },
  { pool: "0x5b6a17d4e84b8d9b40eaaae821fc141d6158fe44", front: "0x40924a0132e418deee4e50dfa4ed328f62cd0759831edcb0f9807e6cdd386598", victims: ["0x70c091958a49d96774cd473fbc3ea875f226d4bb5ce7c16eb2a82eae70698fb4"], back: "0x34e4a5f92ca7d2f22dcce06ff03c4280897c80fd3fcff7c42429616558d1cbec" }
]
/** Their searchers: two contracts and the EOA calling each. */
const BOTS = [
  "0x6b75d8af000000e20b7a7ddf000ba900b4009a80", "0xae2fc483527b8ef99eb5d9b44875f005ba1fae13",
  "0x1b2137cf6a090da28c36f6081d12ecccad0e5179", "0x446d722624ae190a16fd2be14ce52a9e4f9b6ae3"
]
/** Routers, aggregators and executors on the swap paths of these blocks (the last three unlabelled: pass-through). */
const ROUTERS = [
  "0xef1c6e67703c7bd7107eed8303fbe6ec2554bf6b", "0x7a250d5630b4cf539739df2c5dacb4c659f2488d", "0x68b3465833fb72a70ecdf485e0e4c7bd8665fc45",
  "0x1111111254eeb25477b68fb85ed929f73a960582", "0x1111111254fb6c44bac0bed2854e76f90643097d", "0xdef1c0ded9bec7f1a1670819833240f027b25eff",
  "0xe66b31678d6c16e9ebf358268a790b763c133750", "0x881d40237659c251811cec9c364ef91dc08d300c", "0x6131b5fae19ea4f9d964eac0408e4408b66337b5",
  "0x3b3ae790df4f312e745d270119c6052904fb6790", "0xa88800cd213da5ae406ce248380802bd53b47647",
  "0x555b6ee8fab3dfdbcca9121721c435fd4c7a1fd1", "0x74de5d4fcbf63e00296fd95d33236b9794016631", "0xfd6c2d2499b1331101726a8ac68ccc9da3fab54f"
]
/** A bad seed list: a router and an exchange wallet tracked as whales must still come out router and exchange. */
const UNIVERSAL_ROUTER = ROUTERS[0]!
const BINANCE_14 = "0x28c6c06298d514db089934071355e5743bf21d60"
const SWAP = new Set([TOPICS.uniswapV2Swap, TOPICS.uniswapV3Swap])

describe.skipIf(!fx.available)(`identity on mainnet blocks 17173049–17173050 over JSON-RPC${fx.skipNote}`, () => {
  const txs = fx.available ? readJsonLines(fixturePath(SET, "expected_transactions.json"), EtlTransaction) : []
  const logs = fx.available ? readJsonLines(fixturePath(SET, "expected_logs.json"), EtlLog) : []
  const labels = loadLabelBook()
  let server: RpcReplayServer
  let identities: Map<string, Identity>
  let found: Array<{ pool: string; front: string; victims: Array<string>; back: string }>
  let whaleUser: string

  beforeAll(async () => {
    server = await startRpcReplay()
    const swapTxs = new Set(logs.filter((l) => SWAP.has(l.topics[0] as never)).map((l) => l.transaction_hash))
    whaleUser = txs.find((t) => t.hash === SANDWICHES[0]!.victims[0])!.from_address
    const book = new IdentityBook(labels)
    book.setTracked(new Map([whaleUser, UNIVERSAL_ROUTER, BINANCE_14].map((a) => [a, { label: `seed ${a.slice(0, 8)}`, source: "seed" }])))
    expect(swapTxs.size).toBeGreaterThan(60)
    const run = Effect.scoped(Effect.gen(function* () {
      const source = yield* makeRpcSource({ url: server.url })
      const out: Array<Effect.Effect.Success<ReturnType<typeof observeBlock>>> = []
      for (const n of BLOCKS) {
        const block = yield* source.getBlock(n)
        out.push(yield* observeBlock({ book, getCodes: source.getCodes! }, block, yield* source.getLogs({ fromBlock: n, toBlock: n })))
      }
      return out
    }))
    const observed = await Effect.runPromise(run)
    found = observed.flatMap((o) => o.observed.sandwiches.map((s) => ({ pool: s.pool, front: s.front.txHash, victims: s.victims.map((v) => v.txHash), back: s.back.txHash })))
    identities = new Map(observed.flatMap((o) => o.observed.met).map((a) => [a, book.state(a)!.identity!]))
    const counts = new Map<string, number>()
    for (const i of identities.values()) counts.set(i.class, (counts.get(i.class) ?? 0) + 1)
    console.info(`identity fixture: ${identities.size} addresses: ${[...counts].map(([c, k]) => `${k} ${c}`).join(", ")}`)
  }, 60_000)
  afterAll(async () => server?.close())

  it("finds exactly the three sandwiches of these blocks, whose back-runs pay back what the front-runs took out", () => {
    expect(found).toEqual(SANDWICHES)
    const word = (a: string) => `0x${"0".repeat(24)}${a.slice(2)}`
    for (const s of SANDWICHES) {
      const out = logs.find((l) => l.transaction_hash === s.front && l.topics[0] === TOPICS.transfer && l.topics[1] === word(s.pool))!
      const back = logs.find((l) => l.transaction_hash === s.back && l.topics[0] === TOPICS.transfer && l.topics[2] === word(s.pool))!
      expect(back.address).toBe(out.address)
      const [took, paid] = [BigInt(out.data), BigInt(back.data)]
      expect(took - paid <= took / 100n && paid - took <= took / 100n, `${s.front}: ${took} vs ${paid}`).toBe(true)
    }
  })

  it("calls the sandwich bots — two searcher contracts and their EOAs — mev_bot, and nobody else", () => {
    expect(BOTS.map((a) => [a, identities.get(a)?.class])).toEqual(BOTS.map((a) => [a, "mev_bot"]))
    expect([...identities.values()].filter((i) => i.class === "mev_bot").map((i) => i.address).sort()).toEqual([...BOTS].sort())
    expect(identities.get(BOTS[0]!)).toMatchObject({ kind: "contract", classSource: "rule", label: null })
    expect(identities.get(BOTS[1]!)).toMatchObject({ kind: "eoa" })
  })

  it("calls the routers, aggregators and executors on the swap paths router (the fixture has no CoW or Curve trade)", () => {
    expect(ROUTERS.map((a) => [a, identities.get(a)?.class])).toEqual(ROUTERS.map((a) => [a, "router"]))
    expect(logs.some((l) => l.address === "0x9008d19f58aabd9ed0d60971565aa8510560ab41")).toBe(false)
    expect(logs.some((l) => [TOPICS.curveExchange, TOPICS.curveExchangeUint, TOPICS.curveExchangeNg, TOPICS.curveExchangeUnderlying].includes(l.topics[0] as never))).toBe(false)
  })

  it("calls every labelled exchange wallet met exchange, with its exchange's name", () => {
    const labelled = [...identities.keys()].filter((a) => labels.fact(a)?.class === "exchange")
    expect(labelled.length).toBeGreaterThanOrEqual(10)
    for (const a of labelled) expect(identities.get(a), a).toMatchObject({ class: "exchange", classSource: "label_file", exchange: labels.fact(a)!.exchange })
  })

  it("calls the users who swapped trader or whale, and no router, exchange, pool or bot a whale", () => {
    // Users: the senders of a Uniswap swap transaction who moved tokens or ETH of their own in it (from the fixture's
    // transfers and values, not from the engine), other than the searchers.
    const users = new Set(txs.filter((t) => logs.some((l) => l.transaction_hash === t.hash && SWAP.has(l.topics[0] as never)) &&
      (t.value >= 10n ** 15n || logs.some((l) => l.transaction_hash === t.hash && l.topics[0] === TOPICS.transfer && l.topics.slice(1).includes(`0x${"0".repeat(24)}${t.from_address.slice(2)}`))))
      .map((t) => t.from_address).filter((a) => !BOTS.includes(a)))
    expect(users.size).toBeGreaterThanOrEqual(50)
    for (const u of users) expect([u, identities.get(u)?.class]).toEqual([u, u === whaleUser ? "whale" : "trader"])
    expect(identities.get(UNIVERSAL_ROUTER)?.class).toBe("router")
    expect(identities.get(BINANCE_14)?.class).toBe("exchange")
    const whales = [...identities.values()].filter((i) => i.class === "whale").map((i) => i.address)
    expect(whales).toEqual([whaleUser])
  })
})
