/**
 * Messages of the echo-portfolio actor on `echo.cmd`, keyed by user (`userId`). `messageId` is the command id: a
 * command is applied once however often it is delivered (echo_trades.command_id / echo_commands are unique).
 */
import { z } from "zod"

const base = { messageId: z.string().min(1).max(200), userId: z.number().int().positive() }
const side = z.enum(["BUY", "SELL"])

/** A manual trade (the bench and external producers send these; HTTP applies its own under the same row lock). */
export const EchoTrade = z.object({ _tag: z.literal("Trade"), ...base, side, token: z.string(), usd: z.number().positive().optional(), quantity: z.number().positive().optional() })
/** A copy of one whale record at a chosen size. */
export const EchoCopy = z.object({ _tag: z.literal("Copy"), ...base, tx_hash: z.string(), log_index: z.number().int().optional(), wallet: z.string().optional(), usd: z.number().positive().optional(), fraction: z.number().positive().max(1).optional() })
/** An auto-copy of a followed wallet's record, with the follower's rule as it was when the record arrived. */
export const EchoAutoCopy = z.object({
  _tag: z.literal("AutoCopy"), ...base,
  tx_hash: z.string(), log_index: z.number().int(), wallet: z.string(), token: z.string(), symbol: z.string(), side, whale_usd: z.number().nullable(),
  rule: z.object({ mode: z.enum(["fixed", "fraction"]), amount: z.number().positive(), cap_usd: z.number().positive(), copy_sells: z.boolean() })
})
/** Undo a copy whose whale record a reorg retracted. */
export const EchoRetract = z.object({ _tag: z.literal("Retract"), ...base, tradeId: z.number().int() })
export const EchoReset = z.object({ _tag: z.literal("Reset"), ...base })
/** The user is looking (or just traded over HTTP): activate the entity and refresh its view of the book. */
export const EchoTouch = z.object({ _tag: z.literal("Touch"), ...base })

export const EchoCommand = z.discriminatedUnion("_tag", [EchoTrade, EchoCopy, EchoAutoCopy, EchoRetract, EchoReset, EchoTouch])
export type EchoCommand = z.infer<typeof EchoCommand>
