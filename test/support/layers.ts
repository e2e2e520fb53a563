/**
 * Layers that several service tests need beside the one under test (test/support/serviceTest.ts), each the real
 * service with the stand-ins it needs and nothing more.
 */
import { Layer } from "effect"
import { Chain } from "../../server/domains/chain/Chain"
import { ChainCatalog } from "../../server/domains/chain/Catalog"
import { ChainSource } from "../../server/domains/chain/Source"
import { stub } from "./stub"

/**
 * The chain domain's reads and reference data on the test's database, without a chain to follow: `Chain` is the
 * real service, its source a stub (any call fails the test, naming the method). `ChainCatalog.seed` writes the
 * reference data (tokens, seed wallets) the app writes at start.
 */
export const ChainReads = Layer.merge(Chain.Default.pipe(Layer.provide(stub(ChainSource, {}))), ChainCatalog.Default)
