/**
 * The pure parts of the chain commands and listener: wallet files (CSV and JSON), USD rounding as PostgreSQL
 * stores it, where a listener without a checkpoint starts, and prefetching (same answers, failures not cached).
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { firstBlock } from "../../server/domains/chain/Listener"
import { prefetching } from "../../server/domains/chain/Prefetch"
import { BlockNotFound, RpcError, type ChainSourceShape } from "../../server/domains/chain/Source"
import type { ChainBlock } from "../../server/domains/chain/Types"
import { parseCsv, parseWallets } from "../../server/domains/chain/WalletFile"
import { cents } from "../../server/domains/chain/Wire"

const VITALIK = "0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045"

describe("wallet files", () => {
  it("reads CSV with quoted fields, CRLF, a BOM, any column order and an optional cohort", () => {
    expect(parseCsv('a,"b, ""c""",d\r\n"x\ny",,\n')).toEqual([["a", 'b, "c"', "d"], ["x\ny", "", ""]])
    const text = `\uFEFFlabel,cohort,address\r\n"Vitalik, main",MEGA,${VITALIK}\r\nBinance 14,,0x28c6c06298d514db089934071355e5743bf21d60\r\n\r\n`
    expect(parseWallets("w.csv", text)).toEqual({
      wallets: [
        { address: VITALIK.toLowerCase(), label: "Vitalik, main", cohort: "mega" },
        { address: "0x28c6c06298d514db089934071355e5743bf21d60", label: "Binance 14" }
      ],
      problems: []
    })
  })

  it("reads a JSON array, by extension or by its first character", () => {
    const json = JSON.stringify([{ address: VITALIK, label: "v", cohort: "large" }])
    expect(parseWallets("w.json", json).wallets).toEqual([{ address: VITALIK.toLowerCase(), label: "v", cohort: "large" }])
    expect(parseWallets("w.txt", ` ${json}`).wallets).toHaveLength(1)
  })

  it("lists every problem: header, bad address or checksum, empty label, unknown cohort, duplicates", () => {
    expect(parseWallets("w.csv", "wallet,name\n").problems).toEqual(["the header must name address,label[,cohort] (missing: address, label)"])
    const badChecksum = VITALIK.replace("dA6", "Da6")
    const { problems } = parseWallets("w.csv", [
      "address,label,cohort", `${badChecksum},x,`, "0x12,y,", `${VITALIK},,`, `${VITALIK},z,whale`, `${VITALIK},ok,`, `${VITALIK.toLowerCase()},again,`
    ].join("\n"))
    expect(problems).toEqual([
      "line 2: address: not an address (or a bad checksum)",
      "line 3: address: not an address (or a bad checksum)",
      "line 4: label: label is empty",
      expect.stringMatching(/^line 5: cohort: /),
      `line 7: ${VITALIK.toLowerCase()} is listed already (line 6)`
    ])
    expect(parseWallets("w.json", "{}").problems).toEqual(["a JSON wallet file is an array of {address, label, cohort?}"])
    expect(parseWallets("w.csv", "address,label\n").problems).toEqual(["no wallets in the file"])
  })
})

describe("USD to the cent", () => {
  it("rounds the decimal text half away from zero, as numeric(24,2) does", () => {
    expect([cents(1234.565), cents(0.005), cents(7200), cents(506.97435028), cents(null), cents(1e-7)]).toEqual([1234.57, 0.01, 7200, 506.97, null, 0])
  })
})

describe("first block of a listener without a checkpoint", () => {
  const settings = { startBlock: undefined, demoHistoryBlocks: 300 } as Parameters<typeof firstBlock>[0]
  it("is the head on a real chain, the last hour on the demo chain, or CHAIN_START_BLOCK", () => {
    expect(firstBlock(settings, "rpc", 1_000)).toBe(1_000)
    expect(firstBlock(settings, "demo", 1_000)).toBe(701)
    expect(firstBlock({ ...settings, startBlock: 17 }, "rpc", 1_000)).toBe(17)
    expect(firstBlock({ ...settings, startBlock: -10 }, "rpc", 1_000)).toBe(991)
  })
})

describe("prefetching", () => {
  const block = (n: number): ChainBlock => ({
    number: n, hash: `0x${n.toString(16).padStart(64, "0")}`, parentHash: `0x${(n - 1).toString(16).padStart(64, "0")}`, timestamp: n, transactions: []
  })
  const fake = (failOnce: Set<number>) => {
    const calls: Array<string> = []
    const source: ChainSourceShape = {
      kind: "replay",
      latestBlockNumber: Effect.succeed(100),
      getBlock: (n) => Effect.suspend((): Effect.Effect<ChainBlock, RpcError | BlockNotFound> => {
        calls.push(`block ${n}`)
        if (failOnce.delete(n)) return Effect.fail(new RpcError({ method: "eth_getBlockByNumber", message: "429", retryable: true }))
        return n > 100 ? Effect.fail(new BlockNotFound({ number: n })) : Effect.succeed(block(n))
      }),
      getLogs: (r) => Effect.sync(() => {
        calls.push(`logs ${r.fromBlock}-${r.toBlock}`)
        return []
      }),
      getReceipt: () => Effect.succeed(null),
      readTokenMeta: () => Effect.succeed({ symbol: "X", decimals: 18 })
    }
    return { source, calls }
  }

  it("answers as the source does, fetching ahead within the range, and fetches afresh after a failure", async () => {
    const { source, calls } = fake(new Set([12]))
    const out = await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const view = yield* prefetching(source, { fromBlock: 10, toBlock: 14 }, 2)
      const got: Array<unknown> = []
      for (let n = 10; n <= 14; n++) {
        const first = yield* Effect.exit(view.getBlock(n))
        got.push(Exit.isSuccess(first) ? first.value.number : yield* view.getBlock(n).pipe(Effect.map((b) => `retried ${b.number}`)))
        got.push((yield* view.getLogs({ fromBlock: n, toBlock: n })).length)
      }
      return got
    })))
    expect(out).toEqual([10, 0, 11, 0, "retried 12", 0, 13, 0, 14, 0])
    // Each block fetched once (block 12 twice: its prefetch failed), nothing beyond the range.
    expect(calls.filter((c) => c.startsWith("block")).sort()).toEqual(["block 10", "block 11", "block 12", "block 12", "block 13", "block 14"])
    expect(calls.filter((c) => c.startsWith("logs"))).toHaveLength(5)
  })
})
